import { describe, expect, it } from "vitest";
import { formatDuration, reasonLine, REASON_MAX_CHARS, roundForPeople, useColor } from "../../../src/cli/console-format.js";

describe("scores rounded for people", () => {
  it("keeps four significant digits, written as the files write floats", () => {
    expect(roundForPeople(-0.052999999999999936)).toBe("-0.053");
    expect(roundForPeople(-0.06499999999999995)).toBe("-0.065");
    expect(roundForPeople(-2.4583333333333335)).toBe("-2.458");
    expect(roundForPeople(0.1 + 0.2)).toBe("0.3");
    expect(roundForPeople(2 / 3)).toBe("0.6667");
    expect(roundForPeople(-3)).toBe("-3.0");
    expect(roundForPeople(1)).toBe("1.0");
    expect(roundForPeople(0)).toBe("0.0");
    expect(roundForPeople(1.23456e-7)).toBe("1.235e-07");
  });

  it("never drops digits left of the point", () => {
    expect(roundForPeople(12345.678)).toBe("12346.0");
    expect(roundForPeople(-9999.96)).toBe("-10000.0");
    expect(roundForPeople(1234.5678)).toBe("1235.0");
    expect(roundForPeople(123.45678)).toBe("123.5");
  });

  it("says none for no score and keeps infinities and NaN readable", () => {
    expect(roundForPeople(null)).toBe("none");
    expect(roundForPeople(-Infinity)).toBe("-Infinity");
    expect(roundForPeople(Number.NaN)).toBe("NaN");
  });

  it("takes another number of digits", () => {
    expect(roundForPeople(Math.PI, 2)).toBe("3.1");
    expect(roundForPeople(Math.PI, 6)).toBe("3.14159");
  });
});

describe("a reason on one line", () => {
  it("is the feedback's first non-empty line, trimmed", () => {
    expect(reasonLine("training_error: (Error) flaky agent failed on call 2")).toBe("training_error: (Error) flaky agent failed on call 2");
    expect(reasonLine("\n  \n  task_error: boom  \n")).toBe("task_error: boom");
  });

  it("marks that more lines follow", () => {
    expect(reasonLine("internal_error: x\n    at f (a.js:1:1)\n    at g (b.js:2:2)")).toBe("internal_error: x …");
    expect(reasonLine("a\r\nb")).toBe("a …");
  });

  it("turns control characters (a task's escape sequences, tabs) into spaces", () => {
    expect(reasonLine("bad\tvalue \x1b[31mred\x1b[0m")).toBe("bad value [31mred [0m");
    expect(reasonLine("bad\tvalue")).not.toMatch(/[\x00-\x1f]/);
  });

  it("is cut at a bounded length", () => {
    const long = reasonLine(`failed: ${"x".repeat(1000)}`);
    expect(long).toHaveLength(REASON_MAX_CHARS);
    expect(long.endsWith("…")).toBe(true);
    expect(reasonLine("abcdef", 4)).toBe("abc…");
  });

  it("says so when there is none", () => {
    expect(reasonLine("")).toBe("(no reason recorded)");
    expect(reasonLine(" \n ")).toBe("(no reason recorded)");
  });
});

describe("durations", () => {
  it("are short", () => {
    expect(formatDuration(0)).toBe("0s");
    expect(formatDuration(0.4)).toBe("0s");
    expect(formatDuration(42.6)).toBe("43s");
    expect(formatDuration(185)).toBe("3m05s");
    expect(formatDuration(2 * 3600 + 7 * 60 + 30)).toBe("2h07m");
  });
});

describe("colour", () => {
  it("only on a terminal, and never when NO_COLOR is set (to anything but empty)", () => {
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: false }, {})).toBe(false);
    expect(useColor({}, {})).toBe(false);
    expect(useColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(useColor({ isTTY: true }, { NO_COLOR: "0" })).toBe(false);
    expect(useColor({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
    expect(useColor({ isTTY: true }, { TERM: "dumb" })).toBe(false);
  });
});
