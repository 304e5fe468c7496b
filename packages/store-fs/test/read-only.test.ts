// Writes to a read-only file system fail with the system's reason (EROFS), not
// as a missing path: Node's recursive mkdir reports ENOENT there. Needs a
// read-only tmpfs mounted for the test (root with CAP_SYS_ADMIN, as in CI);
// skipped with the reason otherwise.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreError } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "zarr-fs-readonly-"));
const mounted =
  process.platform === "linux" &&
  spawnSync("mount", ["-t", "tmpfs", "-o", "ro,size=1m", "zarr-test-ro", dir]).status === 0;
if (!mounted)
  console.log("skipping read-only file system tests: cannot mount a read-only tmpfs here");

afterAll(() => {
  if (mounted) spawnSync("umount", [dir]);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!mounted)("a store on a read-only file system", () => {
  it.each([
    ["a store directory that does not exist", "new.zarr", "zarr.json"],
    ["a nested key of it", "new.zarr", "c/0/0"],
  ])("set in %s fails with EROFS, naming the key", async (_, root, key) => {
    const store = new FileSystemStore(join(dir, root));
    const error = await store.set(key, new Uint8Array([1, 2, 3])).catch((e) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toContain(JSON.stringify(key));
    expect(error.message).toContain("EROFS");
    expect((error.cause as { code?: string }).code).toBe("EROFS");
  });

  it("reads still say a missing key is missing", async () => {
    const store = new FileSystemStore(join(dir, "new.zarr"));
    expect(await store.get("zarr.json")).toBeUndefined();
  });
});
