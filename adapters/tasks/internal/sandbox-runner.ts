import type { CodeRunner } from "../../../src/opt/trace/model.js";
import type { JsSandbox } from "../../sandbox/js-sandbox.js";

/** What the sandbox hands back: plain data (functions and symbols become null, undefined null). */
const plainData = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value) ?? "null"));

/**
 * A trainable op's source runs in the JavaScript sandbox's isolates, never in the engine, unless
 * it is the task author's own source (`taskSource`): that is as trusted as the task module that
 * ships it, so it runs in-process, compiled once, and returns what the sandbox would return. A
 * job that never changes the op (the initial, final and test evaluations of most jobs) then pays
 * nothing for an isolate.
 */
export function sandboxRunner(js: JsSandbox, taskSource: string): CodeRunner {
  let own: ((args: readonly unknown[]) => unknown) | undefined;
  return async (source, args, context) => {
    if (source !== taskSource) return js.run(source, args, context.signal ? { signal: context.signal } : {});
    own ??= new Function("args", `return (${taskSource})(...args);`) as (args: readonly unknown[]) => unknown;
    return plainData(own(args));
  };
}
