/**
 * The run's compare tab: two arms of the run (two trainers, variants, optimizers or models) on the
 * jobs both ran, as `trace-bench compare RUN --by AXIS A B` prints them: per task and overall the
 * pairs, each arm's mean, the mean difference A − B with its bootstrap interval, the sign and
 * permutation tests' p, and the verdict. Only axes with two values or more among finished jobs are
 * offered.
 */
import type { ComparePayload, RunPayload } from "../../api-types.js";
import { get } from "../api.js";
import { fill, h } from "../dom.js";
import { score } from "../format.js";

const AXES = { trainer: "trainer_id", variant: "variant", optimizer: "resolved_optimizer", model: "llm_model" } as const;
type Axis = keyof typeof AXES;

const pValue = (p: number) => (p < 1e-4 ? p.toExponential(2) : String(Number(p.toPrecision(3))));

export class ComparePanel {
  readonly element: HTMLElement;
  private readonly controls = h("div", { class: "actions", "data-testid": "compare-controls" });
  private readonly result = h("div", { "data-testid": "compare-result" });
  private by: Axis | null = null;
  private a = "";
  private b = "";
  private shownFor = "";

  constructor(private readonly relDir: string) {
    this.element = h("section", null, this.controls, this.result);
  }

  update(payload: RunPayload): void {
    const finished = payload.rows.filter((r) => r.status !== null && r.status !== undefined);
    const valuesOf = (axis: Axis) => [...new Set(finished.map((r) => String(r[AXES[axis]] ?? "")))].sort();
    const axes = (Object.keys(AXES) as Axis[]).filter((axis) => valuesOf(axis).length >= 2);
    const key = JSON.stringify(axes.map((axis) => [axis, valuesOf(axis)]));
    // The same arms to choose from: only the figures may have moved (a live run).
    if (key === this.shownFor) return void this.load();
    this.shownFor = key;
    if (axes.length === 0) {
      fill(this.controls);
      fill(this.result, h("p", { class: "dim" }, "Nothing to compare yet: no trainer, variant, optimizer or model has two values among the finished jobs."));
      return;
    }
    if (this.by === null || !axes.includes(this.by)) {
      this.by = axes[0]!;
      [this.a, this.b] = valuesOf(this.by);
    }
    const select = (testid: string, options: readonly string[], value: string, onchange: (v: string) => void) =>
      h("select", { "data-testid": testid, onchange: (e: Event) => onchange((e.target as HTMLSelectElement).value) }, options.map((o) => h("option", { value: o, selected: o === value }, o)));
    const draw = () => {
      const values = valuesOf(this.by!);
      fill(
        this.controls,
        h("label", null, "compare by ", select("compare-by", axes, this.by!, (v) => {
          this.by = v as Axis;
          [this.a, this.b] = valuesOf(this.by);
          draw();
        })),
        h("label", null, " A ", select("compare-a", values, this.a, (v) => ((this.a = v), void this.load()))),
        h("label", null, " B ", select("compare-b", values, this.b, (v) => ((this.b = v), void this.load()))),
      );
      void this.load();
    };
    draw();
  }

  private async load(): Promise<void> {
    if (this.by === null) return;
    try {
      const c = await get<ComparePayload>("/api/compare", { run: this.relDir, by: this.by, a: this.a, b: this.b });
      const cells = (name: string, f: ComparePayload["overall"]) => [
        h("td", null, name),
        h("td", { class: "num" }, f.pairs),
        h("td", { class: "num" }, score(f.mean_a)),
        h("td", { class: "num" }, score(f.mean_b)),
        h("td", { class: "num" }, score(f.mean_diff)),
        h("td", { class: "num" }, f.ci95 === null ? f.ci95_note || "—" : `[${score(f.ci95[0])}, ${score(f.ci95[1])}]`),
        h("td", { class: "num" }, f.pairs === 0 ? "—" : pValue(f.sign_test.p)),
        h("td", { class: "num" }, f.pairs === 0 ? "—" : pValue(f.permutation.p)),
        h("td", null, f.ahead === "A" ? c.a : f.ahead === "B" ? c.b : "tie"),
      ];
      fill(
        this.result,
        h("p", { class: "dim" }, `Paired on ${c.paired_on.join(" × ")}; left out (no partner, or no score): ${c.unpaired.a} jobs of A, ${c.unpaired.b} of B. A − B: A's score minus B's, pair by pair.`),
        h(
          "table",
          { class: "grid", "data-testid": "compare-table" },
          h("thead", null, h("tr", null, ["task", "pairs", `mean A (${c.a})`, `mean B (${c.b})`, "A − B", "95% CI", "sign p", "permutation p", "ahead"].map((t) => h("th", null, t)))),
          h("tbody", null, c.tasks.map((t) => h("tr", null, cells(t.task_id, t))), h("tr", { class: "total" }, cells("overall", c.overall))),
        ),
        h("p", { "data-testid": "compare-verdict" }, c.verdict),
      );
    } catch (error) {
      fill(this.result, h("p", { class: "error", "data-testid": "compare-error" }, (error as Error).message));
    }
  }
}
