/**
 * The watchdog every attack runs under: a child process whose resident memory
 * and wall time are capped. Exceeding either kills it (SIGKILL), so a bomb or
 * a hang is a red test, never a dead machine.
 *
 * RSS is read from /proc every few milliseconds (VmRSS, to kill; VmHWM, the
 * kernel's own peak, to report). An address-space limit (ulimit -v) is not
 * used: WebAssembly memories reserve many GiB of address space they never
 * touch.
 *
 * @module
 */

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Caps for one child process. */
export interface Limits {
  /** Kill the child when its resident memory passes this (MiB). */
  readonly maxRssMiB: number;
  /** Kill the child after this long (ms). */
  readonly timeoutMs: number;
}

/** How a guarded child ended. */
export interface GuardedRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Peak resident memory (MiB), as the kernel counted it (VmHWM), at the last reading. */
  readonly peakRssMiB: number;
  readonly elapsedMs: number;
  /** Set when the watchdog killed the child, and why. */
  readonly killed?: "rss" | "time";
  /**
   * Set when the child printed its `finishedLine` but did not exit within
   * `exitGraceMs`, and was killed then: its work was done and reported.
   */
  readonly stalledAtExit?: true;
}

/** Options of {@link runGuarded}. */
export interface GuardedOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Written to the child's stdin, which is then closed (default: closed at once). */
  readonly input?: string | Uint8Array;
  /** Output kept per stream (default 1 MiB; the rest is dropped, never buffered). */
  readonly maxOutput?: number;
  /**
   * A prefix of the stdout line with which the child reports that its work is
   * done. From then on it has `exitGraceMs` (default 5 s) to exit, after which
   * it is killed and the run marked `stalledAtExit`: Node can deadlock in its
   * own shutdown, when `process.exit()` joins V8's background threads while one
   * of them waits for a main-thread garbage collection (nodejs/node#54918; seen
   * here about once in 400 exits of a child holding a 256 MiB heap, Node 24).
   */
  readonly finishedLine?: string;
  readonly exitGraceMs?: number;
}

const POLL_MS = 5;

/** The directory of this package: children resolve `@zarr/*` from its node_modules. */
export const ATTACKS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");

function statusMiB(pid: number): { rss: number; hwm: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const kib = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
    return m ? Number(m[1]) / 1024 : 0;
  };
  return { rss: kib("VmRSS"), hwm: kib("VmHWM") };
}

/** Runs `command args` under the watchdog. Resolves when the child has exited. */
export function runGuarded(
  command: string,
  args: readonly string[],
  limits: Limits,
  options: GuardedOptions = {},
): Promise<GuardedRun> {
  const maxOutput = options.maxOutput ?? 1 << 20;
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: options.cwd ?? ATTACKS_DIR,
    env: options.env ?? process.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const collect = (into: Buffer[]) => {
    let kept = 0;
    return (b: Buffer) => {
      if (kept >= maxOutput) return;
      const part = b.subarray(0, maxOutput - kept);
      kept += part.length;
      into.push(part);
    };
  };
  child.stdout.on("data", collect(out));
  let stalledAtExit = false;
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  if (options.finishedLine !== undefined) {
    const marker = options.finishedLine;
    let text = "";
    const watchFinished = (b: Buffer) => {
      text = (text + b.toString("latin1")).slice(-(1 << 20));
      const at = text.indexOf(marker);
      if (at < 0 || text.indexOf("\n", at) < 0) return;
      child.stdout.off("data", watchFinished);
      graceTimer = setTimeout(() => {
        stalledAtExit = true;
        child.kill("SIGKILL");
      }, options.exitGraceMs ?? 5_000);
    };
    child.stdout.on("data", watchFinished);
  }
  child.stderr.on("data", collect(err));
  child.stdin.on("error", () => {}); // the child may exit before reading its input
  child.stdin.end(options.input);

  let peak = 0;
  let killed: GuardedRun["killed"];
  const kill = (why: "rss" | "time") => {
    if (killed === undefined) killed = why;
    child.kill("SIGKILL");
  };
  const poll = setInterval(() => {
    if (child.pid === undefined) return;
    const s = statusMiB(child.pid);
    if (!s) return;
    peak = Math.max(peak, s.hwm, s.rss);
    if (s.rss > limits.maxRssMiB) kill("rss");
  }, POLL_MS);
  const timer = setTimeout(() => kill("time"), limits.timeoutMs);

  return new Promise((resolve, reject) => {
    child.on("error", (e) => {
      clearInterval(poll);
      clearTimeout(timer);
      clearTimeout(graceTimer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      clearTimeout(graceTimer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        peakRssMiB: Math.round(peak),
        elapsedMs: Math.round(performance.now() - started),
        ...(killed ? { killed } : {}),
        ...(stalledAtExit && !killed ? { stalledAtExit: true as const } : {}),
      });
    });
  });
}

