/**
 * Hostile Python candidates, as an LLM steered by a prompt injection might write them, evaluated
 * by the LLM4AD suite in its real sandbox (bubblewrap, one warm template per worker, a forked
 * child per candidate). Each attack fails inside the sandbox; then another job's benign candidate,
 * on the same (only) worker, scores exactly what it scores alone, and a probe candidate finds the
 * sandbox clean: no process but itself and the template, nothing in /tmp. No API key, whatever its
 * variable's name, is readable by any of them.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Llm4adSuite, PENALTY_SCORE } from "../../../adapters/tasks/llm4ad/llm4ad-suite.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { REPO_ROOT } from "../../support/cli.js";
import { isRunning } from "../../support/processes.js";

const INDEXED = join(REPO_ROOT, "test", "fixtures", "llm4ad", "indexed");
const SECRETS = { MY_LLM_KEY: "sk-run-key-4f1c", AWS_SECRET_ACCESS_KEY: "aws-secret-9d2e", GITHUB_PAT: "ghp_pat_77aa", DATABASE_URL: "postgres://u:db-password-31@h/db" };
/** What the benign candidate scores alone (f doubles its input: no error). */
const ALONE = -0;

let suite: Llm4adSuite;
let hostDir: string;
let server: Server;
let connections = 0;
let port = 0;
let bystander: ChildProcess;

beforeAll(async () => {
  Object.assign(process.env, SECRETS);
  // One worker: every job below goes through the same template, as the jobs of a run share a pool.
  suite = new Llm4adSuite(INDEXED, { workers: 1, memoryMb: 1024 });
  hostDir = mkdtempSync(join(tmpdir(), "trace-bench-hostile-"));
  writeFileSync(join(hostDir, "secret.txt"), "the user's secret");
  writeFileSync(join(hostDir, "events.db"), "SQLite format 3\0the run's log");
  server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
  bystander = spawn("sleep", ["300"], { stdio: "ignore" });
});

afterAll(async () => {
  suite.close();
  for (const name of Object.keys(SECRETS)) delete process.env[name];
  bystander.kill("SIGKILL");
  await new Promise((resolve) => server.close(resolve));
  rmSync(hostDir, { recursive: true, force: true });
});

async function score(bundle: TaskBundle, code: string): Promise<{ score: number; feedback: string }> {
  return bundle.guide.evaluate(bundle.train_dataset.inputs[0], code, bundle.train_dataset.infos[0], {});
}

/** A candidate that doubles its input (scores 0) only when `failed` (Python) holds at import time, else scores -90. */
const unless = (attack: string, failed = "attack_failed") => `${attack}\n\ndef f(x):\n    return 2 * x if ${failed} else 0\n`;

/** Python that sets `attack_failed` unless `use` (of `path`) succeeds for some path of the list `paths`. */
const noneOpens = (paths: string, use: string) => `attack_failed = True
for path in ${paths}:
    try:
        ${use}
        attack_failed = False
    except OSError:
        pass`;

/** Runs only when every process a previous candidate left has had time to act: it must find none. */
const PROBE = `import os, time
time.sleep(0.5)
others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
clean = not others and sorted(os.listdir("/tmp")) == ["candidate"] and os.listdir(".") == []
def f(x):
    return 2 * x if clean else 0
`;

/** Another job's benign candidate and the probe, after a hostile one: each scores as it does alone. */
async function afterwardsClean(): Promise<void> {
  const other = await suite.load("llm4ad:toy/double", {});
  expect(await score(other, "def f(x):\n    return 2 * x")).toMatchObject({ score: ALONE });
  expect((await score(other, PROBE)).score).toBe(ALONE);
}

