/**
 * Synchronous opens and small reads (src/sync-reads.ts): where they happen
 * they take no thread-pool trip, they never hold the event loop for long, and
 * they return the very bytes the thread pool returns; where they must not
 * happen (another filesystem, slow calls, a network root, `syncReads: false`)
 * they do not.
 */
import { statfsSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FileSystemStore } from "@zarr/store-fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  MAX_SYNC_SPAN_MS,
  mountsInside,
  SYNC_READ_MAX_BYTES,
  SyncReads,
} from "../src/sync-reads.js";
import { tempDir } from "./helpers.js";

let dir: string;
let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, root, cleanup } = await tempDir());
});
afterEach(() => cleanup());

const linux = process.platform === "linux";
/** ext2/3/4, XFS, Btrfs, tmpfs, overlayfs: what test machines put their temporary directory on. */
const COMMON_LOCAL = [0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630];
function tmpIsLocal(): boolean {
  if (!linux) return false;
  const local = COMMON_LOCAL.includes(Number(statfsSync(process.env.TMPDIR ?? "/tmp").type));
  if (!local) console.log("skipped: the temporary directory is not on a common local filesystem");
  return local;
}
const local = tmpIsLocal();

/** Byte-for-byte equality (vitest's `toEqual` walks a MiB element by element, slowly). */
const same = (a: Uint8Array | undefined, b: Uint8Array | undefined) =>
  a !== undefined && b !== undefined && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);

const pattern = (n: number, seed: number) => {
  const a = new Uint8Array(n);
  for (let i = 0; i < n; i++) a[i] = (i * 31 + seed) & 255;
  return a;
};

/** How many of `reads` settle before one `setImmediate` callback runs (all of them: no trip). */
async function readsBeforeTurn(reads: () => Promise<unknown>[]): Promise<number> {
  let turned = false;
  setImmediate(() => {
    turned = true;
  });
  let settled = 0;
  for (const read of reads()) {
    await read;
    if (!turned) settled++;
  }
  return settled;
}

