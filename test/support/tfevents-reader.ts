/**
 * A reader of TensorBoard event files written for the tests from the formats' descriptions, with no
 * code shared with trace-bench's writer (src/codec/):
 * - TFRecord: records of `uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)`,
 *   little-endian; masked = ((crc >> 15) | (crc << 17)) + 0xa282ead8; CRC-32C = Castagnoli, here
 *   computed bit by bit.
 * - protobuf wire format: a key varint (field number << 3 | wire type), then a varint (0), 8 bytes
 *   (1), a length-prefixed payload (2) or 4 bytes (5).
 * - tensorflow.Event: wall_time = 1 (double), step = 2 (int64), file_version = 3 (string),
 *   summary = 5 (Summary: repeated Value value = 1; Value: tag = 1 (string), simple_value = 2 (float)).
 * Any damage (a CRC that does not match, a truncated record, an unknown wire type) throws.
 */

function crc32cBitwise(bytes: Uint8Array): number {
  let crc = ~0 >>> 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0x82f63b78 & -(crc & 1));
  }
  return ~crc >>> 0;
}

export function maskedCrc(bytes: Uint8Array): number {
  const crc = crc32cBitwise(bytes);
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) % 2 ** 32;
}

export { crc32cBitwise };

/** The data of each record, every CRC checked. */
export function readRecords(file: Uint8Array): Uint8Array[] {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const records: Uint8Array[] = [];
  let at = 0;
  while (at < file.length) {
    if (at + 12 > file.length) throw new Error(`record at ${at}: truncated header`);
    const length = Number(view.getBigUint64(at, true));
    if (view.getUint32(at + 8, true) !== maskedCrc(file.subarray(at, at + 8))) throw new Error(`record at ${at}: length CRC mismatch`);
    const start = at + 12;
    if (start + length + 4 > file.length) throw new Error(`record at ${at}: truncated data`);
    const data = file.subarray(start, start + length);
    if (view.getUint32(start + length, true) !== maskedCrc(data)) throw new Error(`record at ${at}: data CRC mismatch`);
    records.push(data);
    at = start + length + 4;
  }
  return records;
}

type Field = { readonly field: number; readonly wire: number; readonly varint?: bigint; readonly bytes?: Uint8Array };

function readVarint(bytes: Uint8Array, at: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  for (;;) {
    if (at >= bytes.length) throw new Error("truncated varint");
    const byte = bytes[at++]!;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, at];
    shift += 7n;
  }
}

function readFields(bytes: Uint8Array): Field[] {
  const fields: Field[] = [];
  let at = 0;
  while (at < bytes.length) {
    const [key, next] = readVarint(bytes, at);
    at = next;
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [value, after] = readVarint(bytes, at);
      fields.push({ field, wire, varint: value });
      at = after;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      if (at + size > bytes.length) throw new Error("truncated fixed field");
      fields.push({ field, wire, bytes: bytes.subarray(at, at + size) });
      at += size;
    } else if (wire === 2) {
      const [length, after] = readVarint(bytes, at);
      const end = after + Number(length);
      if (end > bytes.length) throw new Error("truncated length-delimited field");
      fields.push({ field, wire, bytes: bytes.subarray(after, end) });
      at = end;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  return fields;
}

export interface TbEvent {
  readonly wallTime: number;
  readonly step: number;
  readonly fileVersion?: string;
  /** tag → simple_value (as the 32-bit float stored, widened). */
  readonly scalars?: Record<string, number>;
}

const littleEndian = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function decodeEvent(data: Uint8Array): TbEvent {
  let wallTime = 0;
  let step = 0;
  let fileVersion: string | undefined;
  let scalars: Record<string, number> | undefined;
  for (const f of readFields(data)) {
    if (f.field === 1 && f.wire === 1) wallTime = littleEndian(f.bytes!).getFloat64(0, true);
    else if (f.field === 2 && f.wire === 0) step = Number(BigInt.asIntN(64, f.varint!));
    else if (f.field === 3 && f.wire === 2) fileVersion = new TextDecoder("utf-8", { fatal: true }).decode(f.bytes!);
    else if (f.field === 5 && f.wire === 2) {
      scalars = {};
      for (const value of readFields(f.bytes!).filter((v) => v.field === 1 && v.wire === 2)) {
        let tag = "";
        let simple: number | undefined;
        for (const part of readFields(value.bytes!)) {
          if (part.field === 1 && part.wire === 2) tag = new TextDecoder("utf-8", { fatal: true }).decode(part.bytes!);
          if (part.field === 2 && part.wire === 5) simple = littleEndian(part.bytes!).getFloat32(0, true);
        }
        if (simple === undefined) throw new Error(`value ${tag} has no simple_value`);
        scalars[tag] = simple;
      }
    }
  }
  return { wallTime, step, ...(fileVersion !== undefined ? { fileVersion } : {}), ...(scalars !== undefined ? { scalars } : {}) };
}

export function readTbEvents(file: Uint8Array): TbEvent[] {
  return readRecords(file).map(decodeEvent);
}
