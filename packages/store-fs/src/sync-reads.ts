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
 *   overlayfs, F2FS, ZFS, SquashFS, EROFS, bcachefs). Network and FUSE
 *   filesystems (NFS, SMB, gcsfuse, s3fs, sshfs...) keep the thread pool: a
 *   call there can wait on a server, and the event loop must go on meanwhile;
 * - every open, and the reads of at most {@link SYNC_READ_MAX_BYTES} of a file
 *   on the root's own filesystem. A file on another one (something mounted
 *   inside the root) turns the mode off for the store;
 * - a synchronous call that takes more than {@link SLOW_CALL_MS} waited for a
 *   device (a disk that seeks), not the page cache; after
 *   {@link SLOW_CALLS_IN_A_ROW} such calls in a row the store goes back to
 *   the thread pool, where reads overlap and the event loop runs while the
 *   disk works. (In a row: a garbage collection can stretch one call now and
 *   then, a cold disk stretches every one.)
 *
 * - synchronous calls never keep the event loop from its turn for more than
 *   {@link MAX_SYNC_SPAN_MS}: once they have run that long without a turn of
 *   the loop (a loop of reads settles in microtasks only), reads go through
 *   the thread pool until the loop has turned, so timers, other I/O and
 *   concurrent writes go on.
 *
 * @module
 */
import { stat, statfs } from "node:fs/promises";

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
export const MAX_SYNC_SPAN_MS = 10;

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
  #slowCalls = 0;

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

  /** Whether this read opens its file on the calling thread (the first read checks the root's filesystem). */
  async opensNow(): Promise<boolean> {
    if (this.#device === undefined) {
      this.#checking ??= this.#check();
      await this.#checking;
    }
    return typeof this.#device === "number" && spanLeft();
  }

  /** Whether `bytes` of a file opened now, on `device`, are read now too. */
  readsNow(device: number, bytes: number): boolean {
    if (this.#device !== device) {
      this.#device = false;
      return false;
    }
    return bytes <= SYNC_READ_MAX_BYTES;
  }

  /** Records the duration of a synchronous call (from `performance.now()` readings). */
  took(milliseconds: number): void {
    if (milliseconds <= SLOW_CALL_MS) this.#slowCalls = 0;
    else if (++this.#slowCalls >= SLOW_CALLS_IN_A_ROW) this.#device = false;
  }

  async #check(): Promise<void> {
    try {
      const [filesystem, info] = await Promise.all([statfs(this.root), stat(this.root)]);
      if (!LOCAL_FILESYSTEMS.has(Number(filesystem.type)) || !info.isDirectory()) {
        this.#device = false;
        return;
      }
      await this.prepare();
      this.#device ??= info.dev;
    } catch {
      // No root yet (or it cannot be examined): ask again on the next read.
    } finally {
      this.#checking = undefined;
    }
  }
}
