/**
 * When a store opens and reads a file on the calling thread instead of through
 * libuv's thread pool.
 *
 * A thread-pool trip wakes a pool thread and then the event loop: 20–50 µs on a
 * 2-core machine, several times what opening a file and reading a small value
 * from the page cache cost as plain system calls. A read of 1,024 chunks of
 * 16 KiB (two trips each: open, read) spent most of its time on those trips.
 * So, where a call cannot wait long, it runs synchronously:
 *
 * - only on Linux with descriptor paths, with the root on a local disk or
 *   memory filesystem (by `statfs` type: ext2/3/4, XFS, Btrfs, tmpfs, ramfs,
 *   overlayfs, F2FS, ZFS, SquashFS, EROFS, bcachefs), and nothing mounted
 *   inside the root (by `/proc/self/mountinfo`, read again every
 *   {@link MOUNTS_RECHECK_MS} in the background). Network and FUSE
 *   filesystems (NFS, SMB, gcsfuse, s3fs, sshfs...) keep the thread pool: a
 *   call there can wait on a server forever, and the event loop must go on;
 * - every open, and reads of at most {@link SYNC_READ_MAX_BYTES} (one
 *   request's total) of a file on the root's own device. A file on another
 *   one (something mounted inside the root since the last look) turns the
 *   mode off for the store;
 * - synchronous calls never keep the event loop from its turn for more than
 *   {@link MAX_SYNC_SPAN_MS}: each is checked just before it runs (so reads
 *   started together, or the many ranges of one request, share the span),
 *   and once the span is used up, calls go through the thread pool until the
 *   loop has turned, so timers, other I/O and concurrent writes go on;
 * - a synchronous system call that takes more than {@link SLOW_CALL_MS}
 *   waited for a device (a disk that seeks), not the page cache; after
 *   {@link SLOW_CALLS_IN_A_ROW} such calls in a row the store goes back to
 *   the thread pool, where reads overlap and the event loop runs while the
 *   disk works. Only the call itself is timed (not the awaits around it),
 *   and "in a row" because a garbage collection can stretch one call now and
 *   then, while a cold disk stretches every one.
 *
 * @module
 */
import { readFile, stat, statfs } from "node:fs/promises";

/**
 * The largest read done on the calling thread: a copy from the page cache of
 * about 50 µs. Larger reads go to the thread pool, where the copy runs on
 * another core while this thread decodes (64 blosc chunks of 780 KB read
 * synchronously took about 30 ms of the thread's time in `zarr get`).
 */
export const SYNC_READ_MAX_BYTES = 256 * 1024;
/** A synchronous open or read taking longer than this waited for a device. */
export const SLOW_CALL_MS = 4;
/** Slow calls in a row after which a store reads through the thread pool again. */
export const SLOW_CALLS_IN_A_ROW = 3;

/** The longest run of synchronous calls between two turns of the event loop. */
export const MAX_SYNC_SPAN_MS = 5;
/** How often the mount table is read again (in the background) while synchronous calls are on. */
export const MOUNTS_RECHECK_MS = 5000;

/** Reports how long one synchronous system call took (ms). */
export type SyncTimer = (milliseconds: number) => void;

/** When the current run of synchronous calls began; `undefined` when the event loop has turned since. */
let spanStart: number | undefined;

/**
 * Whether another synchronous call fits in the current span; the first call
 * of a span asks to be told when the event loop turns.
 */
function spanLeft(): boolean {
  const now = performance.now();
  if (spanStart === undefined) {
    spanStart = now;
    setImmediate(() => {
      spanStart = undefined;
    });
  }
  return now - spanStart < MAX_SYNC_SPAN_MS;
}

/** `statfs` types (Linux magic numbers) of filesystems on local disks or in memory. */
const LOCAL_FILESYSTEMS = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // XFS
  0x9123683e, // Btrfs
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0x794c7630, // overlayfs
  0xf2f52010, // F2FS
  0x2fc12fc1, // ZFS
  0x73717368, // SquashFS
  0xe0f5e1e2, // EROFS
  0xca451a4e, // bcachefs
]);

