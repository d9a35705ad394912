/**
 * Hostile configs (alias bombs, deep nesting) end in one clear `ConfigError` line, not a crash.
 * Time limits here only guard against hangs.
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

  it("ordinary aliases still work, and one big anchor may be reused", () => {
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
