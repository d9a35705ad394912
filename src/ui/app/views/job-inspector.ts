/**
 * One job: its machine with the path it took and the state it is in, evaluations and their
 * feedback, iteration history with parameter values (and line diffs between steps), every LLM
 * call with prompt and reply, the event timeline, and links to its files. Live while it runs.
 */
import type { CallEntry, CandidatesEntry, IterationEntry, JobPayload, MachinePayload, TransitionStep } from "../../api-types.js";
import { fileUrl, follow, get, post, type RunUpdate } from "../api.js";
import { fill, h } from "../dom.js";
import { int, score, usd, when } from "../format.js";
import { lineDiff, valueText } from "../text-diff.js";
import type { View } from "../view.js";
import { machineDiagram } from "./machine-diagram.js";
import { runHref } from "./runs-list.js";

let machine: Promise<MachinePayload> | null = null;

function pathText(steps: readonly TransitionStep[]): HTMLElement[] {
  const attempts = [...new Set(steps.map((s) => s.attempt))];
  return attempts.map((attempt) => {
    const mine = steps.filter((s) => s.attempt === attempt);
    return h(
      "div",
      { class: "path", "data-attempt": attempt },
      h("span", { class: "dim" }, `attempt ${attempt}: `),
      mine.length === 0 ? "queued" : [h("span", { class: "state" }, mine[0]!.from), mine.map((s) => [h("span", { class: "event" }, ` —${s.event}→ `), h("span", { class: "state", title: s.reason ?? "" }, s.to)])],
    );
  });
}

function diffBlock(before: unknown, after: unknown): HTMLElement {
  const lines = lineDiff(valueText(before), valueText(after));
  return h(
    "pre",
    { class: "diff" },
    lines.map((l) => h("div", { class: l.op === "+" ? "add" : l.op === "-" ? "del" : "" }, `${l.op} ${l.text}`)),
  );
}

/** Each step against the one before it in its attempt; the first against the initial values, when the job recorded them. */
function iterationRows(iterations: readonly IterationEntry[], initial: Readonly<Record<string, unknown>> | null, initialAttempt: number | null): HTMLElement {
  if (iterations.length === 0) return h("p", { class: "dim" }, "No iteration recorded.");
  return h(
    "div",
    { "data-testid": "iterations" },
    iterations.map((it, i) => {
      const previous =
        iterations.slice(0, i).reverse().find((p) => p.attempt === it.attempt) ?? (initial !== null && it.attempt === initialAttempt ? { values: initial } : undefined);
      const names = Object.keys(it.values);
      return h(
        "details",
        { class: "iteration", "data-step": it.step },
        h(
          "summary",
          null,
          h("span", { class: "mono" }, `attempt ${it.attempt} step ${it.step}`),
          ` score ${score(it.score)} · best ${score(it.best_score)} · ${it.llm_calls} LLM calls · ${it.evaluations} evaluations`,
          it.notes.length > 0 ? h("span", { class: "warning" }, ` · ${it.notes.length} note${it.notes.length === 1 ? "" : "s"}`) : null,
        ),
        it.notes.map((n) => h("div", { class: "warning" }, n)),
        names.map((name) => {
          const before = previous?.values[name];
          const changed = previous !== undefined && valueText(before) !== valueText(it.values[name]);
          return h(
            "div",
            { class: "param" },
            h("div", { class: "param-name" }, name, changed ? h("span", { class: "changed" }, " changed") : previous === undefined ? "" : h("span", { class: "dim" }, " unchanged")),
            changed ? diffBlock(before, it.values[name]) : h("pre", null, valueText(it.values[name])),
          );
        }),
      );
    }),
  );
}

const shortId = (ref: string) => ref.slice(0, 8);

