/**
 * Text made into one folder name that every common file system takes (Linux, macOS, Windows) and
 * that no shell or glob misreads as a separator: characters Windows forbids (`<>:"/\|?*`), control
 * characters and white space are replaced, a leading `.` (hidden, or `..`) and a trailing `.`
 * (which Windows drops) are replaced, a Windows device name (`CON`, `nul.txt`) gets a `_` in
 * front, and a name longer than `MAX_NAME_BYTES` bytes of UTF-8 keeps its start and adds `~` and
 * 8 hex digits of the whole text's SHA-256, so it stays distinct. Everything else is kept as it
 * is (`=`, `,`, `+`, `[`, `{`, letters of any script), so the folder reads like the text.
 * The name depends on the text alone (replay makes the same folder from the same log).
 */
import { createHash } from "node:crypto";

/** Well under the 255 bytes a name may have, so that the path it ends stays short too. */
export const MAX_NAME_BYTES = 120;

/** What replaces each character that cannot stay: a look-alike where one reads well, else `_`. */
const REPLACEMENT: Readonly<Record<string, string>> = { '"': "'", "/": "-", "\\": "-", ":": "-", "<": "(", ">": ")" };
const NOT_PORTABLE = /["/\\:<>|?*\u0000-\u001f\u007f\s]/gu;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/i;

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** The longest start of `text` (whole code points) that fits in `bytes` bytes of UTF-8. */
function startWithin(text: string, bytes: number): string {
  let used = 0;
  let end = 0;
  for (const ch of text) {
    used += utf8Bytes(ch);
    if (used > bytes) break;
    end += ch.length;
  }
  return text.slice(0, end);
}

/** `text` as a portable folder name (see the file comment) of at most `maxBytes` bytes of UTF-8 (when that is 9 or more: `~` and the hash fit); never empty. */
export function portableFolderName(text: string, maxBytes = MAX_NAME_BYTES): string {
  let name = text.replace(NOT_PORTABLE, (ch) => REPLACEMENT[ch] ?? "_");
  if (name === "") name = "_";
  if (name.startsWith(".")) name = `_${name.slice(1)}`;
  if (name.endsWith(".")) name = `${name.slice(0, -1)}_`;
  if (WINDOWS_DEVICE.test(name)) name = `_${name}`;
  if (utf8Bytes(name) <= maxBytes) return name;
  const suffix = `~${createHash("sha256").update(text, "utf8").digest("hex").slice(0, 8)}`;
  return startWithin(name, maxBytes - suffix.length) + suffix;
}