/** What an attack's code returned or threw, plus how its process fared. */
export interface AttackResult {
  /** The attack's return value (JSON), when it returned. */
  readonly value?: unknown;
  /** What it threw, when it threw. */
  readonly error?: { readonly name: string; readonly message: string; readonly path?: string };
  /** Peak RSS (MiB) of the child: its own VmHWM at the end, or the watchdog's last reading. */
  readonly peakRssMiB: number;
  readonly elapsedMs: number;
  /** Set when the watchdog killed the child. */
  readonly killed?: "rss" | "time";
  /** The child's exit code (`null` when killed). */
  readonly code: number | null;
  /** The child reported its result, then hung in Node's shutdown and was killed (see {@link GuardedOptions.finishedLine}). */
  readonly stalledAtExit?: true;
  /** The child's stderr (for diagnostics). */
  readonly stderr: string;
}

const MARK = "\u0000attack-result\u0000";

/**
 * Runs `body` (the text of an async function body, ES module scope: use
 * `await import("@zarr/core")`) in a fresh Node process under `limits`, and
 * reports what it returned or threw. The child resolves packages from this
 * workspace package, so it runs the built `dist` of each package.
 *
 * @example
 * const r = await attack(`
 *   const { MemoryStore } = await import("@zarr/core");
 *   return 1;
 * `, { maxRssMiB: 300, timeoutMs: 20_000 });
 * expect(r.value).toBe(1);
 */
export async function attack(
  body: string,
  limits: Limits,
  options: Omit<GuardedOptions, "input"> & { nodeArgs?: readonly string[] } = {},
): Promise<AttackResult> {
  const program = `
const report = async (r) => {
  // VmHWM, not resourceUsage().maxRSS: the latter keeps the parent's peak across fork and exec.
  const { readFileSync } = await import("node:fs");
  const m = /^VmHWM:s+(d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"));
  const peak = m ? Number(m[1]) / 1024 : 0;
  process.stdout.write(${JSON.stringify(MARK)} + JSON.stringify({ ...r, peak }) + "\\n", () => process.exit(0));
};
try {
  const value = await (async () => {
${body}
  })();
  await report({ value: value === undefined ? null : value });
} catch (e) {
  await report({ error: { name: e?.name ?? typeof e, message: String(e?.message ?? e), path: e?.path } });
}
`;
  const run = await runGuarded(
    process.execPath,
    [...(options.nodeArgs ?? []), "--input-type=module", "-e", program],
    limits,
    { ...options, finishedLine: MARK },
  );
  const line = run.stdout.split("\n").find((l) => l.startsWith(MARK));
  const reported = line ? JSON.parse(line.slice(MARK.length)) : undefined;
  return {
    ...(reported?.value !== undefined ? { value: reported.value } : {}),
    ...(reported?.error ? { error: reported.error } : {}),
    peakRssMiB: Math.round(Math.max(reported?.peak ?? 0, run.peakRssMiB)),
    elapsedMs: run.elapsedMs,
    ...(run.killed ? { killed: run.killed } : {}),
    ...(run.stalledAtExit ? { stalledAtExit: true as const } : {}),
    code: run.code,
    stderr: run.stderr,
  };
}

/** The `zarr` command's entry point (built). */
export const ZARR_BIN = join(ATTACKS_DIR, "..", "..", "packages", "cli", "bin", "zarr.js");

/** Runs the `zarr` command with `args` under the watchdog. */
export function runZarr(
  args: readonly string[],
  limits: Limits,
  options: GuardedOptions = {},
): Promise<GuardedRun> {
  return runGuarded(process.execPath, [ZARR_BIN, ...args], limits, options);
}

/** A readable summary for assertion messages. */
export function describeRun(r: AttackResult | GuardedRun): string {
  const what =
    "error" in r && r.error
      ? `threw ${r.error.name}: ${r.error.message.slice(0, 300)}`
      : "value" in r
        ? `returned ${JSON.stringify(r.value)?.slice(0, 300)}`
        : `exited ${r.code}`;
  const killed = r.killed
    ? `, KILLED for ${r.killed}`
    : r.stalledAtExit
      ? ", killed after reporting: stalled in Node's shutdown"
      : "";
  return `${what} (peak ${r.peakRssMiB} MiB, ${r.elapsedMs} ms${killed}); stderr: ${r.stderr.slice(-600)}`;
}
