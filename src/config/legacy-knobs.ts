/**
 * The legacy LLM4AD runner's trainer knobs (spec §2.4). Written at the config top level or on a
 * trainer entry (with `-` or `_`), they are copied into every params variant.
 *
 * `eval_kwargs` and `optimizer_kwargs` are in the original's set too, which copied them into the
 * params where they were silently dropped again (a PY quirk); here they keep their ordinary meaning.
 */
export const LEGACY_KNOBS = [
  "threads",
  "num_threads",
  "ps_steps",
  "ps_batches",
  "ps_candidates",
  "ps_proposals",
  "ps_mem_update",
  "gepa_iters",
  "gepa_train_bs",
  "gepa_merge_every",
  "gepa_pareto_subset",
  "verbose",
] as const;

export type LegacyKnob = (typeof LEGACY_KNOBS)[number];

const KNOB_SET: ReadonlySet<string> = new Set(LEGACY_KNOBS);

/** The knob a key spells, in either spelling (`ps-steps` → `ps_steps`), or undefined. */
export function legacyKnobName(key: string): LegacyKnob | undefined {
  const name = key.replace(/-/g, "_");
  return KNOB_SET.has(name) ? (name as LegacyKnob) : undefined;
}

/** Both spellings of every knob that has a dash form, for schemas and unknown-key checks. */
export const LEGACY_KNOB_SPELLINGS: readonly string[] = LEGACY_KNOBS.flatMap((k) =>
  k.includes("_") ? [k, k.replace(/_/g, "-")] : [k],
);