describe.skipIf(!local)("synchronous reads on a local filesystem", () => {
  it("small values, ranges and sizes settle without a thread-pool trip once the root is known", async () => {
    const store = new FileSystemStore(root);
    for (let i = 0; i < 20; i++) await store.set(`c/${i}`, pattern(16_384, i));
    await store.get("c/0"); // the first read checks the root's filesystem
    const reads = () =>
      Array.from({ length: 20 }, (_, i) =>
        i % 3 === 0
          ? store.get(`c/${i}`)
          : i % 3 === 1
            ? store.get(`c/${i}`, { offset: 100, length: 50 })
            : store.getSize(`c/${i}`),
      );
    // Each settles before the next starts (awaited in turn), so 20 trips would need 20 turns.
    expect(await readsBeforeTurn(reads)).toBe(20);
  });

  it("with syncReads: false, every read takes the thread pool", async () => {
    const store = new FileSystemStore(root, { syncReads: false });
    for (let i = 0; i < 5; i++) await store.set(`c/${i}`, pattern(1000, i));
    await store.get("c/0");
    expect(
      await readsBeforeTurn(() => Array.from({ length: 5 }, (_, i) => store.get(`c/${i}`))),
    ).toBeLessThan(5);
  });

  it("values just under, at and over the synchronous limit read the same bytes either way", async () => {
    const sizes = [
      0,
      1,
      4095,
      SYNC_READ_MAX_BYTES - 1,
      SYNC_READ_MAX_BYTES,
      SYNC_READ_MAX_BYTES + 1,
    ];
    const fast = new FileSystemStore(root);
    const pooled = new FileSystemStore(root, { syncReads: false });
    for (const [i, n] of sizes.entries()) await fast.set(`v/${i}`, pattern(n, i));
    await fast.get("v/0");
    for (const [i, n] of sizes.entries()) {
      const a = await fast.get(`v/${i}`);
      const b = await pooled.get(`v/${i}`);
      expect(same(a, pattern(n, i))).toBe(true);
      expect(same(b, a)).toBe(true);
      for (const range of [
        { offset: 0, length: 7 },
        { offset: Math.max(0, n - 3) },
        { suffix: 5 },
        { offset: n + 10 },
      ]) {
        const [x, y] = [await fast.get(`v/${i}`, range), await pooled.get(`v/${i}`, range)];
        expect(x?.length).toBe(y?.length);
        expect(same(x, y)).toBe(true);
      }
      // getInto: straight into views (a value's bytes split in two).
      const views = [new Uint8Array(n >> 1), new Uint8Array(n - (n >> 1))];
      expect(await fast.getInto(`v/${i}`, views)).toBe(n);
      expect(same(Buffer.concat(views), pattern(n, i))).toBe(true);
    }
  });

  it("getInto with more views than one preadv takes (1,024), read synchronously", async () => {
    const store = new FileSystemStore(root);
    const n = 3000 * 37;
    expect(n).toBeLessThan(SYNC_READ_MAX_BYTES);
    await store.set("many", pattern(n, 5));
    await store.get("many");
    const views = Array.from({ length: 3000 }, () => new Uint8Array(37));
    expect(await readsBeforeTurn(() => [store.getInto("many", views)])).toBe(1);
    expect(same(Buffer.concat(views), pattern(n, 5))).toBe(true);
  });

  it(`a loop of reads lets timers run at least every ${MAX_SYNC_SPAN_MS} ms or so (not only when it ends)`, async () => {
    const store = new FileSystemStore(root);
    for (let i = 0; i < 50; i++) await store.set(`c/${i}`, pattern(65_536, i));
    await store.get("c/0");
    const started = performance.now();
    let fired: number | undefined;
    setTimeout(() => {
      fired = performance.now() - started;
    }, 1);
    let reads = 0;
    while (performance.now() - started < 400) {
      await store.get(`c/${reads++ % 50}`);
    }
    expect(reads).toBeGreaterThan(50);
    expect(fired).toBeDefined();
    // Without a bound on the synchronous span the timer fires only after the loop (400 ms).
    expect(fired!).toBeLessThan(200);
  });

  it(`thousands of reads started together share one ${MAX_SYNC_SPAN_MS} ms span: the loop turns before they all settle`, async () => {
    const store = new FileSystemStore(root);
    for (let i = 0; i < 100; i++) await store.set(`c/${i}`, pattern(16_384, i));
    await store.get("c/0");
    let turned = false;
    let settledBeforeTurn = 0;
    const started = performance.now();
    let firstTurn = Number.POSITIVE_INFINITY;
    setImmediate(() => {
      turned = true;
      firstTurn = performance.now() - started;
    });
    const reads = Array.from({ length: 3000 }, (_, i) =>
      store.get(`c/${i % 100}`).then((v) => {
        if (!turned) settledBeforeTurn++;
        return v;
      }),
    );
    const values = await Promise.all(reads);
    expect(values.every((v, i) => same(v, pattern(16_384, i % 100)))).toBe(true);
    // 3,000 opens and reads take far more than the span: some waited for the turn.
    expect(settledBeforeTurn).toBeLessThan(3000);
    expect(firstTurn).toBeLessThan(150);
    // And the store still reads synchronously afterwards (the shared turn is no slow call).
    expect(
      await readsBeforeTurn(() => Array.from({ length: 20 }, (_, i) => store.get(`c/${i}`))),
    ).toBe(20);
  });

  it("one request of 30,000 one-byte ranges lets the loop turn while it reads, not only at its end", async () => {
    const store = new FileSystemStore(root);
    const value = pattern(60_000, 3);
    await store.set("v", value);
    await store.get("v");
    const requests = Array.from({ length: 30_000 }, (_, k) => ({
      key: "v",
      range: { offset: k * 2, length: 1 },
    }));
    // A chain of turns: the longest gap between two is how long the loop was held.
    let last = performance.now();
    let longest = 0;
    let running = true;
    const tick = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    const values = await store.getPartialValues(requests);
    const took = performance.now() - started;
    running = false;
    longest = Math.max(longest, performance.now() - last); // the stretch up to the end
    expect(values.every((v, k) => v?.length === 1 && v[0] === value[k * 2])).toBe(true);
    // Without the span checked before each call, the reads held the loop for the
    // whole request; now only the request's own preparation (validating and
    // grouping 30,000 ranges, as with syncReads: false) runs in one stretch.
    expect(longest).toBeLessThan(took / 2);
  });
});

