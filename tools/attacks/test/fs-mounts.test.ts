// Attacks on @zarr/store-fs through mounts inside its root or over it, each in
// a child process of its own mount namespace (`unshare -m`, as root): a tmpfs
// mounted inside the root, a FUSE filesystem whose server never answers (a
// hung network mount) inside the root or over the root itself, and FUSE
// servers that answer the open and then stop answering `fstat` (GETATTR) or
// `close` (FLUSH), as a network mount does when its link drops mid-read. Every
// file-system call of a read goes through libuv's thread pool, so a read
// through such a mount stays pending while the event loop goes
// on. (Synchronous opens, tried for speed, froze the whole process here, which
// then ignored SIGTERM; so did the synchronous fstat and close of 2026-11-28.)
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ATTACKS_DIR, runGuarded } from "../src/index.js";

const LIMITS = { maxRssMiB: 400, timeoutMs: 20_000 };
const PYTHON = "/usr/bin/python3";

/** Why mounts cannot be made here, or `undefined` when they can. */
function mountsUnavailable(): string | undefined {
  if (process.platform !== "linux") return "not Linux";
  if (process.getuid?.() !== 0) return "not root";
  if (!existsSync(PYTHON)) return `no ${PYTHON}`;
  try {
    execFileSync("unshare", ["-m", "--propagation", "private", "true"], { stdio: "ignore" });
  } catch {
    return "unshare -m is not permitted";
  }
  return undefined;
}
const unavailable = mountsUnavailable();
if (unavailable) console.log(`skipped: mounts inside a store's root (${unavailable})`);
const noFuse = unavailable ?? (existsSync("/dev/fuse") ? undefined : "no /dev/fuse");
if (!unavailable && noFuse) console.log(`skipped: a hung FUSE mount inside the root (${noFuse})`);
/** The stalling servers are written with fusepy (Debian's python3-fusepy, over libfuse2). */
function fusepyUnavailable(): string | undefined {
  if (noFuse) return noFuse;
  try {
    execFileSync(PYTHON, ["-c", "import fusepy"], { stdio: "ignore" });
  } catch {
    return "no fusepy (apt-get install python3-fusepy)";
  }
  return undefined;
}
const noFusepy = fusepyUnavailable();
if (!noFuse && noFusepy)
  console.log(`skipped: FUSE servers that stall after the open (${noFusepy})`);

/**
 * Mounts `kind` at `mnt`, then becomes the Node child given as the rest of the
 * arguments. Kinds: "tmpfs"; "hung-fuse", a FUSE filesystem whose server never
 * answers (its descriptor left open in the child); "stall-getattr" and
 * "stall-flush", a fusepy server (a forked process that dies with the child)
 * holding one file, \`x\`, that answers lookups, the open and reads, then never
 * answers a GETATTR of the opened file or a FLUSH (attributes are never
 * cached, so an \`fstat\` asks the server).
 */
const MOUNT_THEN_EXEC = `
import ctypes, errno, os, signal, stat, sys, time
kind, mnt = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
if kind.startswith("stall-"):
    if os.fork() == 0:
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the Node child
        from fusepy import FUSE, FuseOSError, Operations
        opened = []
        class Stalling(Operations):
            def getattr(self, path, fh=None):
                if path == "/":
                    return dict(st_mode=stat.S_IFDIR | 0o755, st_nlink=2)
                if path != "/x":
                    raise FuseOSError(errno.ENOENT)
                if kind == "stall-getattr" and opened:
                    time.sleep(3600)
                return dict(st_mode=stat.S_IFREG | 0o644, st_nlink=1, st_size=len(b"fuse data"))
            def readdir(self, path, fh):
                return [".", "..", "x"]
            def open(self, path, flags):
                opened.append(path)
                return 0
            def read(self, path, size, offset, fh):
                return b"fuse data"[offset:offset + size]
            def flush(self, path, fh):
                if kind == "stall-flush":
                    time.sleep(3600)
                return 0
        FUSE(Stalling(), mnt, foreground=True, attr_timeout=0, entry_timeout=0)
        os._exit(0)
    for _ in range(400):
        if os.path.ismount(mnt):
            break
        time.sleep(0.025)
    ok = os.path.ismount(mnt)
elif kind == "tmpfs":
    ok = libc.mount(b"none", mnt.encode(), b"tmpfs", 0, b"size=1m") == 0
else:
    fd = os.open("/dev/fuse", os.O_RDWR)
    os.set_inheritable(fd, True)  # held by the Node child, never read: no answer, ever
    opts = f"fd={fd},rootmode=40000,user_id=0,group_id=0".encode()
    ok = libc.mount(b"hung", mnt.encode(), b"fuse", 0, opts) == 0
if not ok:
    print("MOUNT-FAILED", ctypes.get_errno(), flush=True)
    sys.exit(3)
if kind == "tmpfs":
    with open(os.path.join(mnt, "x"), "wb") as f:
        f.write(b"on tmpfs")
os.execv(sys.argv[3], sys.argv[3:])
`;

