import type { ParsedArgs, VerbSpec } from "./args.js";
import { JSON_FLAG } from "./common-flags.js";
import { TRAINER_CATALOG } from "../opt/trainer-catalog.js";

export const spec: VerbSpec = {
  name: "list-trainers",
  summary: "Print '<id><TAB>available' per trainer, sorted by id; with --all also '<id><TAB>unavailable<TAB><reason>'.",
  flags: {
    all: { type: "boolean", description: "Also list the trainers that cannot run, with the reason." },
    json: { ...JSON_FLAG, description: 'Print one JSON document: {"trainers": [{"id", "available", "reason"}], "hidden_unavailable": n} (every trainer with --all).' },
  },
};

export async function execute(args: ParsedArgs): Promise<number> {
  const all = args.flags.all === true;
  const rows = [...TRAINER_CATALOG].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).filter((t) => all || t.available);
  const hidden = TRAINER_CATALOG.length - rows.length;
  if (args.flags.json === true) {
    const trainers = rows.map((t) => ({ id: t.id, available: t.available, reason: t.available ? null : (t.reason ?? "") }));
    process.stdout.write(`${JSON.stringify({ trainers, hidden_unavailable: hidden }, null, 2)}\n`);
    return 0;
  }
  const lines = rows.map((t) => (t.available ? `${t.id}\tavailable` : `${t.id}\tunavailable\t${t.reason ?? ""}`));
  if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
  if (!all && hidden > 0) process.stderr.write(`(${hidden} unavailable trainers not shown; use --all)\n`);
  return 0;
}
