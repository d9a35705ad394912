/**
 * Sweeping loopback socket folders left by dead runs, on the real file system with real processes:
 * a folder whose owner exited is removed; the folders of live processes (this one, and a child
 * still running) are kept, as are names that say no owner, folders of a pid whose start time was
 * not known, and a folder whose socket still accepts connections (whatever its name says).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ownedPrefix, processStartStamp, sweepLoopbackSocketDirs } from "../../../src/llm/loopback-socket-sweep.js";
import { tempDir } from "../../support/cli.js";

const children: ReturnType<typeof spawn>[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const server of servers.splice(0)) server.close();
});

/** A pid whose process has exited (and been reaped). */
function deadPid(): number {
  const done = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(done.stdout);
}

function folder(parent: string, name: string): string {
  const path = join(parent, name);
  mkdirSync(path);
  writeFileSync(join(path, "0123456789abcdef.sock"), "");
  return path;
}

describe("sweeping loopback socket folders", () => {
  it("removes the folders whose owner is gone and keeps every folder of a live process", async () => {
    const parent = tempDir();
    const dead = deadPid();
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    children.push(child);
    await new Promise((resolve) => child.once("spawn", resolve));
    const live = child.pid!;
    const stamp = processStartStamp(live);
    expect(stamp, "this system tells when a process started (/proc)").not.toBeNull();

    folder(parent, `tb-llm-${dead}-123-AbCdEf`);
    folder(parent, `tb-llm-${dead}-x-GhIjKl`);
    const liveName = `${ownedPrefix(live)}MnOpQr`;
    expect(liveName).toBe(`tb-llm-${live}-${stamp}-MnOpQr`);
    folder(parent, liveName);
    folder(parent, `${ownedPrefix()}StUvWx`);
    // A live pid with another start time: the folder's owner died and its pid was given to this child.
    folder(parent, `tb-llm-${live}-${Number(stamp) - 1}-ReUsEd`);
    // A live pid whose start time was not known when the folder was made: kept, it may be the owner.
    folder(parent, `tb-llm-${live}-x-NoStAm`);
    // A dead owner by its name, but its socket answers: a live process's (e.g. from another pid namespace).
    const answering = folder(parent, `tb-llm-${dead}-77-AnSwEr`);
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(join(answering, "fedcba9876543210.sock"), resolve));
    // The older name (no owner in it) and other folders are not ours to judge.
    folder(parent, "tb-llm-a1B2c3");
    folder(parent, "something-else");

    const removed = (await sweepLoopbackSocketDirs(parent)).sort();
    expect(removed).toEqual([`tb-llm-${dead}-123-AbCdEf`, `tb-llm-${dead}-x-GhIjKl`, `tb-llm-${live}-${Number(stamp) - 1}-ReUsEd`].sort());
    expect(readdirSync(parent).sort()).toEqual([liveName, `${ownedPrefix()}StUvWx`, `tb-llm-${live}-x-NoStAm`, `tb-llm-${dead}-77-AnSwEr`, "tb-llm-a1B2c3", "something-else"].sort());

    // Once the child is gone, its folders go too.
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect((await sweepLoopbackSocketDirs(parent)).sort()).toEqual([liveName, `tb-llm-${live}-x-NoStAm`].sort());
    expect(existsSync(join(parent, "tb-llm-a1B2c3"))).toBe(true);
    // Once nothing answers on its socket, that folder goes as well.
    await new Promise((resolve) => server.close(resolve));
    expect(await sweepLoopbackSocketDirs(parent)).toEqual([`tb-llm-${dead}-77-AnSwEr`]);
  });

  it("a folder name holds the owner's pid and start time", () => {
    expect(ownedPrefix()).toBe(`tb-llm-${process.pid}-${processStartStamp(process.pid)}-`);
    expect(processStartStamp(deadPid())).toBeNull();
  });
});
