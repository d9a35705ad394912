/** Task id normalisation (spec §6.1): `example:x` → `trace_examples:x`, a bare id → `llm4ad:<id>`. */
export function normalizeTaskId(taskId: string): string {
  const id = taskId.trim();
  if (id.startsWith("example:")) return `trace_examples:${id.slice("example:".length)}`;
  if (!id.includes(":")) return `llm4ad:${id}`;
  return id;
}
