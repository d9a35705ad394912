/**
 * One run: status and live progress, Cancel / Resume / Retry failed, and tabs for the results
 * table, the leaderboard per task, the charts, the comparison of two arms, the token audit and the
 * run's files.
 */
import type { AuditGroup, LaunchPayload, RunPayload, TokensPayload } from "../../api-types.js";
import { fileUrl, follow, get, post, type RunUpdate } from "../api.js";
import { fill, h } from "../dom.js";
import { int, score, usd, when } from "../format.js";
import { STUB_CAVEAT } from "../../../domain/stub-caveat.js";
import type { View } from "../view.js";
import { RunCharts } from "./charts.js";
import { ComparePanel } from "./compare-panel.js";
import { progressBar, statusBadge } from "./progress.js";
import { ResultsTable } from "./results-table.js";

export const jobHref = (relDir: string, jobId: string) => `#/run/${encodeURIComponent(relDir)}/job/${encodeURIComponent(jobId)}`;
const TABS = ["results", "leaderboard", "charts", "compare", "tokens", "files"] as const;
type Tab = (typeof TABS)[number];

const filePath = (relDir: string, file: string) => (relDir === "" ? file : `${relDir}/${file}`);

function leaderboard(payload: RunPayload): HTMLElement {
  if (payload.leaderboard.length === 0) return h("p", { class: "dim" }, payload.run.status === "running" ? "No job has ended ok yet." : "No job ended ok: nothing to rank.");
  const tasks = [...new Set(payload.leaderboard.map((r) => r.task_id))];
  return h(
    "div",
    { "data-testid": "leaderboard" },
    tasks.map((task) =>
      h(
        "div",
        null,
        h("h3", null, task),
        h(
          "table",
          { class: "grid" },
          h("thead", null, h("tr", null, ["#", "trainer", "variant", "optimizer", "mean ± std (n)", "best score_val", "score_test", "time", "best job"].map((t) => h("th", null, t)))),
          h(
            "tbody",
            null,
            payload.leaderboard
              .filter((r) => r.task_id === task)
              .map((r) =>
                h(
                  "tr",
                  null,
                  h("td", null, r.rank),
                  h("td", null, r.trainer_id),
                  h("td", null, r.variant),
                  h("td", null, r.resolved_optimizer ?? "—"),
                  h("td", { class: "num" }, `${score(r.score_mean)}${r.score_std === null ? "" : ` ± ${score(r.score_std)}`} (${r.n})`),
                  h("td", { class: "num" }, score(r.score_val)),
                  h("td", { class: "num" }, score(r.score_test)),
                  h("td", { class: "num" }, `${r.time_seconds.toFixed(2)}s`),
                  h("td", { class: "mono" }, h("a", { href: jobHref(payload.run.rel_dir, r.job_id) }, r.job_id)),
                ),
              ),
          ),
        ),
      ),
    ),
  );
}

function tokenTables(tokens: TokensPayload): HTMLElement {
  const table = (by: keyof TokensPayload["audits"]) => {
    const audit = tokens.audits[by];
    const line = (g: AuditGroup, total = false) =>
      h(
        "tr",
        { class: total ? "total" : "" },
        h("td", null, g.name),
        h("td", { class: "num" }, int(g.calls.completed)),
        h("td", { class: "num" }, int(g.calls.replayed)),
        h("td", { class: "num" }, int(g.calls.failed + g.calls.aborted + g.calls.lost)),
        h("td", { class: "num" }, int(g.billed.prompt_tokens)),
        h("td", { class: "num" }, int(g.billed.completion_tokens)),
        h("td", { class: "num" }, int(g.billed.total_tokens)),
        h("td", { class: "num" }, usd(g.cost_usd)),
        h("td", null, g.estimated ? "estimated" : ""),
      );
    return h(
      "div",
      null,
      h("h3", null, `By ${by}`),
      h(
        "table",
        { class: "grid", "data-audit": by },
        h("thead", null, h("tr", null, [by, "calls", "replayed", "failed/aborted/lost", "prompt", "completion", "total tokens", "cost", ""].map((t) => h("th", null, t)))),
        h("tbody", null, audit.groups.map((g) => line(g)), line(audit.totals, true)),
      ),
    );
  };
  return h("div", { "data-testid": "token-audit" }, h("p", { class: "dim" }, "Billed calls and tokens from the event log (replayed replies are not billed again), as trace-bench tokens reports them."), (["trainer", "model", "role", "task"] as const).map(table));
}