describe("the decision (SyncReads)", () => {
  const none = async () => {};
  /** Whether synchronous calls are on once the root has been examined. */
  const decided = async (reads: SyncReads) => {
    await reads.ready();
    return reads.on;
  };

  it.skipIf(!local)(
    "a root on a local filesystem reads synchronously; a missing root not yet",
    async () => {
      expect(await decided(new SyncReads(dir, true, none))).toBe(true);
      expect(await decided(new SyncReads(join(dir, "nothing"), true, none))).toBe(false);
      await writeFile(join(dir, "file"), "x");
      // A root that is a file (not a directory) never reads synchronously.
      expect(await decided(new SyncReads(join(dir, "file"), true, none))).toBe(false);
    },
  );

  it.skipIf(!linux)(
    "roots on filesystems that are not local disks or memory keep the thread pool",
    async () => {
      // procfs and sysfs stand for what the list leaves out (NFS, SMB, FUSE): not in it.
      expect(await decided(new SyncReads("/proc", true, none))).toBe(false);
      expect(await decided(new SyncReads("/sys", true, none))).toBe(false);
      // "/" has every mount inside it.
      expect(await decided(new SyncReads("/", true, none))).toBe(false);
    },
  );

  it("off where the platform does not allow it", async () => {
    expect(await decided(new SyncReads(dir, false, none))).toBe(false);
  });

  it("mount points strictly inside the root, escapes decoded (/proc/self/mountinfo)", () => {
    const line = (point: string) =>
      `36 35 98:0 / ${point} rw,noatime master:1 - ext3 /dev/root rw,errors=continue`;
    const table = [
      line("/"),
      line("/data"),
      line("/dataset/other"),
      line("/srv/my\\040dir/m"),
    ].join("\n");
    expect(mountsInside(table, "/data")).toBe(false); // the root itself is a mount point: fine
    expect(mountsInside(table, "/dat")).toBe(false);
    expect(mountsInside(table, "/data/other/x")).toBe(false);
    expect(mountsInside(`${table}\n${line("/data/x/y")}`, "/data")).toBe(true);
    expect(mountsInside(table, "/srv/my dir")).toBe(true);
    expect(mountsInside(table, "/srv/my\\040dir")).toBe(false);
    expect(mountsInside(table, "/")).toBe(true);
    expect(mountsInside("", "/data")).toBe(false);
  });

  it.skipIf(!local)(
    "a file on another device (a mount inside the root) turns it off for the store",
    async () => {
      const reads = new SyncReads(dir, true, none);
      expect(await decided(reads)).toBe(true);
      const { dev } = statSync(dir);
      expect(reads.readsNow(dev, 100)).toBe(true);
      expect(reads.readsNow(dev, SYNC_READ_MAX_BYTES + 1)).toBe(false);
      expect(reads.readsNow(dev + 1, 100)).toBe(false);
      expect(reads.on).toBe(false);
      expect(reads.opensNow()).toBe(false);
      expect(reads.readsNow(dev, 100)).toBe(false);
    },
  );

  it.skipIf(!local)(
    "slow calls in a row (a disk that seeks) turn it off; one now and then (a GC pause) does not",
    async () => {
      const reads = new SyncReads(dir, true, none);
      expect(await decided(reads)).toBe(true);
      for (let i = 0; i < 10; i++) {
        reads.took(50);
        reads.took(50);
        reads.took(0.05);
      }
      expect(reads.on).toBe(true);
      reads.took(50);
      reads.took(50);
      expect(reads.on).toBe(true);
      reads.took(50);
      expect(reads.on).toBe(false);
    },
  );

  it.skipIf(!local)(
    "the root's kernel path is learned once, before the first synchronous open",
    async () => {
      let prepared = 0;
      const reads = new SyncReads(dir, true, async () => {
        prepared++;
      });
      await Promise.all([reads.ready(), reads.ready(), reads.ready()]);
      expect(prepared).toBe(1);
      expect(reads.ready()).toBeUndefined();
    },
  );
});
