/**
 * Runs a trainable JavaScript function (a `code` parameter) in a fresh V8 context with a time
 * limit, so a bad proposal from an optimizer cannot hang or corrupt the engine.
 */
import vm from "node:vm";

export class CodeExecutionError extends Error {
  override readonly name = "CodeExecutionError";
}

export function runJsFunction(source: string, args: readonly unknown[], timeoutMs = 1000): unknown {
  const sandbox: Record<string, unknown> = { args: [...args] };
  try {
    return vm.runInNewContext(`(${source})(...args)`, sandbox, { timeout: timeoutMs, filename: "trainable-code.js" });
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new CodeExecutionError(message);
  }
}