/** The latest attempt's candidates: when each came in, from which parents, what it scored and changed. */
function candidateRows(candidates: CandidatesEntry): HTMLElement {
  if (candidates.rows.length === 0) return h("p", { class: "dim" }, "No candidate on record (the job has not evaluated one yet, or its log predates candidate events).");
  const introduced = (n: number | null) => (n === null ? "final" : n === 0 ? "initial" : `iteration ${n}`);
  return h(
    "div",
    null,
    h(
      "table",
      { class: "grid", "data-testid": "candidates" },
      h("thead", null, h("tr", null, ["candidate", "introduced", "parents", "evaluations", "mean score", "best score", "marks", "change"].map((t) => h("th", null, t)))),
      h(
        "tbody",
        null,
        candidates.rows.map((c) =>
          h(
            "tr",
            { "data-candidate": c.candidate },
            h("td", { class: "mono", title: c.candidate }, shortId(c.candidate)),
            h("td", null, introduced(c.introduced)),
            h("td", { class: "mono" }, c.parents.length === 0 ? "—" : c.parents.map(shortId).join(" ")),
            h("td", { class: "num" }, c.evaluations),
            h("td", { class: "num" }, score(c.mean_score)),
            h("td", { class: "num" }, score(c.best_score)),
            h("td", null, c.marks.join(" ")),
            h("td", null, c.changes.map((x) => `${x.parameter} +${x.added} −${x.removed} lines`).join(", ")),
          ),
        ),
      ),
    ),
    candidates.lineage.length === 0 ? null : h("p", { "data-testid": "lineage" }, h("span", { class: "dim" }, "lineage to the best: "), h("span", { class: "mono" }, candidates.lineage.map(shortId).join(" → "))),
  );
}

function callRows(calls: readonly CallEntry[]): HTMLElement {
  if (calls.length === 0) return h("p", { class: "dim" }, "No LLM call recorded.");
  return h(
    "div",
    { "data-testid": "llm-calls" },
    calls.map((c) =>
      h(
        "details",
        { class: `call ${c.outcome}` },
        h(
          "summary",
          null,
          h("span", { class: "mono" }, `#${c.call ?? "?"} (attempt ${c.attempt})`),
          ` ${c.role} · ${c.model} · `,
          h("span", { class: `badge ${c.outcome}` }, c.outcome),
          c.total_tokens === null ? "" : [" · ", h("span", { class: "tokens" }, `${int(c.prompt_tokens)} + ${int(c.completion_tokens)} = ${int(c.total_tokens)} tokens`)],
          c.latency_ms === null ? "" : [" · ", h("span", { class: "latency" }, `${int(c.latency_ms)} ms`)],
          c.cost_usd === null ? "" : ` · ${usd(c.cost_usd)}`,
        ),
        c.error === null ? null : h("div", { class: "error" }, c.error),
        c.messages === null ? h("p", { class: "dim" }, "prompt not stored") : c.messages.map((m) => h("div", { class: "message" }, h("div", { class: "role" }, m.role), h("pre", null, m.text ?? "(not stored)"))),
        h("div", { class: "message reply" }, h("div", { class: "role" }, "reply"), h("pre", null, c.reply ?? "(none)")),
      ),
    ),
  );
}

function section(title: string, ...body: (HTMLElement | HTMLElement[] | string | null)[]): HTMLElement {
  return h("section", { class: "card" }, h("h2", null, title), ...body);
}

