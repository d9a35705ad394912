/**
 * Hostile configs end in one clear `ConfigError` line (alias bombs, deep nesting) or load in
 * linear time with a short report (100,000 unknown keys, 100,000 bad entries), whichever reader
 * (simple or yaml package) reads them. Time limits here only guard against hangs.
 */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/config-error.js";
import { parseConfigText } from "../../../src/config/config-file.js";
import { MAX_NESTING } from "../../../src/config/nesting-limit.js";
import { resolveRunConfig, type LoadedConfig } from "../../../src/config/run-config.js";

const TASK = "tasks: [internal:numeric_param]\n";
const load = (text: string, path = "h.yaml"): LoadedConfig => resolveRunConfig(parseConfigText(path, text));

/** The problems of the ConfigError that loading `text` throws. */
function problems(text: string, path = "h.yaml"): readonly string[] {
  try {
    load(text, path);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as ConfigError).problems;
    for (const line of lines) expect(line).not.toContain("\n");
    return lines;
  }
  throw new Error("expected a ConfigError, but the config loaded");
}

/** The classic billion laughs: 9 levels of 9 aliases each, 9^9 strings once expanded. */
const BILLION_LAUGHS = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...Array.from({ length: 8 }, (_, i) => {
    const [name, prev] = ["bcdefghi"[i]!, "abcdefgh"[i]!];
    return `${name}: &${name} [${Array(9).fill(`*${prev}`).join(",")}]`;
  }),
  TASK,
].join("\n");

const nestedFlow = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

describe("alias bombs", () => {
  it("the billion laughs gives one problem line that names the file, the line and aliases", () => {
    const [line, ...rest] = problems(BILLION_LAUGHS, "bomb.yaml");
    expect(rest).toEqual([]);
    expect(line).toMatch(/^bomb\.yaml:\d+: alias \*[a-i] /);
    expect(line).toContain("alias bomb");
    expect(line).toContain("fewer aliases");
  });

  it("one long list aliased many times is a bomb too, though each alias is cheap", () => {
    const list = `[${Array.from({ length: 10_000 }, (_, i) => i).join(",")}]`;
    const text = `${TASK}big: &big ${list}\neval_kwargs:\n  copies: [${Array(500).fill("*big").join(", ")}]\n`;
    const [line, ...rest] = problems(text);
    expect(rest).toEqual([]);
    expect(line).toMatch(/^h\.yaml:4: alias \*big .*alias bomb/);
  });

  it("an alias inside the value it names gives one line instead of endless recursion", () => {
    const [line, ...rest] = problems(`${TASK}eval_kwargs: &loop\n  again: *loop\n`);
    expect(rest).toEqual([]);
    expect(line).toMatch(/^h\.yaml:3: alias \*loop sits inside the value it names/);
  });

  it("an alias without an anchor is a config error, not a crash", () => {
    expect(problems(`${TASK}eval_kwargs: *nowhere\n`)).toEqual([expect.stringMatching(/^h\.yaml:2: alias \*nowhere has no anchor &nowhere before it/)]);
  });

  it("a merge key whose value is not a mapping is a config error, not a crash", () => {
    expect(problems(`${TASK}base: &b 1\neval_kwargs: {<<: *b}\n`)).toEqual([expect.stringContaining("Merge sources must be maps")]);
  });

  it("ordinary aliases still work, and one big anchor may be reused", { timeout: 60_000 }, () => {
    const list = `[${Array.from({ length: 110_000 }, (_, i) => i).join(",")}]`;
    const text = `${TASK}data: &d ${list}\nkw: &k {ps_steps: 2}\ntrainers:\n${Array(300).fill("  - {id: PrioritySearch, params: *k}").join("\n")}\neval_kwargs: {x: *d}\n`;
    const { config } = load(text);
    expect(config.trainers).toHaveLength(300);
    expect(config.trainers[299]!.params_variants).toEqual([{ ps_steps: 2 }]);
    expect((config.eval_kwargs.x as number[]).length).toBe(110_000);
  });
});

