import type { ParsedArgs, VerbSpec } from "./args.js";
import { TRAINER_CATALOG } from "../opt/trainer-catalog.js";

export const spec: VerbSpec = {
  name: "list-trainers",
  summary: "Print '<id><TAB>available' per trainer, sorted by id; with --all also '<id><TAB>unavailable<TAB><reason>'.",
  flags: { all: { type: "boolean", description: "Also list the trainers that cannot run, with the reason." } },
};

export async function execute(args: ParsedArgs): Promise<number> {
  const all = args.flags.all === true;
  const rows = [...TRAINER_CATALOG].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).filter((t) => all || t.available);
  const lines = rows.map((t) => (t.available ? `${t.id}\tavailable` : `${t.id}\tunavailable\t${t.reason ?? ""}`));
  if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
  if (!all && lines.length < TRAINER_CATALOG.length) {
    process.stderr.write(`(${TRAINER_CATALOG.length - lines.length} unavailable trainers not shown; use --all)\n`);
  }
  return 0;
}