export function jobInspector(root: HTMLElement, relDir: string, jobId: string): View {
  machine ??= get<MachinePayload>("/api/machine");
  let lastSeq = -1;
  let loading = false;
  let again = false;
  const render = (job: JobPayload, graph: MachinePayload) => {
    const latest = job.transitions.filter((t) => t.attempt === job.job.attempt);
    const finished = job.finished as {
      status: string;
      attempt: number;
      feedback: string;
      score_val: number | null;
      score_test: number | null;
      time_seconds: number;
      tokens: { total_tokens: number };
      cost_usd: number | null;
      initial_values: Record<string, unknown> | null;
    } | null;
    const open = new Set([...root.querySelectorAll("details[open]")].map((d) => d.getAttribute("data-step") ?? d.querySelector("summary")?.textContent ?? ""));
    fill(
      root,
      h("div", { class: "crumbs" }, h("a", { href: runHref(relDir) }, relDir || "run"), " / job"),
      h(
        "h1",
        null,
        h("span", { class: "mono" }, job.job.job_id),
        " ",
        h("span", { class: `badge ${job.job.state}`, "data-testid": "job-state" }, job.job.state),
        " ",
        job.cancellable ? h("button", { class: "danger", "data-testid": "cancel-job", onclick: () => void cancelJob() }, "Cancel job") : null,
      ),
      message,
      h("div", { class: "dim", "data-testid": "job-subject" }, `${job.job.task_id} × ${job.job.trainer_id}${job.job.variant === "default" ? "" : ` [${job.job.variant}]`} · seed ${job.job.seed} · attempt ${job.job.attempt}`),
      finished === null
        ? null
        : h(
            "div",
            { class: "summary" },
            `${finished.status}: score_val ${score(finished.score_val)} · score_test ${score(finished.score_test)} · ${finished.time_seconds.toFixed(2)}s · ${int(finished.tokens.total_tokens)} tokens · ${usd(finished.cost_usd)}`,
          ),
      job.job.reason === null ? null : h("pre", { class: "reason" }, job.job.reason),
      h(
        "div",
        { class: "two" },
        section("State machine", h("div", { class: "diagram" }, machineDiagram(graph, latest, job.job.state)), h("div", { "data-testid": "job-path" }, pathText(job.transitions))),
        section(
          "Evaluations",
          job.evaluations.length === 0
            ? h("p", { class: "dim" }, "No evaluation recorded.")
            : h(
                "div",
                { "data-testid": "evaluations" },
                job.evaluations.map((e) =>
                  h("div", { class: "evaluation" }, h("div", null, h("b", null, `${e.phase}`), ` on ${e.split} (attempt ${e.attempt}): score ${score(e.score)}`, e.example_scores.length > 0 ? h("span", { class: "dim" }, ` · per example: ${e.example_scores.map(score).join(", ")}`) : null), h("pre", null, e.feedback || "(no feedback)")),
                ),
              ),
          h("h3", null, "Files"),
          h("ul", { class: "files", "data-testid": "artifacts" }, job.artifacts.map((a) => h("li", null, h("a", { href: fileUrl(relDir === "" ? a : `${relDir}/${a}`), target: "_blank", rel: "noopener" }, a)))),
        ),
      ),
      section(`Candidates (${job.candidates.rows.length}, attempt ${job.candidates.attempt})`, candidateRows(job.candidates)),
      section(`Iteration history (${job.iterations.length})`, iterationRows(job.iterations, finished?.initial_values ?? null, finished?.attempt ?? null)),
      section(`LLM calls (${job.calls.length})`, callRows(job.calls)),
      section(
        `Event timeline (${job.timeline.length})`,
        h(
          "table",
          { class: "grid timeline", "data-testid": "timeline" },
          h("thead", null, h("tr", null, ["seq", "time (UTC)", "event", ""].map((t) => h("th", null, t)))),
          h("tbody", null, job.timeline.map((e) => h("tr", null, h("td", { class: "num" }, e.seq), h("td", { class: "mono small" }, when(e.ts)), h("td", null, e.type), h("td", null, e.text === null ? "" : h("pre", { class: "inline" }, e.text))))),
        ),
      ),
    );
    for (const d of root.querySelectorAll("details")) if (open.has(d.getAttribute("data-step") ?? d.querySelector("summary")?.textContent ?? "")) d.setAttribute("open", "");
  };
  // Kept across renders: what the last Cancel job said.
  const message = h("div", { class: "message", "data-testid": "job-message" });
  const cancelJob = async () => {
    message.textContent = "Cancel job…";
    try {
      await post("/api/job/cancel", {}, { run: relDir, job: jobId });
      message.textContent = "Cancel job: asked the run to cancel this job alone; it records `cancelled` (re-run on resume) and the other jobs go on";
    } catch (error) {
      message.textContent = `Cancel job failed: ${(error as Error).message}`;
    }
  };
  const load = async () => {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    try {
      const [job, graph] = await Promise.all([get<JobPayload>("/api/job", { run: relDir, job: jobId }), machine!]);
      render(job, graph);
    } catch (error) {
      fill(root, h("p", { class: "error" }, (error as Error).message));
    } finally {
      loading = false;
      if (again) {
        again = false;
        void load();
      }
    }
  };
  void load();
  const stop = follow(relDir, {
    run: (update: RunUpdate) => {
      const mine = update.jobs.find((j) => j.job_id === jobId);
      if (mine === undefined || mine.last_seq === lastSeq) return;
      const first = lastSeq === -1;
      lastSeq = mine.last_seq;
      if (!first) void load();
    },
  });
  return { dispose: stop };
}
