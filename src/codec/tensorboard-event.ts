/**
 * The protobuf encoding of TensorBoard's `Event` message (tensorflow/core/util/event.proto), the
 * two kinds trace-bench writes:
 *   Event   { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; }
 *   Summary { repeated Value value = 1; }
 *   Value   { string tag = 1; float simple_value = 2; }
 * An event file starts with an Event holding `file_version: "brain.Event:2"`, then one Event per
 * step with its scalars.
 */
import { concatBytes } from "./tfrecord.js";

export const EVENT_FILE_VERSION = "brain.Event:2";

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH = 2;
const WIRE_FIXED32 = 5;

const key = (field: number, wire: number) => varint(BigInt((field << 3) | wire));

/** Base-128 varint; negative int64 values as their two's complement (ten bytes), as protobuf does. */
function varint(value: bigint): Uint8Array {
  let v = BigInt.asUintN(64, value);
  const bytes: number[] = [];
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    bytes.push(v > 0n ? low | 0x80 : low);
  } while (v > 0n);
  return Uint8Array.from(bytes);
}

function lengthDelimited(field: number, payload: Uint8Array): Uint8Array {
  return concatBytes([key(field, WIRE_LENGTH), varint(BigInt(payload.length)), payload]);
}

function double(field: number, value: number): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setFloat64(0, value, true);
  return concatBytes([key(field, WIRE_FIXED64), bytes]);
}

function float(field: number, value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setFloat32(0, value, true);
  return concatBytes([key(field, WIRE_FIXED32), bytes]);
}

const text = (field: number, value: string) => lengthDelimited(field, new TextEncoder().encode(value));

function eventHeader(wallTime: number, step: number): Uint8Array[] {
  return [double(1, wallTime), ...(step !== 0 ? [concatBytes([key(2, WIRE_VARINT), varint(BigInt(step))])] : [])];
}

/** The first event of a file. */
export function fileVersionEvent(wallTime: number): Uint8Array {
  return concatBytes([...eventHeader(wallTime, 0), text(3, EVENT_FILE_VERSION)]);
}

/** One step's scalars (`simple_value`s, stored as 32-bit floats). */
export function scalarsEvent(wallTime: number, step: number, scalars: readonly (readonly [tag: string, value: number])[]): Uint8Array {
  const values = scalars.map(([tag, value]) => lengthDelimited(1, concatBytes([text(1, tag), float(2, value)])));
  return concatBytes([...eventHeader(wallTime, step), lengthDelimited(5, concatBytes(values))]);
}
