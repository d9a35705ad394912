/**
 * `trace-bench repair <run_dir>`: rebuilds a run's lost `events.db` from its mirror
 * `events.jsonl` (log-from-mirror.ts). Every other command refuses such a run directory, naming
 * this one; after it, `replay --verify` checks the log and `replay` rebuilds the reports.
 */
import { basename } from "node:path";
import type { ParsedArgs, VerbSpec } from "./args.js";
import { shellWord } from "../codec/shell-word.js";
import { cliCommand } from "../fs/cli-command.js";
import { rebuildLogFromMirror } from "../events/log-from-mirror.js";

export const spec: VerbSpec = {
  name: "repair",
  summary:
    "Rebuild a run directory's lost events.db from its mirror events.jsonl (only when events.db is missing; a damaged one must be moved away first). Then check it with 'replay --verify'.",
  flags: {},
  positional: { name: "run_dir", description: "A run directory (runs/<run_id>) whose events.db is missing.", required: true },
};

export async function execute(args: ParsedArgs): Promise<number> {
  const runDir = args.positional!;
  const rebuilt = rebuildLogFromMirror(runDir);
  const lines = [`Rebuilt ${runDir}/events.db from events.jsonl: ${rebuilt.events} events, ${rebuilt.jobs} jobs`];
  if (rebuilt.droppedTornLine) lines.push("The mirror's last line was cut short (written as the log was lost): that event is left out.");
  if (rebuilt.callsWithoutTexts > 0) {
    lines.push(
      `The prompt and reply texts of ${rebuilt.callsWithoutTexts} LLM call(s) were kept only in the lost database: 'trace-bench calls' shows them as (not stored), and a resumed job sends such calls again instead of answering them from its journal.`,
    );
  }
  lines.push(`Check it with: ${cliCommand(`replay --verify ${shellWord(runDir)}`)}`, `then rebuild ${basename(runDir)}'s reports with: ${cliCommand(`replay ${shellWord(runDir)}`)}`);
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
