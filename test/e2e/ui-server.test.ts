/**
 * `trace-bench ui` is safe by default: it binds 127.0.0.1, requires a token (generated unless
 * given; `--no-token` on loopback only, a short token refused on another address), answers an
 * oversized body with 413, serves only files inside the runs dir and configs under the working
 * directory (path traversal refused, links out included), and never sends an API key to the page. The real CLI
 * runs as a child process; requests are raw HTTP so `..` reaches the server unnormalised.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { doctoredRunDirs, REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { http, startDashboard, workDirWithSmokeRun, type RunningDashboard } from "../support/dashboard.js";
import { singleRunDir } from "../support/run-dir.js";

const API_KEY = "sk-test-dashboard-9f3c2e7a51b84d06";
const HF_TOKEN = "hf_dashboardtesttoken0123456789";
const OUTSIDE = "OUTSIDE-THE-RUNS-DIR-1234";

describe("trace-bench ui: binding", () => {
  const refusal = async (args: readonly string[]) => {
    const { code, stdout, stderr } = await runCli(["ui", "--port", "0", ...args], { cwd: tempDir() });
    expect(code, args.join(" ")).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.trim().split("\n"), stderr).toHaveLength(1);
    return stderr;
  };

  it("refuses --no-token on a non-loopback address, a short --token there, and both flags at once: one line, exit 2", async () => {
    expect(await refusal(["--host", "0.0.0.0", "--no-token"])).toMatch(/^trace-bench: --no-token is refused with --host 0\.0\.0\.0, which other machines can reach: drop --no-token .*, or bind 127\.0\.0\.1\n$/);
    expect(await refusal(["--host", "192.168.1.10", "--token", "x"])).toMatch(/^trace-bench: --token is 1 characters, too short for --host 192\.168\.1\.10, .*: pass at least 16 /);
    expect(await refusal(["--host", "0.0.0.0", "--token", "fifteen-chars!!"])).toMatch(/^trace-bench: --token is 15 characters, too short/);
    expect(await refusal(["--token", ""])).toMatch(/^trace-bench: --token is empty; /);
    expect(await refusal(["--token", "long-enough-token-value", "--no-token"])).toBe("trace-bench: --no-token and --token contradict each other; pass one of them\n");
  });

  it("requires a generated token by default: printed in the URL, needed by every request, new each start", async () => {
    const dashboards = [await startDashboard({ cwd: tempDir() }), await startDashboard({ cwd: tempDir() })];
    try {
      const [first, second] = dashboards as [RunningDashboard, RunningDashboard];
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
      expect(second.token).toMatch(/^[0-9a-f]{48}$/);
      expect(second.token).not.toBe(first.token);
      expect((await http(first.origin, "/api/runs")).status).toBe(401);
      expect((await http(first.origin, "/")).status).toBe(401);
      expect((await http(first.origin, "/api/runs", { headers: { Authorization: `Bearer ${second.token}` } })).status).toBe(401);
      const post = await http(first.origin, "/api/config/validate", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"path":"c.yaml","text":"mode: stub\n"}' });
      expect(post.status).toBe(401);
      expect((await first.request("/api/runs")).status).toBe(200);
      // The printed URL sets a cookie and drops the token from the address.
      const opened = await http(first.origin, `/?token=${first.token}`);
      expect(opened.status).toBe(303);
      expect(opened.headers.location).toBe("/");
      const cookie = String(opened.headers["set-cookie"]).split(";")[0]!;
      expect((await http(first.origin, "/api/runs", { headers: { Cookie: cookie } })).status).toBe(200);
    } finally {
      await Promise.all(dashboards.map((d) => d.stop()));
    }
  });

  it("with --no-token binds any loopback address (localhost, 127.x) and answers without a token", async () => {
    for (const host of ["localhost", "127.0.0.2"]) {
      const dashboard = await startDashboard({ cwd: tempDir(), args: ["--host", host, "--no-token"] });
      try {
        expect(dashboard.url).toMatch(new RegExp(`^http://${host.replace(/\./g, "\\.")}:\\d+/$`));
        expect(dashboard.token).toBeNull();
        expect((await http(dashboard.origin, "/api/runs")).status).toBe(200);
      } finally {
        await dashboard.stop();
      }
    }
  });

  it("refuses --share (a public link) and a --tasks-root that is not a folder: one line, exit 2", async () => {
    const share = await runCli(["ui", "--share", "--port", "0"], { cwd: tempDir() });
    expect(share.code).toBe(2);
    expect(share.stderr).toMatch(/^trace-bench: --share \(a public link\) is not offered: .*--host with --token.*\n$/);
    const root = await runCli(["ui", "--tasks-root", "no/such/dir", "--port", "0"], { cwd: tempDir() });
    expect(root.code).toBe(2);
    expect(root.stderr).toBe("trace-bench: --tasks-root no/such/dir is not a directory\n");
  });

  it("with --token on another address, every request must carry the token", async () => {
    const dashboard = await startDashboard({ cwd: tempDir(), args: ["--host", "0.0.0.0", "--token", "s3cret-token-value"] });
    try {
      expect(dashboard.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/\?token=s3cret-token-value$/);
      const port = new URL(dashboard.url).port;
      const origin = `http://127.0.0.1:${port}`;
      expect((await http(origin, "/api/runs")).status).toBe(401);
      expect((await http(origin, "/")).status).toBe(401);
      expect((await http(origin, "/api/runs", { headers: { Authorization: "Bearer wrong-token-value!" } })).status).toBe(401);
      expect((await http(origin, "/api/runs", { headers: { Authorization: "Bearer s3cret-token-value" } })).status).toBe(200);
      // The printed URL sets a cookie and drops the token from the address.
      const opened = await http(origin, "/?token=s3cret-token-value");
      expect(opened.status).toBe(303);
      expect(opened.headers.location).toBe("/");
      const cookie = String(opened.headers["set-cookie"]).split(";")[0]!;
      expect(String(opened.headers["set-cookie"])).toMatch(/HttpOnly; SameSite=Strict/);
      expect((await http(origin, "/api/runs", { headers: { Cookie: cookie } })).status).toBe(200);
    } finally {
      await dashboard.stop();
    }
  });

  it("with --no-token on 127.0.0.1 answers only requests naming it (no DNS rebinding)", async () => {
    const dashboard = await startDashboard({ cwd: tempDir(), args: ["--no-token"] });
    try {
      expect(dashboard.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const port = new URL(dashboard.url).port;
      expect((await http(dashboard.origin, "/api/runs")).status).toBe(200);
      expect((await http(dashboard.origin, "/api/runs", { headers: { Host: `localhost:${port}` } })).status).toBe(200);
      expect((await http(dashboard.origin, "/api/runs", { headers: { Host: `attacker.example:${port}` } })).status).toBe(403);
      // State changes are JSON POSTs from the dashboard's own origin.
      const cancel = (headers: Record<string, string>) => http(dashboard.origin, "/api/launch", { method: "POST", headers, body: '{"config":"x.yaml"}' });
      expect((await cancel({ "Content-Type": "text/plain" })).status).toBe(415);
      expect((await cancel({ "Content-Type": "application/json", Origin: "http://attacker.example" })).status).toBe(403);
    } finally {
      await dashboard.stop();
    }
  });

  it("answers a request body over its 2 MB limit with 413, not a reset connection", async () => {
    const dashboard = await startDashboard({ cwd: tempDir() });
    try {
      const text = "# padding\n".repeat(300_000);
      const reply = await dashboard.request("/api/config/save", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ path: "big.yaml", text }) });
      expect(reply.status).toBe(413);
      expect(JSON.parse(reply.body)).toEqual({ error: "the request body is larger than 2000000 bytes" });
      // The connection and the server are fine afterwards.
      expect((await dashboard.request("/api/runs")).status).toBe(200);
    } finally {
      await dashboard.stop();
    }
  });
});

/** Removes `config_name` from a run's RunStarted events (SQLite and the jsonl mirror), as older trace-bench wrote them. */
function forgetConfigName(runDir: string): void {
  const db = new Database(join(runDir, "events.db"));
  try {
    db.prepare("UPDATE events SET data = json_remove(data, '$.config_name') WHERE type = 'RunStarted'").run();
  } finally {
    db.close();
  }
  const lines = readFileSync(join(runDir, "events.jsonl"), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
  for (const event of lines) if (event.type === "RunStarted") delete event.data.config_name;
  writeFileSync(join(runDir, "events.jsonl"), lines.map((e) => `${JSON.stringify(e)}\n`).join(""));
}

describe("trace-bench ui: what it serves", () => {
  let dir: string;
  let runDir: string;
  let relRun: string;
  let jobId: string;
  let nestedRel: string;
  let dashboard: RunningDashboard;
  const get = (path: string) => dashboard.request(path);

  beforeAll(async () => {
    ({ dir, runDir, rel: relRun } = await workDirWithSmokeRun());
    jobId = "806f391306ae";
    // A second run in a nested folder: listed too, named by its folder under the runs dir.
    const nested = await runCli(["run", "--config", "configs/smoke.yaml", "--runs-dir", "runs/nested/deeper", "--force"], { cwd: dir });
    expect(nested.code, nested.stderr).toBe(0);
    nestedRel = `nested/deeper/${singleRunDir(join(dir, "runs", "nested", "deeper")).split("/").at(-1)}`;
    // The nested run as a log written before RunStarted recorded the config's name.
    forgetConfigName(join(dir, "runs", nestedRel));
    // Secrets where a page could otherwise meet them: a task's file, a config's comment.
    writeFileSync(join(runDir, "jobs", jobId, "artifacts", "notes.txt"), `the key was ${API_KEY} and ${HF_TOKEN}\n`);
    writeFileSync(join(dir, "configs", "with-key.yaml"), `# OPENAI_API_KEY=${API_KEY}\n${readFileSync(join(dir, "configs", "smoke.yaml"), "utf8")}`);
    // Things outside the runs dir, and a link from inside pointing out.
    writeFileSync(join(dir, "outside.txt"), OUTSIDE);
    writeFileSync(join(dir, "outside.yaml"), `# ${OUTSIDE}\n`);
    symlinkSync(dir, join(dir, "runs", "link-out"));
    dashboard = await startDashboard({ cwd: dir, args: ["--runs-dir", "runs"], env: { OPENAI_API_KEY: API_KEY, HF_TOKEN } });
  });

  afterAll(async () => {
    await dashboard?.stop();
  });

  it("serves the page, the runs, a run, a job and its files", async () => {
    const page = await get("/");
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("default-src 'self'");
    expect(page.body).toContain('<script type="module" src="/assets/main.js">');
    expect((await get("/assets/main.js")).status).toBe(200);
    const runs = JSON.parse((await get("/api/runs")).body) as { runs: { rel_dir: string; status: string; jobs: Record<string, number> }[] };
    expect(runs.runs.map((r) => [r.rel_dir, r.status, r.jobs.ok])).toEqual([
      [relRun, "finished", 1],
      [nestedRel, "finished", 1],
    ]);
    expect((await get(`/api/run?run=${encodeURIComponent(nestedRel)}`)).status).toBe(200);
    const job = JSON.parse((await get(`/api/job?run=${relRun}&job=${jobId}`)).body) as { job: { state: string }; transitions: { to: string }[]; artifacts: string[] };
    expect(job.job.state).toBe("done");
    expect(job.transitions.map((t) => t.to)).toEqual(["building", "training", "evaluating", "done"]);
    expect(job.artifacts).toContain(`jobs/${jobId}/artifacts/notes.txt`);
    const results = await get(`/api/file?path=${relRun}/results.csv`);
    expect(results.status).toBe(200);
    expect(results.body).toBe(readFileSync(join(runDir, "results.csv"), "utf8"));
    expect(results.headers["content-security-policy"]).toContain("sandbox");
  });

  it("names each run's config; a log from before the name was recorded still reads and verifies", async () => {
    const runs = JSON.parse((await get("/api/runs")).body) as { runs: { rel_dir: string; config_name: string | null }[] };
    expect(runs.runs.map((r) => [r.rel_dir, r.config_name])).toEqual([
      [relRun, "smoke.yaml"],
      [nestedRel, null],
    ]);
    const run = JSON.parse((await get(`/api/run?run=${encodeURIComponent(nestedRel)}`)).body) as { run: { config_name: string | null }; rows: unknown[] };
    expect(run.run.config_name).toBeNull();
    expect(run.rows).toHaveLength(1);
    const verified = await runCli(["replay", "--verify", join(dir, "runs", nestedRel)]);
    expect(verified.code, verified.stderr).toBe(0);
    expect((await runCli(["runs", "--runs-dir", "runs"], { cwd: dir })).stdout).toMatch(/ smoke\.yaml \([0-9a-f]{12}\) /);
  });

  it("draws the job machine from the definition `machines --json` prints", async () => {
    const definition = JSON.parse((await runCli(["machines", "--json"])).stdout) as {
      id: string;
      initial: string;
      states: Record<string, { type?: string; on?: Record<string, { target?: string } | { target?: string }[]> }>;
    };
    const graph = JSON.parse((await get("/api/machine")).body) as { id: string; initial: string; nodes: { id: string; final: boolean }[]; edges: { from: string; to: string; event: string }[] };
    expect([graph.id, graph.initial]).toEqual([definition.id, definition.initial]);
    expect(graph.nodes.map((n) => [n.id, n.final])).toEqual(Object.entries(definition.states).map(([name, state]) => [name, state.type === "final"]));
    const exported = Object.entries(definition.states).flatMap(([from, state]) =>
      Object.entries(state.on ?? {}).flatMap(([event, on]) => (Array.isArray(on) ? on : [on]).map((t) => `${from} -${event}-> ${t.target ?? from}`)),
    );
    expect(graph.edges.map((e) => `${e.from} -${e.event}-> ${e.to}`)).toEqual(exported);
    expect(exported.length).toBeGreaterThan(10);
  });

  it("saves an edited config only as a new YAML file under the working directory, outside dot folders, never over a file", async () => {
    const save = (path: string, text: string) => dashboard.request("/api/config/save", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ path, text }) });
    const smoke = readFileSync(join(dir, "configs", "smoke.yaml"), "utf8");
    const text = smoke.replace("seeds: [123]", "seeds: [7]");
    expect(text).toContain("seeds: [7]");
    const saved = await save("configs/edited.yaml", text);
    expect(saved.status, saved.body).toBe(200);
    expect(JSON.parse(saved.body)).toEqual({ saved: "configs/edited.yaml" });
    expect(readFileSync(join(dir, "configs", "edited.yaml"), "utf8")).toBe(text);
    expect((JSON.parse((await get("/api/configs")).body) as { configs: string[] }).configs).toContain("configs/edited.yaml");
    // Neither the file just saved nor the config it was made from is overwritten: 409, both as they were.
    for (const taken of ["configs/edited.yaml", "configs/smoke.yaml"]) {
      const again = await save(taken, `${text}# again\n`);
      expect(again.status, again.body).toBe(409);
      expect(JSON.parse(again.body).error).toContain(`${taken} exists; the page saves a new file`);
    }
    expect(readFileSync(join(dir, "configs", "edited.yaml"), "utf8")).toBe(text);
    expect(readFileSync(join(dir, "configs", "smoke.yaml"), "utf8")).toBe(smoke);

    mkdirSync(join(dir, ".hidden"));
    mkdirSync(join(dir, "node_modules"));
    const refused: [string, number][] = [
      [".hidden/x.yaml", 400],
      ["configs/.git/x.yaml", 400],
      ["node_modules/x.yaml", 400],
      ["configs/x.json", 400],
      ["configs/x.txt", 400],
      ["configs/x", 400],
      ["../x.yaml", 403],
      ["configs/../../x.yaml", 403],
      [join(dir, "configs", "abs.yaml"), 403],
      ["/tmp/x.yaml", 403],
      ["runs/link-out/../../x.yaml", 403],
    ];
    for (const [path, status] of refused) {
      const reply = await save(path, "mode: stub\n");
      expect(reply.status, `${path}: ${reply.body}`).toBe(status);
    }
    expect(readdirSync(join(dir, ".hidden"))).toEqual([]);
    expect(readdirSync(join(dir, "node_modules"))).toEqual([]);
    expect(existsSync(join(dir, "..", "x.yaml"))).toBe(false);
    expect(readdirSync(join(dir, "configs")).sort()).toEqual(["edited.yaml", "smoke.yaml", "with-key.yaml"]);
  });

  it("offers as configs only YAML files with a top-level tasks: or trainers: key, outside run, test and tool folders", async () => {
    const smoke = readFileSync(join(dir, "configs", "smoke.yaml"), "utf8");
    const lay = (path: string, text: string) => {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    lay("configs/only-trainers.yml", "trainers: [NoOpTrainer]\n");
    lay("configs/pricing.yaml", readFileSync(join(REPO_ROOT, "configs", "pricing.yaml"), "utf8"));
    lay("benchmarks/llm4ad/knapsack/paras.yaml", readFileSync(join(REPO_ROOT, "benchmarks", "llm4ad", "optimization_knapsack_construct", "paras.yaml"), "utf8"));
    lay("test/fixtures/matrix.yaml", smoke);
    lay("node_modules/pkg/config.yaml", smoke);
    // A run directory outside the runs dir: its config snapshot is no config to edit.
    lay("old-runs/r1/meta/config.snapshot.yaml", smoke);
    lay("old-runs/r1/events.db", "");
    doctoredRunDirs.add(join(dir, "old-runs", "r1")); // a stand-in, not a log to verify
    lay("nested/indented.yaml", "settings:\n  tasks: [internal:numeric_param]\n");
    const { configs } = JSON.parse((await get("/api/configs")).body) as { configs: string[] };
    expect(configs).toContain("configs/smoke.yaml");
    expect(configs).toContain("configs/only-trainers.yml");
    for (const not of ["configs/pricing.yaml", "benchmarks/llm4ad/knapsack/paras.yaml", "test/fixtures/matrix.yaml", "node_modules/pkg/config.yaml", "old-runs/r1/meta/config.snapshot.yaml", "nested/indented.yaml", "outside.yaml"]) {
      expect(configs, not).not.toContain(not);
    }
    expect(configs.some((c) => c.startsWith("runs/"))).toBe(false);
  });

  it("launches only into a folder inside the runs dir", async () => {
    const launch = (runs_subdir: string) =>
      dashboard.request("/api/launch", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ config: "configs/smoke.yaml", runs_subdir }) });
    for (const subdir of ["..", "../escaped", "nested/../../escaped", join(dir, "escaped"), "/tmp", "link-out", "link-out/escaped"]) {
      const reply = await launch(subdir);
      expect(reply.status, `${subdir}: ${reply.body}`).toBe(403);
    }
    expect(existsSync(join(dir, "escaped"))).toBe(false);
    // Nothing was started: no launch console was written.
    expect(existsSync(join(dir, "runs", ".trace-bench-ui"))).toBe(false);
  });

  it("refuses every path that leaves the runs dir or the working directory", async () => {
    const refused = [
      "/api/file?path=../outside.txt",
      `/api/file?path=${relRun}/../../outside.txt`,
      "/api/file?path=..%2Foutside.txt",
      "/api/file?path=%2E%2E/outside.txt",
      `/api/file?path=${encodeURIComponent(join(dir, "outside.txt"))}`,
      "/api/file?path=/etc/passwd",
      "/api/file?path=link-out/outside.txt",
      "/api/file?path=runs%5C..%5C..%5Coutside.txt",
      "/api/run?run=..",
      "/api/run?run=link-out",
      `/api/job?run=../runs/${relRun}&job=${jobId}`,
      "/api/config?path=../outside.yaml",
      `/api/config?path=${encodeURIComponent(join(dir, "outside.yaml"))}`,
    ];
    for (const path of refused) {
      const reply = await get(path);
      expect([403, 404], `${path} answered ${reply.status}`).toContain(reply.status);
      expect(reply.body, path).not.toContain(OUTSIDE);
    }
    for (const path of ["/../package.json", "/assets/../../package.json", "/assets/%2e%2e/%2e%2e/package.json", "/assets/..%2F..%2Fpackage.json", "/%2e%2e/%2e%2e/etc/passwd"]) {
      const reply = await get(path);
      expect(reply.status, path).toBe(404);
      expect(reply.body, path).not.toContain('"name": "trace-bench"');
      expect(reply.body, path).not.toContain("root:");
    }
    for (const config of ["../outside.yaml", join(dir, "outside.yaml"), "/etc/passwd", "configs/../../outside.yaml"]) {
      const reply = await dashboard.request("/api/launch", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ config }) });
      expect(reply.status, config).toBe(403);
    }
  });

  it("never sends an API key: not in files, configs, listings or the live stream", async () => {
    const file = await get(`/api/file?path=${relRun}/jobs/${jobId}/artifacts/notes.txt`);
    expect(file.status).toBe(200);
    expect(file.body).toBe("the key was ***REDACTED*** and ***REDACTED***\n");
    const config = await get("/api/config?path=configs/with-key.yaml");
    expect(config.status).toBe(200);
    expect(config.body).toContain("***REDACTED***");
    const replies = await Promise.all(
      ["/api/runs", `/api/run?run=${relRun}`, `/api/job?run=${relRun}&job=${jobId}`, `/api/tokens?run=${relRun}`, "/api/configs", "/api/machine"].map(get),
    );
    for (const reply of [file, config, ...replies]) {
      expect(reply.status).toBe(200);
      expect(reply.body).not.toContain(API_KEY);
      expect(reply.body).not.toContain(HF_TOKEN);
    }
    // The live stream's first events.
    const stream = await new Promise<string>((done, fail) => {
      const { hostname, port } = new URL(dashboard.origin);
      import("node:http").then(({ get: httpGet }) => {
        const req = httpGet({ host: hostname, port, path: `/api/stream?run=${relRun}`, headers: { Authorization: `Bearer ${dashboard.token}` } }, (res) => {
          let text = "";
          res.on("data", (c: Buffer) => {
            text += c.toString("utf8");
            if (text.includes("event: run\n") && text.endsWith("\n\n")) {
              req.destroy();
              done(text);
            }
          });
        });
        req.on("error", fail);
      }, fail);
    });
    expect(stream).toContain("event: runs\n");
    expect(stream).not.toContain(API_KEY);
  });
});
