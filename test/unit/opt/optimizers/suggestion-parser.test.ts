/** The reply parsers (algorithms reference §2.2 `extract_llm_suggestion`, §2.3 the V2 XML parser, §7 quirks 1–2). */
import { describe, expect, it } from "vitest";
import { parseJsonReply, parseXmlReply } from "../../../../src/opt/optimizers/suggestion-parser.js";

const v = (name: string, value: string) => `<variable>\n<name>${name}</name>\n<value>\n${value}\n</value>\n</variable>`;

describe("parseXmlReply", () => {
  it("reads the reasoning, then each variable's name and value (whitespace stripped)", () => {
    const parsed = parseXmlReply(`<reasoning>\n  Raise a, lower b.  \n</reasoning>\n${v("a", "2.5")}\n${v(" b ", "  0.5  ")}`);
    expect(parsed).toEqual({ reasoning: "Raise a, lower b.", suggestion: { a: "2.5", b: "0.5" }, terminated: false });
  });

  it("keeps multi-line values (code) intact apart from the outer whitespace", () => {
    const code = "def f(x):\n    return x + 1";
    expect(parseXmlReply(`<reasoning>r</reasoning>\n${v("f", code)}`).suggestion).toEqual({ f: code });
  });

  it("reads variables anywhere when there is no reasoning tag", () => {
    expect(parseXmlReply(`Sure!\n${v("a", "2")}`)).toMatchObject({ reasoning: "", suggestion: { a: "2" }, terminated: false });
  });

  it("ignores variables written before a closed reasoning block", () => {
    const parsed = parseXmlReply(`${v("a", "1")}\n<reasoning>\nthink\n</reasoning>\n${v("b", "2")}`);
    expect(parsed.suggestion).toEqual({ b: "2" });
  });

  it("only variables before the reasoning: nothing, with a problem note", () => {
    const parsed = parseXmlReply(`${v("a", "1")}\n<reasoning>\nthink\n</reasoning>`);
    expect(parsed.suggestion).toEqual({});
    expect(parsed.problem).toMatch(/no <variable> block/);
  });

  it("an unclosed reasoning block yields nothing and a problem note", () => {
    const parsed = parseXmlReply(`<reasoning>\nthinking...\n${v("a", "2")}`);
    expect(parsed.suggestion).toEqual({});
    expect(parsed.terminated).toBe(false);
    expect(parsed.problem).toBe("unclosed <reasoning> block");
  });

  it("takes nested variable tags as part of the outer block's value", () => {
    const text = `<reasoning>r</reasoning>\n<variable>\n<name>t</name>\n<value>\nUse <variable>x</variable> here\n</value>\n</variable>\n${v("u", "ok")}`;
    expect(parseXmlReply(text).suggestion).toEqual({ t: "Use <variable>x</variable> here", u: "ok" });
  });

  it("uses the first <name> and <value> of a block", () => {
    const text = `<reasoning>r</reasoning><variable><name>a</name><name>b</name><value>1</value><value>2</value></variable>`;
    expect(parseXmlReply(text).suggestion).toEqual({ a: "1" });
  });

  it("skips blocks with an empty name or without a value", () => {
    const text = `<reasoning>r</reasoning>\n${v("  ", "1")}\n<variable><name>b</name></variable>\n${v("c", "3")}`;
    expect(parseXmlReply(text).suggestion).toEqual({ c: "3" });
  });

  it("drops an empty value for a code variable, keeps it for others", () => {
    const text = `<reasoning>r</reasoning>\n${v("f", "   ")}\n${v("t", "")}`;
    expect(parseXmlReply(text, new Set(["f"])).suggestion).toEqual({ t: "" });
  });

  it("TERMINATE alone: terminated, nothing suggested, no problem", () => {
    expect(parseXmlReply("TERMINATE")).toEqual({ reasoning: "", suggestion: {}, terminated: true });
    expect(parseXmlReply("<reasoning>\nAll outputs are correct.\n</reasoning>\nTERMINATE")).toEqual({ reasoning: "All outputs are correct.", suggestion: {}, terminated: true });
  });

  it("TERMINATE anywhere discards the whole reply, valid variable blocks included; lowercase does not", () => {
    const inReasoning = parseXmlReply(`<reasoning>\nIf a were 3 I would say TERMINATE, but it is not.\n</reasoning>\n${v("a", "3")}`);
    expect(inReasoning).toEqual({ reasoning: "If a were 3 I would say TERMINATE, but it is not.", suggestion: {}, terminated: true });
    expect(parseXmlReply(`<reasoning>r</reasoning>\n${v("a", "3")}\nTERMINATE`)).toEqual({ reasoning: "r", suggestion: {}, terminated: true });
    expect(parseXmlReply(`<reasoning>I could terminate here.</reasoning>\n${v("a", "3")}`)).toMatchObject({ suggestion: { a: "3" }, terminated: false });
  });

  it("a reply without any variable block has a problem", () => {
    expect(parseXmlReply("I have no idea.")).toEqual({ reasoning: "", suggestion: {}, terminated: false, problem: "no <variable> block with a <name> and a <value>" });
    expect(parseXmlReply("")).toMatchObject({ suggestion: {}, terminated: false });
  });
});

