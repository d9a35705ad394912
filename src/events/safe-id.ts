/**
 * Ids that become path segments (job ids, run ids) must be plain names: a doctored log whose job
 * id reads `../../victim` must never make a projection write outside its run directory.
 */
const SAFE_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

export const isSafeId = (id: string) => SAFE_ID.test(id) && !id.includes("..") && id.length <= 200;

export class UnsafeIdError extends Error {
  override readonly name = "UnsafeIdError";
}

/** The id itself, or an `UnsafeIdError` when it could escape the directory it names a child of. */
export function checkedJobId(id: string): string {
  if (!isSafeId(id)) throw new UnsafeIdError(`refusing job id ${JSON.stringify(id)}: not a plain name (letters, digits, '.', '_', '-')`);
  return id;
}
