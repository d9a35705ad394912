/** The dashboard's API (src/ui/dashboard-server.ts) and its live stream. */
import type { RunsPayload, RunSummary, JobState } from "../api-types.js";

export class ApiError extends Error {}

function url(path: string, params: Record<string, string> = {}): string {
  const query = new URLSearchParams(params).toString();
  return query === "" ? path : `${path}?${query}`;
}

async function parse<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok) throw new ApiError(body.error ?? `${response.status} ${response.statusText}`);
  return body as T;
}

export async function get<T>(path: string, params: Record<string, string> = {}): Promise<T> {
  return parse<T>(await fetch(url(path, params), { headers: { Accept: "application/json" } }));
}

export async function post<T>(path: string, body: unknown, params: Record<string, string> = {}): Promise<T> {
  return parse<T>(await fetch(url(path, params), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }));
}

export const fileUrl = (relToRunsDir: string) => url("/api/file", { path: relToRunsDir });

export interface RunUpdate {
  readonly rel_dir: string;
  readonly last_seq: number;
  readonly run: RunSummary | null;
  readonly jobs: readonly JobState[];
}

/** Follows the server's events: the runs list, and one run's progress when `run` is given. Returns a function that stops. */
export function follow(run: string | null, on: { runs?: (p: RunsPayload) => void; run?: (u: RunUpdate) => void }): () => void {
  const source = new EventSource(url("/api/stream", run === null ? {} : { run }));
  const live = document.getElementById("live");
  source.onopen = () => live?.classList.add("on");
  source.onerror = () => live?.classList.remove("on");
  if (on.runs) source.addEventListener("runs", (e) => on.runs!(JSON.parse((e as MessageEvent<string>).data) as RunsPayload));
  if (on.run) source.addEventListener("run", (e) => on.run!(JSON.parse((e as MessageEvent<string>).data) as RunUpdate));
  return () => {
    source.close();
    live?.classList.remove("on");
  };
}
