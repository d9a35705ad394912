/**
 * Folder names made from text a log holds (task ids, variant labels, model names): one path
 * segment every common file system takes, as close to the text as that allows, and short.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_NAME_BYTES, portableFolderName } from "../../../src/fs/portable-folder-name.js";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");
/** What Windows refuses in a name, control characters, and white space (which shells split on). */
const NOT_PORTABLE = /["/\\:<>|?*\u0000-\u001f\u007f\s]/u;

describe("portableFolderName", () => {
  it("keeps a variant label's own characters as they are", () => {
    for (const label of ["ps_steps=2", "ps_batches=1,ps_steps=2", "lr=1e-05,optimizer=OptoPrimeV2", "xs=[1,2]", "tags=['x']", "w=+0.5~"]) {
      expect(portableFolderName(label)).toBe(label);
    }
  });

  it("replaces what a file system or a shell would misread, with a look-alike where one reads well", () => {
    expect(portableFolderName("internal:numeric_param")).toBe("internal-numeric_param");
    expect(portableFolderName("openai/gpt-4o-mini")).toBe("openai-gpt-4o-mini");
    expect(portableFolderName('name="a b"')).toBe("name='a_b'");
    expect(portableFolderName("a\\b|c?d*e<f>")).toBe("a-b_c_d_e(f)");
    expect(portableFolderName("tab\there\nnul\u0000")).toBe("tab_here_nul_");
  });

  it("never makes a hidden, parent, empty or Windows device name, nor one ending in '.'", () => {
    expect(portableFolderName("")).toBe("_");
    expect(portableFolderName(".")).toBe("_");
    expect(portableFolderName("..")).toBe("__");
    expect(portableFolderName(".hidden")).toBe("_hidden");
    expect(portableFolderName("v1.")).toBe("v1_");
    expect(portableFolderName("CON")).toBe("_CON");
    expect(portableFolderName("nul.txt")).toBe("_nul.txt");
    expect(portableFolderName("console")).toBe("console");
  });

  it("cuts a long text at a whole character and adds a hash of the whole, so long texts stay distinct", () => {
    const long = "é".repeat(200);
    const name = portableFolderName(long);
    expect(bytes(name)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(name).toMatch(/^é+~[0-9a-f]{8}$/);
    expect(Buffer.from(name, "utf8").toString("utf8")).toBe(name);
    expect(portableFolderName(`${long}a`)).not.toBe(portableFolderName(`${long}b`));
    expect(portableFolderName(`${long}a`, 40).length).toBeLessThanOrEqual(40);
  });

  it("any text gives one portable path segment within the length, the same every time", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), fc.integer({ min: 9, max: 200 }), (text, max) => {
        const name = portableFolderName(text, max);
        expect(name).not.toMatch(NOT_PORTABLE);
        expect(name).not.toMatch(/^\.|\.$/);
        expect(name.length).toBeGreaterThan(0);
        expect(bytes(name)).toBeLessThanOrEqual(Math.max(max, 9));
        expect(portableFolderName(text, max)).toBe(name);
      }),
    );
  });
});