describe("deep nesting", () => {
  it(`${MAX_NESTING} levels load; one more gives one line naming the file and line`, () => {
    // The top-level mapping is level 1, eval_kwargs level 2. The anchor sends the text to the yaml package reader.
    for (const head of [TASK, `${TASK}anchor: &a 1\n`]) {
      expect(() => load(`${head}eval_kwargs:\n  x: ${nestedFlow(MAX_NESTING - 2)}\n`)).not.toThrow();
      const [line, ...rest] = problems(`${head}eval_kwargs:\n  x: ${nestedFlow(MAX_NESTING - 1)}\n`);
      expect(rest).toEqual([]);
      const at = head.split("\n").length + 1; // the line of x
      expect(line).toBe(`h.yaml:${at}: mappings and lists are nested more than ${MAX_NESTING} levels deep; a config needs only a few levels, so flatten this value`);
    }
  });

  it("100,000 levels of brackets give the same one line (no stack overflow)", { timeout: 30_000 }, () => {
    expect(problems(`${TASK}eval_kwargs:\n  x: ${nestedFlow(100_000)}\n`)).toEqual([expect.stringMatching(/^h\.yaml:3: mappings and lists are nested more than/)]);
  });

  it("deep block mappings too", () => {
    const text = TASK + Array.from({ length: 100 }, (_, i) => `${" ".repeat(i)}k:`).join("\n") + " 1\n";
    expect(problems(text)).toEqual([expect.stringMatching(/^h\.yaml:\d+: mappings and lists are nested more than/)]);
  });

  it("nesting built from aliases counts too", () => {
    const chain = Array.from({ length: 80 }, (_, i) => (i === 0 ? "l0: &l0 [x]" : `l${i}: &l${i} [*l${i - 1}]`)).join("\n");
    expect(problems(`${TASK}${chain}\n`)).toEqual([expect.stringMatching(/^h\.yaml:\d+: through alias \*l\d+, mappings and lists are nested more than/)]);
  });

  it("deep JSON, including JSON that only the JSON fallback reads", { timeout: 30_000 }, () => {
    const json = `{"tasks": ["internal:numeric_param"], "eval_kwargs": {"x": ${nestedFlow(100_000)}}}`;
    expect(problems(json, "h.json")).toEqual([expect.stringMatching(/^h\.json:1: mappings and lists are nested more than/)]);
    // A tab before a key is not YAML, so this one is read by JSON.parse.
    const tabbed = `{\n\t"tasks": ["internal:numeric_param"],\n\t"eval_kwargs": {"x": ${nestedFlow(200)}}\n}\n`;
    expect(problems(tabbed, "t.json")).toEqual([expect.stringMatching(/^t\.json(:\d+)?: .*mappings and lists are nested more than/)]);
  });
});

describe("very many keys or entries", () => {
  it("100,000 unknown top-level keys load, with one short warning that counts them", { timeout: 60_000 }, () => {
    const text = TASK + Array.from({ length: 100_000 }, (_, i) => `unknown_key_${i}: ${i}`).join("\n") + "\n";
    const { warnings, config } = load(text, "many.yaml");
    expect(config.tasks).toHaveLength(1);
    expect(warnings).toEqual([
      "many.yaml:2: unknown keys 'unknown_key_0', 'unknown_key_1', 'unknown_key_2', 'unknown_key_3', 'unknown_key_4' and 99,995 more at the top level (ignored)",
    ]);
  });

  it("the same unknown key in 100,000 task entries: three warnings and one that counts the rest", { timeout: 60_000 }, () => {
    const text = "tasks:\n" + Array.from({ length: 100_000 }, () => "  - {id: 'a:b', flavour: x}").join("\n") + "\n";
    const { warnings } = load(text);
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toBe("h.yaml:2: unknown key 'flavour' in tasks[0] (ignored)");
    expect(warnings[3]).toBe("h.yaml:5: unknown keys also in tasks[3], tasks[4], tasks[5], tasks[6], tasks[7] and 99,992 more (ignored)");
  });

  it("100,000 bad seeds: three problems and one that counts the rest, each with the key path and what is expected", { timeout: 60_000 }, () => {
    const lines = problems(`${TASK}seeds: [${Array.from({ length: 100_000 }, (_, i) => `s${i}`).join(", ")}]\n`);
    expect(lines).toEqual([
      'h.yaml:2: seeds[0]: expected a whole number, found "s0"',
      'h.yaml:2: seeds[1]: expected a whole number, found "s1"',
      'h.yaml:2: seeds[2]: expected a whole number, found "s2"',
      'h.yaml:2: seeds[3], seeds[4], seeds[5], seeds[6], seeds[7] and 99,992 more: expected a whole number, found "s3", …',
    ]);
  });

  it("a few findings of a kind are all printed as before", () => {
    expect(problems(`${TASK}seeds: [a, b, c, d]\n`)).toHaveLength(4);
    expect(problems(`${TASK}seeds: [a, b, c, d, e]\n`)).toHaveLength(4);
  });

  it("100,000 duplicate-free keys parse in linear time through the yaml package too", { timeout: 60_000 }, () => {
    // The anchor sends this file to the yaml package reader, whose own duplicate check was quadratic.
    const text = `${TASK}anchored: &a 1\n` + Array.from({ length: 100_000 }, (_, i) => `unknown_key_${i}: ${i}`).join("\n") + "\n";
    expect(load(text).warnings).toHaveLength(1);
  });

  it("duplicate keys are still an error, from either reader", () => {
    expect(problems(`${TASK}seed: 1\nseed: 2\n`)).toEqual([expect.stringMatching(/^h\.yaml:3:1: invalid YAML: Map keys must be unique/)]);
    expect(problems(`${TASK}x: &a 1\nseed: 1\nseed: 2\n`)).toEqual([expect.stringMatching(/^h\.yaml:4:1: invalid YAML: Map keys must be unique/)]);
  });
});
