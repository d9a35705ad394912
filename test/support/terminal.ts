/**
 * A pseudo-terminal for console tests: runs a command with stdin, stdout and stderr on a real pty
 * (Python's `pty`/`os.openpty`, so `isTTY` is true and `columns` is set), and a small screen model
 * that plays back what a terminal shows (`\r`, `\n`, `\x1b[2K`; colour codes dropped).
 */
import { spawnSync } from "node:child_process";
import { runProcess } from "./cli.js";

/** Python 3 is there (the llm4ad tasks need it too); without it the pty tests skip. */
export const HAVE_PYTHON_PTY = spawnSync("python3", ["-c", "import pty, termios, fcntl"], { stdio: "ignore" }).status === 0;

const PTY_RUNNER = `
import fcntl, os, struct, subprocess, sys, termios
cols = int(sys.argv[1])
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
child = subprocess.Popen(sys.argv[2:], stdin=slave, stdout=slave, stderr=slave, close_fds=True)
os.close(slave)
out = bytearray()
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: every writer of the pty has exited
        break
    if not chunk:
        break
    out += chunk
code = child.wait()
sys.stdout.buffer.write(bytes(out))
sys.stdout.flush()
sys.exit(code if code >= 0 else 128 - code)
`;

export interface PtyResult {
  readonly code: number | null;
  /** Everything the terminal received, escape sequences included (the pty turns `\n` into `\r\n`). */
  readonly raw: string;
}

/** Runs `argv` on a pty `columns` wide and returns what it wrote there (awaited: not blocking the test worker). */
export async function runInPty(argv: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; columns?: number; timeoutMs?: number }): Promise<PtyResult> {
  const result = await runProcess("python3", ["-c", PTY_RUNNER, String(options.columns ?? 200), ...argv], { cwd: options.cwd, env: options.env, timeoutMs: options.timeoutMs ?? 60_000 });
  return { code: result.code, raw: result.stdout };
}

/** SGR sequences (colour): `\x1b[32m`, `\x1b[39m`, ... */
export const SGR_PATTERN = /\x1b\[[0-9;]*m/g;

export const stripColor = (text: string): string => text.replace(SGR_PATTERN, "");

/**
 * What a terminal shows after `raw`: the lines that scrolled (committed by `\n`) and the line the
 * cursor is on. Text overwrites from the cursor, `\r` returns to column 0, `\x1b[2K` blanks the line.
 */
export function screenOf(raw: string): { lines: string[]; current: string } {
  const lines: string[] = [];
  let line: string[] = [];
  let cursor = 0;
  const text = stripColor(raw);
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\x1b") {
      const match = /^\x1b\[([0-9;]*)([A-Za-z])/.exec(text.slice(i));
      if (match === null) throw new Error(`unexpected escape at ${i}: ${JSON.stringify(text.slice(i, i + 10))}`);
      if (match[2] === "K" && match[1] === "2") line = [];
      else throw new Error(`escape sequence the console should not send: ${JSON.stringify(match[0])}`);
      i += match[0].length - 1;
    } else if (ch === "\r") {
      cursor = 0;
    } else if (ch === "\n") {
      lines.push(line.join("").trimEnd());
      line = [];
      cursor = 0;
    } else {
      while (line.length < cursor) line.push(" ");
      line[cursor] = ch;
      cursor += 1;
    }
  }
  return { lines, current: line.join("").trimEnd() };
}

/** Every text drawn right after `\r\x1b[2K` (colour dropped), up to the next control character: the live line's frames and the lines printed over it. */
export function framesOf(raw: string): string[] {
  return stripColor(raw)
    .split("\r\x1b[2K")
    .slice(1)
    .map((segment) => segment.split(/[\r\n\x1b]/)[0]!)
    .filter((frame) => frame.length > 0);
}
