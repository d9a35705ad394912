/**
 * The results table: every results.csv column (choose which to show), sortable by any column
 * (numbers as numbers), filtered by a text that every shown cell is searched for and by status.
 * Sorting, filter and columns survive live refreshes.
 */
import { fill, h } from "../dom.js";
import { cell } from "../format.js";

const DEFAULT_COLUMNS = ["job_id", "task_id", "trainer_id", "variant", "seed", "state", "status", "score_val_initial", "score_val", "score_test", "time_seconds", "total_tokens", "llm_calls", "cost_usd"];
const STORED = "trace-bench.results.columns";

type Row = Readonly<Record<string, unknown>>;

function compare(a: unknown, b: unknown): number {
  const empty = (v: unknown) => v === null || v === undefined || v === "";
  if (empty(a) || empty(b)) return empty(a) === empty(b) ? 0 : empty(a) ? 1 : -1; // blanks last
  if (typeof a === "number" && typeof b === "number") return a - b;
  return cell(a).localeCompare(cell(b), "en", { numeric: true });
}

export class ResultsTable {
  readonly element: HTMLElement;
  private rows: readonly Row[] = [];
  private columns: readonly string[] = [];
  private shown: string[];
  private sort: { column: string; descending: boolean } | null = null;
  private filter = "";
  private status = "";
  private readonly table = h("table", { class: "grid results", "data-testid": "results-table" });
  private readonly chooser = h("div", { class: "chooser" });
  private readonly statusSelect = h("select", { "data-testid": "status-filter", "aria-label": "status" });
  private readonly count = h("span", { class: "dim" });

  constructor(private readonly jobHref: (jobId: string) => string) {
    const stored = localStorage.getItem(STORED);
    this.shown = stored === null ? [...DEFAULT_COLUMNS] : (JSON.parse(stored) as string[]);
    const filterInput = h("input", {
      type: "search",
      placeholder: "Filter rows…",
      "data-testid": "results-filter",
      oninput: (e: Event) => {
        this.filter = (e.target as HTMLInputElement).value.trim().toLowerCase();
        this.renderBody();
      },
    });
    this.statusSelect.addEventListener("change", () => {
      this.status = this.statusSelect.value;
      this.renderBody();
    });
    this.element = h(
      "section",
      { class: "results-table" },
      h("div", { class: "toolbar" }, filterInput, this.statusSelect, h("details", { class: "columns" }, h("summary", null, "Columns"), this.chooser), this.count),
      h("div", { class: "scroll" }, this.table),
    );
  }

  update(columns: readonly string[], rows: readonly Row[]): void {
    const newColumns = columns.join() !== this.columns.join();
    this.columns = columns;
    this.rows = rows;
    if (newColumns) this.renderChooser();
    const statuses = [...new Set(rows.map((r) => String(r.status ?? r.state ?? "")))].filter(Boolean).sort();
    fill(this.statusSelect, h("option", { value: "" }, "any status"), statuses.map((s) => h("option", { value: s }, s)));
    this.statusSelect.value = statuses.includes(this.status) ? this.status : "";
    this.render();
  }

  private renderChooser(): void {
    fill(
      this.chooser,
      this.columns.map((column) =>
        h(
          "label",
          null,
          h("input", {
            type: "checkbox",
            checked: this.shown.includes(column),
            onchange: (e: Event) => {
              const on = (e.target as HTMLInputElement).checked;
              this.shown = this.columns.filter((c) => (c === column ? on : this.shown.includes(c)));
              localStorage.setItem(STORED, JSON.stringify(this.shown));
              this.render();
            },
          }),
          column,
        ),
      ),
    );
  }

  private visibleColumns(): string[] {
    return this.columns.filter((c) => this.shown.includes(c));
  }

  private render(): void {
    const head = h(
      "tr",
      null,
      this.visibleColumns().map((column) => {
        const sorted = this.sort?.column === column;
        return h(
          "th",
          {
            class: `sortable${sorted ? (this.sort!.descending ? " desc" : " asc") : ""}`,
            "data-column": column,
            "aria-sort": sorted ? (this.sort!.descending ? "descending" : "ascending") : "none",
            onclick: () => {
              this.sort = sorted ? { column, descending: !this.sort!.descending } : { column, descending: false };
              this.render();
            },
          },
          column,
        );
      }),
    );
    fill(this.table, h("thead", null, head), h("tbody"));
    this.renderBody();
  }

  private renderBody(): void {
    const columns = this.visibleColumns();
    let rows = this.rows.filter((r) => this.status === "" || String(r.status ?? r.state ?? "") === this.status);
    if (this.filter !== "") rows = rows.filter((r) => columns.some((c) => cell(r[c], c).toLowerCase().includes(this.filter)));
    if (this.sort !== null) {
      const { column, descending } = this.sort;
      rows = [...rows].sort((a, b) => (descending ? -1 : 1) * compare(a[column], b[column]));
    }
    const body = this.table.tBodies[0]!;
    fill(
      body,
      rows.map((r) =>
        h(
          "tr",
          { "data-job": String(r.job_id) },
          columns.map((c) => {
            const value = r[c];
            const text = cell(value, c);
            if (c === "job_id") return h("td", { class: "mono" }, h("a", { href: this.jobHref(text) }, text));
            if (c === "status" || c === "state") return h("td", null, text === "" ? "" : h("span", { class: `badge ${text}` }, text));
            return h("td", { class: typeof value === "number" ? "num" : text.length > 60 ? "long" : "", title: text.length > 60 ? text : null }, text);
          }),
        ),
      ),
    );
    this.count.textContent = `${rows.length} of ${this.rows.length} jobs`;
  }
}
