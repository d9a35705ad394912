/**
 * Text a user supplied (a task id, a key, a file name) made safe to print in a message line: every
 * control character but tab is written as `\xNN`, so an escape sequence in a config cannot
 * recolour, move or clear the terminal, nor split the line.
 */
export function escapeControls(text: string): string {
  return text.replace(/[\x00-\x08\x0a-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