/** Child code: reads of a local key and of one through the mount (`THROUGH`). */
const PROGRAM = `
const { FileSystemStore } = await import("@zarr/store-fs");
const store = new FileSystemStore(process.env.STORE_ROOT);
const text = (v) => (v === undefined ? "missing" : new TextDecoder().decode(v));
const result = {};
if (process.env.MOUNT_KIND === "tmpfs") {
  result.local = text(await store.get("a"));
  result.mounted = text(await store.get("mnt/x"));
} else {
  if (process.env.THROUGH !== "a") result.local = text(await store.get("a"));
  // A key through the hung mount: the event loop must go on (a 10 ms interval keeps ticking).
  await new Promise((r) => setTimeout(r, 20));
  let ticks = 0;
  const interval = setInterval(() => { ticks++; }, 10);
  const pending = store.get(process.env.THROUGH).then((v) => "settled: " + text(v), (e) => "rejected: " + e.name);
  const window = new Promise((r) => setTimeout(() => r("pending"), 1500));
  result.hung = await Promise.race([pending, window]);
  await window; // a read that settled at once: the loop must go on after it too (its close may hang)
  clearInterval(interval);
  result.ticks = ticks;
}
process.stdout.write("RESULT " + JSON.stringify(result) + "\\n", () => process.exit(0));
`;

let base: string;
let root: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "zarr-fs-mounts-"));
  root = join(base, "root");
  await mkdir(join(root, "mnt"), { recursive: true });
  await writeFile(join(root, "a"), "local value");
  await writeFile(join(base, "mount.py"), MOUNT_THEN_EXEC);
});
afterEach(() => rm(base, { recursive: true, force: true }));

/** Runs the child with `kind` mounted at `mountPoint`, reading `through` (a key under the mount). */
async function runMounted(
  kind: "tmpfs" | "hung-fuse" | "stall-getattr" | "stall-flush",
  mountPoint: string,
  through = "mnt/x",
) {
  const run = await runGuarded(
    "unshare",
    [
      "--fork",
      "--kill-child",
      "-m",
      "--propagation",
      "private",
      PYTHON,
      join(base, "mount.py"),
      kind,
      mountPoint,
      process.execPath,
      "--input-type=module",
      "-e",
      PROGRAM,
    ],
    LIMITS,
    {
      cwd: ATTACKS_DIR,
      env: { ...process.env, STORE_ROOT: root, MOUNT_KIND: kind, THROUGH: through },
      finishedLine: "RESULT ",
      // A thread stuck in the hung mount's request can hold up the exit: no need to wait.
      exitGraceMs: 500,
    },
  );
  const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  return { run, result: line ? JSON.parse(line.slice("RESULT ".length)) : undefined };
}

describe("FileSystemStore: mounts inside or over the root never freeze the event loop", () => {
  it.skipIf(unavailable !== undefined)(
    "a tmpfs mounted inside the root: keys on both sides read right",
    async () => {
      const { run, result } = await runMounted("tmpfs", join(root, "mnt"));
      expect(run.killed, run.stderr).toBeUndefined();
      expect(result).toEqual({ local: "local value", mounted: "on tmpfs" });
    },
  );

  it.skipIf(noFuse !== undefined)(
    "a FUSE mount inside the root whose server never answers: a read through it stays pending, timers keep firing",
    async () => {
      const { run, result } = await runMounted("hung-fuse", join(root, "mnt"));
      expect(run.killed, run.stderr).toBeUndefined();
      expect(result?.local).toBe("local value");
      expect(result?.hung).toBe("pending");
      // 1.5 s of a 10 ms interval: well over 50 ticks unless the loop was frozen.
      expect(result?.ticks).toBeGreaterThan(50);
    },
  );

  it.skipIf(noFusepy !== undefined)(
    "a FUSE server that answers the open, then never a GETATTR: the read stays pending, timers keep firing",
    async () => {
      const { run, result } = await runMounted("stall-getattr", join(root, "mnt"));
      expect(run.killed, run.stderr).toBeUndefined();
      expect(result?.local).toBe("local value");
      expect(result?.hung).toBe("pending");
      expect(result?.ticks).toBeGreaterThan(50);
    },
  );

  it.skipIf(noFusepy !== undefined)(
    "a FUSE server that answers the open and reads, then never a FLUSH: the read stays pending, timers keep firing",
    async () => {
      const { run, result } = await runMounted("stall-flush", join(root, "mnt"));
      expect(run.killed, run.stderr).toBeUndefined();
      expect(result?.local).toBe("local value");
      // The read waits for its close (a close left queued is lost when a worker thread ends).
      expect(result?.hung).toBe("pending");
      expect(result?.ticks).toBeGreaterThan(50);
    },
  );

  it.skipIf(noFuse !== undefined)(
    "the same hung FUSE mounted over the root itself: a read stays pending, timers keep firing",
    async () => {
      const { run, result } = await runMounted("hung-fuse", root, "a");
      expect(run.killed, run.stderr).toBeUndefined();
      expect(result?.hung).toBe("pending");
      expect(result?.ticks).toBeGreaterThan(50);
    },
  );
});