describe("parseJsonReply", () => {
  it("reads bare JSON", () => {
    const parsed = parseJsonReply('{"reasoning": "r", "answer": "", "suggestion": {"a": 2, "b": "x"}}');
    expect(parsed).toEqual({ reasoning: "r", suggestion: { a: 2, b: "x" }, terminated: false });
  });

  it("reads the first fenced block (```json ... ```)", () => {
    const text = 'Here you go:\n```json\n{"reasoning": "r", "suggestion": {"a": 2}}\n```\nand later\n```\n{"suggestion": {"a": 9}}\n```';
    expect(parseJsonReply(text).suggestion).toEqual({ a: 2 });
    expect(parseJsonReply('```\n{"suggestion": {"a": 3}}\n```').suggestion).toEqual({ a: 3 });
  });

  it("reads JSON embedded in prose (the greedy {...} span)", () => {
    const text = 'My answer is {"reasoning": "nested {braces}", "suggestion": {"a": {"k": 1}}} as requested.';
    expect(parseJsonReply(text)).toMatchObject({ reasoning: "nested {braces}", suggestion: { a: { k: 1 } } });
  });

  it("uses the whole object as the suggestion when there is no suggestion key (minus reasoning/answer)", () => {
    expect(parseJsonReply('{"reasoning": "r", "answer": "42", "a": 2, "b": 3}')).toEqual({ reasoning: "r", suggestion: { a: 2, b: 3 }, terminated: false });
  });

  it("falls back to the regex reading of a broken reply's suggestion entries", () => {
    const text = '{"reasoning": "unterminated, "suggestion": {"a": "2", "b": "line\\nbreak \\"q\\""}';
    const parsed = parseJsonReply(text);
    expect(parsed.suggestion).toEqual({ a: "2", b: 'line\nbreak "q"' });
    expect(parsed.problem).toBeUndefined();
  });

  it("TERMINATE alone: terminated", () => {
    expect(parseJsonReply("TERMINATE")).toEqual({ reasoning: "", suggestion: {}, terminated: true });
    expect(parseJsonReply('{"reasoning": "done, TERMINATE", "suggestion": {}}')).toMatchObject({ suggestion: {}, terminated: true });
  });

  it("TERMINATE anywhere discards the whole reply, values included; lowercase does not", () => {
    expect(parseJsonReply('{"reasoning": "Not TERMINATE yet.", "suggestion": {"a": 5}}')).toEqual({ reasoning: "Not TERMINATE yet.", suggestion: {}, terminated: true });
    expect(parseJsonReply('{"reasoning": "r", "suggestion": {"a": 5}}\nTERMINATE')).toMatchObject({ suggestion: {}, terminated: true });
    expect(parseJsonReply('{"reasoning": "no need to terminate", "suggestion": {"a": 5}}')).toMatchObject({ suggestion: { a: 5 }, terminated: false });
  });

  it("trims whitespace around keys, top-level and in the suggestion", () => {
    expect(parseJsonReply('{" reasoning ": "r", " suggestion ": {" a ": 1, "b\\n": 2}}')).toMatchObject({ reasoning: "r", suggestion: { a: 1, b: 2 } });
  });

  it("drops blank code values", () => {
    expect(parseJsonReply('{"suggestion": {"f": "  ", "t": ""}}', new Set(["f"])).suggestion).toEqual({ t: "" });
  });

  it("a reply that is not JSON has a problem, never throws", () => {
    for (const text of ["no json here", "{oops", "[1, 2]", "", '"just a string"', "null"]) {
      const parsed = parseJsonReply(text);
      expect(parsed.suggestion, text).toEqual({});
      expect(parsed.terminated).toBe(false);
      expect(parsed.problem).toEqual(expect.any(String));
    }
  });

  it("a suggestion that is not an object has a problem", () => {
    expect(parseJsonReply('{"reasoning": "r", "suggestion": "a=2"}')).toMatchObject({ suggestion: {}, terminated: false, problem: "reply has no suggestion" });
  });
});
