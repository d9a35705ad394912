/**
 * A minimal Parquet writer for tests: one row group, one uncompressed PLAIN data page per column,
 * REQUIRED flat columns of strings, 64-bit integers or booleans. Enough to make a file in a
 * dataset's schema that the hf suite must read through hyparquet (the project has no writer).
 */
import { writeFileSync } from "node:fs";

export type ParquetColumn = { readonly name: string; readonly type: "string"; readonly values: readonly string[] } | { readonly name: string; readonly type: "int64"; readonly values: readonly number[] } | { readonly name: string; readonly type: "boolean"; readonly values: readonly boolean[] };

/** Thrift compact protocol, the parts Parquet's footer and page headers use. */
class Compact {
  readonly bytes: number[] = [];
  private last: number[] = [0];

  varint(n: bigint): void {
    let v = n;
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) byte |= 0x80;
      this.bytes.push(byte);
    } while (v > 0n);
  }
  zigzag(n: number | bigint): void {
    const v = BigInt(n);
    this.varint(v >= 0n ? v << 1n : ((-v) << 1n) - 1n);
  }
  field(id: number, type: number): void {
    const delta = id - this.last[this.last.length - 1]!;
    if (delta > 0 && delta <= 15) this.bytes.push((delta << 4) | type);
    else {
      this.bytes.push(type);
      this.zigzag(id);
    }
    this.last[this.last.length - 1] = id;
  }
  i32(id: number, n: number): void {
    this.field(id, 5);
    this.zigzag(n);
  }
  i64(id: number, n: number): void {
    this.field(id, 6);
    this.zigzag(n);
  }
  binary(id: number, text: string): void {
    this.field(id, 8);
    this.rawBinary(text);
  }
  rawBinary(text: string): void {
    const data = Buffer.from(text, "utf8");
    this.varint(BigInt(data.length));
    this.bytes.push(...data);
  }
  struct(id: number, body: () => void): void {
    this.field(id, 12);
    this.begin(body);
  }
  begin(body: () => void): void {
    this.last.push(0);
    body();
    this.bytes.push(0);
    this.last.pop();
  }
  list(id: number, elementType: number, count: number, each: (i: number) => void): void {
    this.field(id, 9);
    if (count < 15) this.bytes.push((count << 4) | elementType);
    else {
      this.bytes.push(0xf0 | elementType);
      this.varint(BigInt(count));
    }
    for (let i = 0; i < count; i += 1) each(i);
  }
}

const PHYSICAL = { boolean: 0, int64: 2, string: 6 } as const;

function plainValues(column: ParquetColumn): Buffer {
  if (column.type === "string") return Buffer.concat(column.values.map((v) => {
    const data = Buffer.from(v, "utf8");
    const len = Buffer.alloc(4);
    len.writeUInt32LE(data.length);
    return Buffer.concat([len, data]);
  }));
  if (column.type === "int64") {
    const out = Buffer.alloc(8 * column.values.length);
    column.values.forEach((v, i) => out.writeBigInt64LE(BigInt(v), 8 * i));
    return out;
  }
  const out = Buffer.alloc(Math.ceil(column.values.length / 8));
  column.values.forEach((v, i) => {
    if (v) out[i >> 3]! |= 1 << (i & 7);
  });
  return out;
}

export function writeParquet(path: string, columns: readonly ParquetColumn[]): void {
  const rows = columns[0]?.values.length ?? 0;
  const parts: Buffer[] = [Buffer.from("PAR1")];
  let offset = 4;
  const chunks: { column: ParquetColumn; offset: number; size: number }[] = [];
  for (const column of columns) {
    const data = plainValues(column);
    const header = new Compact();
    header.begin(() => {
      header.i32(1, 0); // DATA_PAGE
      header.i32(2, data.length);
      header.i32(3, data.length);
      header.struct(5, () => {
        header.i32(1, rows);
        header.i32(2, 0); // PLAIN
        header.i32(3, 3); // RLE
        header.i32(4, 3);
      });
    });
    const page = Buffer.concat([Buffer.from(header.bytes), data]);
    chunks.push({ column, offset, size: page.length });
    parts.push(page);
    offset += page.length;
  }
  const footer = new Compact();
  footer.begin(() => {
    footer.i32(1, 1);
    footer.list(2, 12, columns.length + 1, (i) => {
      footer.begin(() => {
        if (i === 0) {
          footer.binary(4, "schema");
          footer.i32(5, columns.length);
          return;
        }
        const column = columns[i - 1]!;
        footer.i32(1, PHYSICAL[column.type]);
        footer.i32(3, 0); // REQUIRED
        footer.binary(4, column.name);
        if (column.type === "string") footer.i32(6, 0); // UTF8
      });
    });
    footer.i64(3, rows);
    footer.list(4, 12, 1, () => {
      footer.begin(() => {
        footer.list(1, 12, chunks.length, (i) => {
          const { column, offset: at, size } = chunks[i]!;
          footer.begin(() => {
            footer.i64(2, at);
            footer.struct(3, () => {
              footer.i32(1, PHYSICAL[column.type]);
              footer.list(2, 5, 1, () => footer.zigzag(0));
              footer.list(3, 8, 1, () => footer.rawBinary(column.name));
              footer.i32(4, 0); // UNCOMPRESSED
              footer.i64(5, rows);
              footer.i64(6, size);
              footer.i64(7, size);
              footer.i64(9, at);
            });
          });
        });
        footer.i64(2, chunks.reduce((sum, c) => sum + c.size, 0));
        footer.i64(3, rows);
      });
    });
  });
  const meta = Buffer.from(footer.bytes);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(meta.length);
  parts.push(meta, len, Buffer.from("PAR1"));
  writeFileSync(path, Buffer.concat(parts));
}
