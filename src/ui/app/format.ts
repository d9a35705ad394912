/** How numbers, times and money read on the page. */
import { usdForPeople } from "../../codec/usd-for-people.js";

export function score(x: unknown): string {
  if (typeof x !== "number") return x === null || x === undefined ? "—" : String(x);
  if (!Number.isFinite(x)) return String(x);
  const abs = Math.abs(x);
  return abs !== 0 && (abs < 1e-3 || abs >= 1e6) ? x.toExponential(3) : String(Number(x.toPrecision(6)));
}

export const int = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toLocaleString("en-US"));
export const usd = (x: number | null | undefined) => (x === null || x === undefined ? "unknown" : usdForPeople(x));

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return "?";
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

export const when = (iso: string) => iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "");

/** A cell of the results table as text (money as money, objects as compact JSON). */
export function cell(value: unknown, column = ""): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return column.includes("cost") ? usdForPeople(value) : score(value);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
