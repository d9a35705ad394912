import type { CodeRunner } from "../../../src/opt/trace/model.js";
import type { JsSandbox } from "../../sandbox/js-sandbox.js";

/** A trainable op's source runs in the JavaScript sandbox's workers, never in the engine. */
export function sandboxRunner(js: JsSandbox): CodeRunner {
  return (source, args, context) => js.run(source, args, context.signal ? { signal: context.signal } : {});
}
