import { describe, expect, it } from "vitest";
import { parseVerbArgs, verbHelp, type VerbSpec } from "../../../src/cli/args.js";

const spec: VerbSpec = {
  name: "run",
  summary: "Run.",
  flags: {
    config: { type: "string", value: "FILE", description: "Config." },
    json: { type: "boolean", description: "JSON." },
    inspect: { type: "string", value: "WS-URL", bare: "ws://localhost:8080", description: "Inspector." },
  },
};

describe("a string flag with a bare value", () => {
  it("takes the bare value alone, before another flag, and its own value otherwise", () => {
    expect(parseVerbArgs(spec, ["--config", "c.yaml", "--inspect"]).flags.inspect).toBe("ws://localhost:8080");
    expect(parseVerbArgs(spec, ["--inspect", "--json"]).flags).toEqual({ config: undefined, json: true, inspect: "ws://localhost:8080" });
    expect(parseVerbArgs(spec, ["--inspect", "ws://127.0.0.1:9000", "--json"]).flags.inspect).toBe("ws://127.0.0.1:9000");
    expect(parseVerbArgs(spec, ["--inspect=wss://example.test/x"]).flags.inspect).toBe("wss://example.test/x");
    expect(parseVerbArgs(spec, ["--json"]).flags.inspect).toBeUndefined();
  });

  it("leaves other string flags requiring their value", () => {
    expect(() => parseVerbArgs(spec, ["--config"])).toThrow(/--config/);
  });

  it("shows its value as optional in the help", () => {
    const help = verbHelp(spec);
    expect(help).toContain("[--inspect [WS-URL]]");
    expect(help).toContain("[--config FILE]");
  });
});