const HOSTILE: Record<string, () => string> = {
  "reads a secret file (the user's, /etc/passwd, /etc/shadow, root's home)": () =>
    unless(noneOpens(`[${JSON.stringify(join(hostDir, "secret.txt"))}, "/etc/passwd", "/etc/shadow", "/root/.bash_history", ${JSON.stringify(join(REPO_ROOT, "package.json"))}]`, "open(path).read()")),
  "reads the run's log": () =>
    unless(`import glob
attack_failed = not glob.glob(${JSON.stringify(join(hostDir, "*.db"))})
try:
    open(${JSON.stringify(join(hostDir, "events.db"))}, "rb").read()
    attack_failed = False
except OSError:
    pass`),
  "writes outside its scratch space (a host folder, the task's own files, the interpreter)": () =>
    unless(`import os, sys\n${noneOpens(`[${JSON.stringify(join(hostDir, "escaped.txt"))}, "/trace-bench/tasks/toy_double/__init__.py", os.path.join(sys.prefix, "escaped.txt"), "/usr/escaped.txt"]`, 'open(path, "a").write("x")')}`),
  "finds the API key under any variable name, in its environment or the template's": () =>
    unless(`import os
secrets = ${JSON.stringify(Object.values(SECRETS))}
seen = " ".join(os.environ.values())
for pid in os.listdir("/proc"):
    try:
        seen += open(f"/proc/{pid}/environ", "rb").read().decode("latin-1")
    except OSError:
        pass
attack_failed = not any(s in seen for s in secrets)`),
  "connects to a server on 127.0.0.1": () =>
    unless(`import socket
attack_failed = True
try:
    socket.create_connection(("127.0.0.1", ${port}), timeout=1).close()
    attack_failed = False
except OSError:
    pass`),
  "signals a process of the machine, and its own template": () =>
    unless(`import os, signal
attack_failed = True
try:
    os.kill(${bystander.pid ?? 0}, signal.SIGKILL)
    attack_failed = False
except OSError:
    pass
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
    os.kill(1, sig)`),
  "spawns processes that detach and outlive it": () =>
    unless(`import os, subprocess
subprocess.Popen(["sleep", "3601"], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open("/tmp/daemon-was-here", "w").close()
        os.execvp("sleep", ["sleep", "3602"])
    os._exit(0)
attack_failed = True`),
  "keeps a timer and a thread running after it answered": () =>
    unless(`import threading, time
def later():
    open("/tmp/timer-fired", "w").close()
threading.Timer(0.2, later).start()
def forever():
    while True:
        open("/tmp/thread-alive", "w").close()
        time.sleep(0.05)
threading.Thread(target=forever, daemon=False).start()
attack_failed = True`),
  "patches the evaluator, numpy and builtins for the next candidates": () =>
    unless(`import builtins, sys, numpy
for module in list(sys.modules.values()):
    evaluation = getattr(module, "DoubleEvaluation", None)
    if evaluation is not None:
        evaluation.evaluate_program = lambda self, *a, **k: 12345.0
numpy.isfinite = lambda value: True
builtins.float = lambda *a: 12345.0
for folder in ("/tmp", "."):
    try:
        open(folder + "/sitecustomize.py", "w").write("import builtins; builtins.abs = lambda v: 0")
    except OSError:
        pass
attack_failed = True`),
};

// With the sandbox off these candidates would signal the machine's own processes: never run them there.
describe.runIf(process.env.TRACE_BENCH_SANDBOX !== "off")("hostile Python candidates in the LLM4AD sandbox", () => {
  for (const [what, code] of Object.entries(HOSTILE)) {
    it(`a candidate that ${what} fails inside the sandbox; the next job scores as alone`, async () => {
      const bundle = await suite.load("llm4ad:toy/double", {});
      const result = await score(bundle, code());
      // A patching candidate may forge its own score (the evaluator runs in its process, as in the
      // reference); none may change anyone else's.
      if (!what.startsWith("patches")) expect(result).toMatchObject({ score: ALONE });
      await afterwardsClean();
      expect(existsSync(join(hostDir, "escaped.txt"))).toBe(false);
      expect(readFileSync(join(INDEXED, "toy_double", "__init__.py"), "utf8")).not.toMatch(/x$/);
      expect(connections).toBe(0);
      expect(isRunning(bystander.pid!)).toBe(true);
    }, 60_000);
  }

  it("a fork bomb is stopped by the process limit and the time limit; the next job scores as alone", async () => {
    const bundle = await suite.load("llm4ad:toy/double", {});
    const result = await score(bundle, "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\ndef f(x):\n    return 2 * x");
    expect(result.score).toBe(PENALTY_SCORE);
    await afterwardsClean();
  }, 60_000);

  it("nothing a candidate started is left on the machine: no detached sleep outlives its evaluation", () => {
    const sleepers = readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          return /^sleep\x00360[12]\x00/.test(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
        } catch {
          return false;
        }
      });
    expect(sleepers).toEqual([]);
  });
});
