import * as JSONSchema from "effect/JSONSchema";
import type { ParsedArgs, VerbSpec } from "./args.js";
import { RawConfigSchema } from "../config/config-schema.js";

export const spec: VerbSpec = {
  name: "schema",
  summary:
    "Print the JSON Schema of run config files. Save it (e.g. trace-bench schema > trace-bench.schema.json) and point your editor at it for validation and completion.",
  flags: {},
};

export async function execute(_args: ParsedArgs): Promise<number> {
  const schema = { ...JSONSchema.make(RawConfigSchema), $id: "https://trace-bench.local/config.schema.json" };
  process.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
  return 0;
}
