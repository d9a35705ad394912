/**
 * Texts too large or too repetitive to copy into every event (prompt messages, replies) are
 * stored once in the log's `contents` table, keyed by the hash of the text, and events refer to
 * them by that key. Thousands of calls sharing a system prompt store it once.
 */
import { createHash } from "node:crypto";

/** The key of a text in the content table: 128 bits of its SHA-256, hex. */
export const contentRef = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 32);

/** Texts to store with an append, by ref. */
export type Contents = ReadonlyMap<string, string>;