export function runView(root: HTMLElement, relDir: string, tab: Tab = "results"): View {
  let payload: RunPayload | null = null;
  let current: Tab = TABS.includes(tab) ? tab : "results";
  let refetching = false;
  let refetchAgain = false;
  const header = h("div", { class: "run-header" });
  const actions = h("div", { class: "actions" });
  const message = h("div", { class: "message", "data-testid": "run-message" });
  const panel = h("div", { class: "panel" });
  const table = new ResultsTable((jobId) => jobHref(relDir, jobId));
  const charts = new RunCharts();
  const compare = new ComparePanel(relDir);
  const tabBar = h(
    "nav",
    { class: "tabs" },
    TABS.map((t) => h("a", { href: `#/run/${encodeURIComponent(relDir)}?tab=${t}`, "data-tab": t, class: t === current ? "active" : "" }, t)),
  );
  fill(root, header, actions, message, tabBar, panel);

  const act = async (what: string, run: () => Promise<unknown>) => {
    message.textContent = `${what}…`;
    try {
      const result = (await run()) as Partial<LaunchPayload>;
      message.textContent = result.launch_id !== undefined ? `${what}: process ${result.pid} started (console: ${result.log})` : `${what}: SIGINT sent to process ${result.pid}; the run cancels its jobs and stops`;
    } catch (error) {
      message.textContent = `${what} failed: ${(error as Error).message}`;
    }
  };

  const renderHeader = () => {
    const run = payload!.run;
    fill(
      header,
      h("h1", null, h("span", { class: "mono" }, run.run_id), " ", statusBadge(run)),
      h("div", { class: "dim" }, h("span", { "data-testid": "config-name" }, run.config_name ?? "unnamed config"), ` · ${run.mode} · config ${run.config_hash.slice(0, 12)} · started ${when(run.started_at)} UTC · ${run.invocations} invocation${run.invocations === 1 ? "" : "s"} · ${int(run.tokens.total_tokens)} tokens · ${usd(run.cost_usd)}`),
      // A stub run's numbers are the stub's: said where the numbers are read, as the console says it.
      run.mode === "stub" ? h("p", { class: "caveat", "data-testid": "stub-caveat" }, STUB_CAVEAT) : null,
      progressBar(run),
    );
    const failed = (run.jobs.failed ?? 0) + (run.jobs.timeout ?? 0);
    fill(
      actions,
      run.cancellable ? h("button", { class: "danger", "data-testid": "cancel", onclick: () => act("Cancel", () => post("/api/run/cancel", {}, { run: relDir })) }, "Cancel") : null,
      run.status !== "running" && run.progress.done < run.progress.total
        ? h("button", { "data-testid": "resume", onclick: () => act("Resume", () => post("/api/run/resume", { mode: "auto" }, { run: relDir })) }, "Resume")
        : null,
      run.status !== "running" && failed > 0
        ? h("button", { "data-testid": "retry-failed", onclick: () => act("Retry failed", () => post("/api/run/resume", { mode: "failed" }, { run: relDir })) }, "Retry failed")
        : null,
      payload!.resume_command !== null && run.status !== "finished" ? h("code", { class: "small dim", "data-testid": "resume-command" }, payload!.resume_command) : null,
      payload!.retry_command !== null && failed > 0 ? h("code", { class: "small dim", "data-testid": "retry-command" }, payload!.retry_command) : null,
    );
  };

  const renderPanel = async () => {
    for (const a of tabBar.querySelectorAll("a")) a.classList.toggle("active", a.dataset.tab === current);
    if (current === "results") {
      table.update(payload!.columns, payload!.rows);
      fill(panel, table.element);
    } else if (current === "leaderboard") fill(panel, leaderboard(payload!));
    else if (current === "charts") {
      fill(panel, charts.element);
      charts.update(payload!);
    } else if (current === "compare") {
      fill(panel, compare.element);
      compare.update(payload!);
    } else if (current === "tokens") fill(panel, tokenTables(await get<TokensPayload>("/api/tokens", { run: relDir })));
    else
      fill(
        panel,
        h("ul", { class: "files" }, payload!.files.map((f) => h("li", null, h("a", { href: fileUrl(filePath(relDir, f)), target: "_blank", rel: "noopener" }, f)))),
      );
  };

  const load = async () => {
    if (refetching) {
      refetchAgain = true;
      return;
    }
    refetching = true;
    try {
      payload = await get<RunPayload>("/api/run", { run: relDir });
      renderHeader();
      if (current !== "tokens" || panel.childElementCount === 0) await renderPanel();
    } catch (error) {
      fill(panel, h("p", { class: "error" }, (error as Error).message));
    } finally {
      refetching = false;
      if (refetchAgain) {
        refetchAgain = false;
        void load();
      }
    }
  };

  const onUpdate = (update: RunUpdate) => {
    if (payload === null || update.run === null || update.last_seq === payload.last_seq && update.run.status === payload.run.status) return;
    // Progress and states at once; the table and charts from a fresh read of the run.
    payload = { ...payload, run: update.run, jobs: update.jobs, last_seq: update.last_seq };
    renderHeader();
    void load();
  };

  void load();
  const stop = follow(relDir, { run: onUpdate });
  return {
    dispose: () => {
      stop();
      charts.dispose();
    },
  };
}
