// releaseBuffer (@zarr/core/codec): frees what a codec owns at once, and
// never memory that others may share (a pool slice, part of a buffer, a
// SharedArrayBuffer), where ArrayBuffer.prototype.transfer exists.
import { releaseBuffer } from "@zarr/core/codec";
import { describe, expect, it } from "vitest";

describe("releaseBuffer", () => {
  const hasTransfer =
    typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === "function";

  it.skipIf(!hasTransfer)(
    "frees a whole buffer of 64 KiB or more at once (up to 64 bytes unused after it)",
    () => {
      for (const [size, used] of [
        [64 * 1024, 64 * 1024],
        [100_064, 100_000],
      ]) {
        const view = new Uint8Array(new ArrayBuffer(size), 0, used);
        expect(releaseBuffer(view)).toBe(true);
        expect(view.length).toBe(0); // detached
      }
    },
  );

  it("leaves alone what others may share: slices, pool buffers, small and shared buffers", () => {
    const big = new Uint8Array(256 * 1024);
    const kept = [
      big.subarray(0, 128 * 1024), // part of a buffer
      big.subarray(0, big.length - 65), // all but 65 bytes of it
      big.subarray(1), // not from its start
      Buffer.allocUnsafe(1000), // a slice of Node's Buffer pool
      new Uint8Array(1000), // below the threshold
      new Uint8Array(new SharedArrayBuffer(128 * 1024)),
    ];
    for (const view of kept) {
      const length = view.length;
      expect(releaseBuffer(view)).toBe(false);
      expect(view.length).toBe(length);
    }
    expect(big.length).toBe(256 * 1024);
  });

  it.skipIf(hasTransfer)("does nothing where ArrayBuffer.prototype.transfer is missing", () => {
    const view = new Uint8Array(128 * 1024);
    expect(releaseBuffer(view)).toBe(false);
    expect(view.length).toBe(128 * 1024);
  });
});
