import { describe, expect, it } from "vitest";
import { escapeControls } from "../../../src/codec/control-chars.js";

describe("escapeControls", () => {
  it("writes every control character but tab as \\xNN, so echoed text cannot drive the terminal or split the line", () => {
    expect(escapeControls("internal:\x1b[2J\x1b[31mred\x1b[0m")).toBe("internal:\\x1b[2J\\x1b[31mred\\x1b[0m");
    expect(escapeControls("a\rb\nc\x00d\x07e\x7ff\x9bg")).toBe("a\\x0db\\x0ac\\x00d\\x07e\\x7ff\\x9bg");
    expect(escapeControls("tab\tand ünïcode stay")).toBe("tab\tand ünïcode stay");
  });
});
