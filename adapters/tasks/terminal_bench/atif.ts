/** Harbor's agent trajectories (ATIF `trajectory.json`), read as the original's atif.py reads them. */
type Step = Record<string, unknown>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
/** Python's `a or b`: the first truthy value. */
const firstTruthy = (...values: unknown[]): unknown => values.find((v) => Boolean(v) && !(Array.isArray(v) && v.length === 0) && !(isRecord(v) && Object.keys(v).length === 0)) ?? values[values.length - 1];

/** The steps: top-level `steps`, else `trajectory.steps`; entries that are not objects dropped. */
export function atifSteps(payload: unknown): Step[] {
  if (!isRecord(payload)) return [];
  const steps = Array.isArray(payload.steps) ? payload.steps : isRecord(payload.trajectory) && Array.isArray(payload.trajectory.steps) ? payload.trajectory.steps : [];
  return steps.filter(isRecord);
}

const roleOf = (step: Step) => firstTruthy(step.role, step.type, step.speaker);
const contentOf = (step: Step) => firstTruthy(step.content, step.message, step.text);

/** The trajectory in the original's stable shape `trace_bench.atif.v1` (its last `lastN` steps). */
export function atifToTraceLike(payload: unknown, lastN = 12): Record<string, unknown> {
  const all = atifSteps(payload);
  const steps = lastN > 0 ? all.slice(-lastN) : all;
  const events = steps.map((step, i) => {
    const calls = firstTruthy(step.tool_calls, step.toolCalls);
    return {
      i,
      role: roleOf(step) ?? null,
      content: contentOf(step) ?? null,
      tool_calls: Array.isArray(calls)
        ? calls.filter(isRecord).map((tc) => ({ name: firstTruthy(tc.name, tc.tool_name, tc.tool) ?? null, args: firstTruthy(tc.args, tc.arguments) ?? null, id: firstTruthy(tc.id, tc.call_id) ?? null }))
        : [],
      observation: firstTruthy(step.observation, step.observation_text) ?? null,
      timestamp: step.timestamp ?? null,
    };
  });
  const record = isRecord(payload) ? payload : {};
  return { format: "trace_bench.atif.v1", n_steps: all.length, events, final_metrics: firstTruthy(record.final_metrics, record.finalMetrics) ?? null };
}

/** A compact text for the optimizer: `ATIF: steps=<n>`, then the last steps' role, content and tool names. */
export function atifFeedbackSnippet(payload: unknown, maxChars = 4000, lastN = 6): string {
  const all = atifSteps(payload);
  const last = lastN > 0 ? all.slice(-lastN) : [];
  const lines = [`ATIF: steps=${all.length}`];
  last.forEach((step, k) => {
    const role = firstTruthy(step.role, step.type, "?");
    let content = String(firstTruthy(step.content, step.message, step.text, "")).replaceAll("\n", " ");
    if ([...content].length > 280) content = [...content].slice(0, 280).join("") + "…";
    lines.push(`[${all.length - last.length + k}] ${String(role)}: ${content}`);
    if (Array.isArray(step.tool_calls)) {
      for (const tc of step.tool_calls.slice(0, 3)) if (isRecord(tc)) lines.push(`    tool_call: ${String(firstTruthy(tc.name, tc.tool_name, tc.tool) ?? "None")}`);
    }
  });
  const out = lines.join("\n");
  return [...out].length > maxChars ? [...out].slice(0, maxChars - 1).join("") + "…" : out;
}
