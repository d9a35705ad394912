/** Writes all of `bytes` at the descriptor's position: `writeSync` may write less than asked, and every byte must get there. */
import { writeSync } from "node:fs";

export function writeFully(fd: number, bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
}