/** The decision for one store (see the module's description). */
export class SyncReads {
  /** The root's device while synchronous calls are on; `false` when off; `undefined` until checked. */
  #device: number | false | undefined;
  #checking: Promise<void> | undefined;
  #checkedAt = 0;
  #slowCalls = 0;
  /** {@link took}, bound: handed to the calls that run synchronously. */
  readonly timer: SyncTimer = (milliseconds) => this.took(milliseconds);

  /**
   * @param root - the store's root (its real path).
   * @param enabled - whether the platform allows it at all (Linux descriptor paths).
   * @param prepare - finishes what the synchronous open needs (the root's kernel path).
   */
  constructor(
    readonly root: string,
    enabled: boolean,
    readonly prepare: () => Promise<void>,
  ) {
    if (!enabled) this.#device = false;
  }

  /**
   * A promise to await before the first read (the root's filesystem and mounts
   * are being examined); `undefined` once known. Starts a look at the mounts
   * in the background when the last one is older than {@link MOUNTS_RECHECK_MS}.
   */
  ready(): Promise<void> | undefined {
    if (this.#device === undefined) {
      this.#checking ??= this.#check();
      return this.#checking;
    }
    if (this.#device !== false && performance.now() - this.#checkedAt > MOUNTS_RECHECK_MS) {
      this.#checking ??= this.#check();
    }
    return undefined;
  }

  /** Whether the open about to run goes on the calling thread (ask right before it). */
  opensNow(): boolean {
    return typeof this.#device === "number" && spanLeft();
  }

  /**
   * Whether the read about to run, of a file on `device`, for a request of
   * `bytes` in all, goes on the calling thread (ask right before it). A file
   * on another device than the root's turns synchronous calls off.
   */
  readsNow(device: number, bytes: number): boolean {
    if (typeof this.#device !== "number") return false;
    if (this.#device !== device) {
      this.#device = false;
      return false;
    }
    return bytes <= SYNC_READ_MAX_BYTES && spanLeft();
  }

  /** Whether synchronous calls are on (for tests). */
  get on(): boolean {
    return typeof this.#device === "number";
  }

  /** Records how long one synchronous system call took. */
  took(milliseconds: number): void {
    if (milliseconds <= SLOW_CALL_MS) this.#slowCalls = 0;
    else if (++this.#slowCalls >= SLOW_CALLS_IN_A_ROW) this.#device = false;
  }

  /** Examines the root: never rejects (reads await it). */
  async #check(): Promise<void> {
    try {
      let filesystem: Awaited<ReturnType<typeof statfs>>;
      let info: Awaited<ReturnType<typeof stat>>;
      try {
        [filesystem, info] = await Promise.all([statfs(this.root), stat(this.root)]);
      } catch {
        return; // no root yet: ask again on the next read
      }
      const mounts = await readFile("/proc/self/mountinfo", "utf8").catch(() => undefined);
      if (
        mounts === undefined ||
        !LOCAL_FILESYSTEMS.has(Number(filesystem.type)) ||
        !info.isDirectory() ||
        mountsInside(mounts, this.root)
      ) {
        this.#device = false;
        return;
      }
      await this.prepare();
      // A look in the background never turns the mode back on.
      if (this.#device !== false) this.#device = info.dev;
    } catch {
      // The root's kernel path could not be learned: ask again on the next read.
    } finally {
      this.#checkedAt = performance.now();
      this.#checking = undefined;
    }
  }
}

/**
 * Whether the mount table (`/proc/self/mountinfo`: the fifth field of each
 * line is the mount point, with spaces, tabs, newlines and backslashes as
 * octal escapes) has a mount point strictly inside `root`.
 */
export function mountsInside(mountinfo: string, root: string): boolean {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  for (const line of mountinfo.split("\n")) {
    const field = line.split(" ")[4];
    if (field === undefined) continue;
    const point = field.replace(/\\([0-7]{3})/g, (_, octal: string) =>
      String.fromCharCode(Number.parseInt(octal, 8)),
    );
    if (point.startsWith(prefix) && point.length > prefix.length) return true;
  }
  return false;
}
