// trace-bench's JavaScript sandbox worker: a long-lived node process, started under Node's
// permission model (it may read only this folder and write only its own working directory; no
// child processes, no worker threads, no native addons) with an environment holding no secrets.
// It evaluates trainable JavaScript functions: one JSON request per stdin line, one answer per
// stdout line. Each evaluation gets a fresh V8 context (no globals leak from one candidate to
// the next) and a time limit; the engine kills the worker if the code never yields.
//
//   {"id": 1, "op": "run", "source": "(x) => x + 1", "args": [1], "timeoutMs": 1000}
//     → {"id": 1, "ok": true, "value": 2}  or  {"id": 1, "ok": false, "error": "TypeError: ..."}
//
// Written in plain JavaScript with node: imports only, so the permission model needs to let it
// read nothing but this file.
import { createInterface } from "node:readline";
import vm from "node:vm";

// Whatever the engine passed, candidate code must find no environment to read.
for (const name of Object.keys(process.env)) delete process.env[name];

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

function run({ source, args, timeoutMs }) {
  const context = vm.createContext({ args: Array.isArray(args) ? args : [] }, { codeGeneration: { strings: true, wasm: false } });
  const value = vm.runInContext(`(${source})(...args)`, context, { timeout: Math.max(1, Number(timeoutMs) || 1000), filename: "trainable-code.js" });
  // Only plain data crosses back: functions and symbols become null, cycles an error.
  return value === undefined ? null : JSON.parse(JSON.stringify(value) ?? "null");
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    send({ id: null, ok: false, error: "protocol: unreadable request" });
    return;
  }
  if (request.op !== "run") {
    send({ id: request.id ?? null, ok: false, error: `protocol: unknown op ${JSON.stringify(request.op)}` });
    return;
  }
  try {
    send({ id: request.id, ok: true, value: run(request) });
  } catch (error) {
    const text = error instanceof Error || (error && typeof error === "object" && "message" in error) ? `${error.name ?? "Error"}: ${error.message}` : String(error);
    send({ id: request.id, ok: false, error: text });
  }
});
lines.on("close", () => process.exit(0));
send({ ready: true, pid: process.pid });
