/**
 * Reading CSV as Python's csv module writes it (the results table): `\r\n` or `\n` rows, fields
 * quoted when they hold a comma, quote or newline, quotes doubled inside. Quoted fields may span
 * lines (a multi-line feedback), so rows are not split on newlines first.
 */

/** The rows of a CSV text, each a list of cells; a trailing newline ends the last row. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  let i = 0;
  const endRow = () => {
    row.push(cell);
    rows.push(row);
    row = [];
    cell = "";
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else cell += c;
      i += 1;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      endRow();
      i += 1;
    } else if (c === "\n") endRow();
    else cell += c;
    i += 1;
  }
  if (cell !== "" || row.length > 0) endRow();
  return rows;
}

/** A CSV text with a header row as objects keyed by column name (missing cells are ""). */
export function parseCsvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (header === undefined) return [];
  return rows.map((cells) => Object.fromEntries(header.map((column, i) => [column, cells[i] ?? ""])));
}
