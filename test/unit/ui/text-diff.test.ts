import { describe, expect, it } from "vitest";
import { lineDiff, valueText } from "../../../src/ui/app/text-diff.js";

const render = (before: string, after: string) => lineDiff(before, after).map((l) => `${l.op}${l.text}`);

describe("lineDiff (the job inspector's diffs between steps)", () => {
  it("keeps common lines and marks removed and added ones in order", () => {
    expect(render("def f(x):\n    return x\n", "def f(x):\n    y = x * 2\n    return y\n")).toEqual([" def f(x):", "-    return x", "+    y = x * 2", "+    return y", " "]);
  });

  it("of equal texts is all kept lines; of empty and a text all added", () => {
    expect(render("a\nb", "a\nb")).toEqual([" a", " b"]);
    expect(render("", "a\nb")).toEqual(["-", "+a", "+b"]);
  });

  it("finds the longest common run of lines, not the first match", () => {
    expect(render("x\na\nb\nc", "a\nb\nc\nx")).toEqual(["-x", " a", " b", " c", "+x"]);
  });

  it("compares non-text values as indented JSON", () => {
    expect(valueText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(valueText("text")).toBe("text");
    expect(valueText(3)).toBe("3");
  });
});
