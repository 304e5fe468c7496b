import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { UnsupportedError } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { blobSource, bytesSource, ZipFormatError, ZipStore } from "@zarr/store-zip";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, zipBytes } from "./helpers.js";

// Archives written by other tools (Python's zipfile, Info-ZIP zip) and
// damaged or hostile archives (PKWARE APPNOTE.TXT 4.3: overall format).

const python = findPython(["zipfile"]);
if (!python) console.warn(pythonSkipReason(["zipfile"]));

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterAll(() => cleanup());

/** Runs a Python snippet with `z` bound to a zipfile writing to stdout bytes; returns the archive. */
function pyZip(body: string, args = "compression=zipfile.ZIP_DEFLATED"): Uint8Array {
  const script = `
import io, sys, zipfile
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", ${args}) as z:
${body
  .trim()
  .split("\n")
  .map((l) => `    ${l}`)
  .join("\n")}
sys.stdout.buffer.write(buf.getvalue())
`;
  return new Uint8Array(runPython(python!, script));
}

const text = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

describe.skipIf(!python)("archives written by Python's zipfile", () => {
  it("deflated and stored entries, directories, a comment", async () => {
    const bytes = pyZip(`
z.writestr("d/", "")
z.writestr("d/a.txt", "hello " * 1000)
z.writestr(zipfile.ZipInfo("d/stored"), "raw bytes", compress_type=zipfile.ZIP_STORED)
z.comment = b"x" * 1000
`);
    const store = resolveStore(await ZipStore.open(bytesSource(bytes)));
    expect(text(await store.get("d/a.txt"))).toBe("hello ".repeat(1000));
    expect(text(await store.get("d/stored", { offset: 4, length: 5 }))).toBe("bytes");
    expect(await store.get("d")).toBeUndefined();
    expect(await store.listDir("")).toEqual({ keys: [], prefixes: ["d"] });
  });

  it("entries with data descriptors (written to an unseekable stream)", async () => {
    const script = `
import sys, zipfile
class W:
    def __init__(self, f): self.f = f
    def write(self, b): return self.f.write(b)
    def flush(self): pass
with zipfile.ZipFile(W(sys.stdout.buffer), "w", compression=zipfile.ZIP_DEFLATED) as z:
    with z.open("streamed", "w") as f:
        f.write(b"0123456789" * 500)
`;
    const bytes = new Uint8Array(runPython(python!, script));
    const store = await ZipStore.open(bytesSource(bytes));
    expect(store.entry("streamed")!.flags & 8).toBe(8);
    expect(text(await store.get("streamed"))).toBe("0123456789".repeat(500));
  });

  it("duplicate names: the last entry wins, as in zipfile", async () => {
    const bytes = pyZip(`
import warnings
warnings.simplefilter("ignore")
z.writestr("k", "first")
z.writestr("k", "second")
`);
    const store = await ZipStore.open(bytesSource(bytes));
    expect(text(await store.get("k"))).toBe("second");
  });

  it("rejects unsupported compression methods and encrypted entries with UnsupportedError", async () => {
    const bytes = pyZip(`z.writestr("b", "bzip2 data " * 10)`, "compression=zipfile.ZIP_BZIP2");
    const store = await ZipStore.open(bytesSource(bytes));
    await expect(store.get("b")).rejects.toThrow(UnsupportedError);
    await expect(store.get("b")).rejects.toThrow(/compression method 12/);
    const enc = pyZip(`z.writestr("e", "secret")`);
    // Set the "encrypted" flag in the central directory entry.
    const at = findSig(enc, 0x02014b50);
    enc[at + 8] |= 1;
    await expect((await ZipStore.open(bytesSource(enc))).get("e")).rejects.toThrow(/encrypted/);
  });

  it.each([
    ["../evil", /"\.\." segment/],
    ["/abs/path", /absolute/],
    ["a\\\\b", /backslash/],
    ["C:/windows", /drive letter/],
    ["a//b", /empty segment/],
  ])("rejects an archive with the entry name %s", async (name, reason) => {
    const bytes = pyZip(`z.writestr(zipfile.ZipInfo(${JSON.stringify(name)}), "x")`);
    const err = await ZipStore.open(bytesSource(bytes)).catch((e) => e);
    expect(err).toBeInstanceOf(ZipFormatError);
    expect(err.message).toMatch(/would escape the archive root/);
    expect(err.message).toMatch(reason);
  });

  it("zip64 archives written by zipfile (forced zip64 entries)", async () => {
    const bytes = pyZip(`
with z.open("big", "w", force_zip64=True) as f:
    f.write(b"z" * 100000)
`);
    const store = await ZipStore.open(bytesSource(bytes));
    expect((await store.get("big"))!.length).toBe(100000);
  });
});

describe("archives written by Info-ZIP zip", () => {
  const haveZip = spawnSync("zip", ["-v"]).status === 0;
  if (!haveZip)
    console.warn("skipping Info-ZIP checks: no `zip` on PATH (Debian: apt-get install zip)");
  it.skipIf(!haveZip)(
    "reads `zip -r` and `zip -fz` (zip64) archives, with prepended data",
    async () => {
      const work = join(dir, "infozip");
      spawnSync("mkdir", ["-p", join(work, "tree/sub")]);
      spawnSync("sh", [
        "-c",
        `cd ${work}/tree && printf 'abc%.0s' $(seq 1 3000) > sub/f && printf x > g`,
      ]);
      for (const flags of [["-r"], ["-r", "-fz"], ["-r", "-0"]]) {
        const out = join(work, `t${flags.join("")}.zip`);
        const r = spawnSync("zip", ["-q", ...flags, out, "."], { cwd: join(work, "tree") });
        expect(r.status).toBe(0);
        const bytes = new Uint8Array(await readFile(out));
        for (const prefix of [0, 777]) {
          const withStub = new Uint8Array(prefix + bytes.length);
          withStub.set(bytes, prefix);
          const store = await ZipStore.open(bytesSource(withStub));
          expect(store.directory.prepended).toBe(prefix);
          expect(text(await store.get("sub/f"))).toBe("abc".repeat(3000));
          expect(text(await store.get("g"))).toBe("x");
        }
      }
    },
  );
});

describe("damaged and hostile archives fail with ZipFormatError, never wrong data", () => {
  const value = new TextEncoder().encode("some compressible value ".repeat(200));

  it("not a zip, empty, truncated", async () => {
    for (const bytes of [
      new Uint8Array(0),
      new Uint8Array(100),
      new TextEncoder().encode("PK".repeat(100)),
    ]) {
      await expect(ZipStore.open(bytesSource(bytes))).rejects.toThrow(ZipFormatError);
    }
    const good = await zipBytes([["k", value]]);
    await expect(ZipStore.open(bytesSource(good.subarray(0, good.length - 5)))).rejects.toThrow(
      ZipFormatError,
    );
    await expect(ZipStore.open(bytesSource(good.subarray(40)))).rejects.toThrow(
      /overlaps|outside|malformed/,
    );
  });

  it("a flipped byte in deflated data or a wrong CRC", async () => {
    const good = await zipBytes([["k", value]]);
    const bad = good.slice();
    bad[40] ^= 0xff;
    await expect((await ZipStore.open(bytesSource(bad))).get("k")).rejects.toThrow(ZipFormatError);
    const stored = await zipBytes([["k", value]], { compress: false });
    // A wrong CRC in the central directory only: the local header disagrees.
    const centralOnly = stored.slice();
    centralOnly[findSig(centralOnly, 0x02014b50) + 16] ^= 1;
    await expect((await ZipStore.open(bytesSource(centralOnly))).get("k")).rejects.toThrow(
      /local header's CRC-32 .* differs/,
    );
    // The same wrong CRC in both headers: the data does not match it.
    const badCrc = centralOnly.slice();
    badCrc[14] ^= 1;
    for (const range of [undefined, { offset: 10, length: 5 }, { suffix: 3 }]) {
      const store = resolveStore(await ZipStore.open(bytesSource(badCrc)));
      await expect(store.get("k", range)).rejects.toThrow(/CRC-32 mismatch/);
    }
    const store = await ZipStore.open(bytesSource(badCrc), { verifyChecksums: false });
    expect(await store.get("k")).toEqual(value);
  });

  it("a deflate bomb: declared size too small, or an impossible ratio", async () => {
    const zeros = new Uint8Array(20 << 20);
    const bomb = await zipBytes([["z", zeros]]);
    const cd = findSig(bomb, 0x02014b50);
    const view = new DataView(bomb.buffer, bomb.byteOffset);
    const small = bomb.slice();
    new DataView(small.buffer).setUint32(cd + 24, 1000, true); // claims 1000 bytes
    new DataView(small.buffer).setUint32(22, 1000, true); // in both headers
    await expect((await ZipStore.open(bytesSource(small))).get("z")).rejects.toThrow(
      /more than the declared 1000/,
    );
    const huge = bomb.slice();
    new DataView(huge.buffer).setUint32(cd + 24, 0xfffffff0, true);
    expect(view.getUint32(cd + 20, true)).toBeLessThan(100_000);
    await expect((await ZipStore.open(bytesSource(huge))).get("z")).rejects.toThrow(/claims/);
  });

  it("entry data pointing into the central directory or past the end", async () => {
    const good = await zipBytes([["k", value]], { compress: false });
    const bad = good.slice();
    const cd = findSig(bad, 0x02014b50);
    new DataView(bad.buffer).setUint32(cd + 42, good.length - 10, true);
    await expect(ZipStore.open(bytesSource(bad))).rejects.toThrow(/overlaps the central directory/);
  });
});

describe("sources", () => {
  it("reads from a Blob (browser File inputs)", async () => {
    const bytes = await zipBytes([["a/b", new Uint8Array([1, 2, 3])]]);
    const store = await ZipStore.open(blobSource(new Blob([bytes as Uint8Array<ArrayBuffer>])));
    expect(await store.get("a/b", { suffix: 2 })).toEqual(new Uint8Array([2, 3]));
  });

  it("one read opens a small archive; a stored ranged get reads the header once, then only the range", async () => {
    const big = Uint8Array.from({ length: 100_000 }, (_, i) => i & 0xff);
    const bytes = await zipBytes(
      [
        ["zarr.json", new Uint8Array(10)],
        ["shard", big],
      ],
      { compress: false },
    );
    const reads: [number, number][] = [];
    const source = bytesSource(bytes);
    const counted = {
      ...source,
      read: (o: number, l: number) => {
        reads.push([o, l]);
        return source.read(o, l);
      },
    };
    // Unverified ranged reads: the local header (with some slack for its extra field), then the ranges.
    const store = await ZipStore.open(counted, { verifyRangedReadsUpTo: 0 });
    expect(reads.length).toBe(1);
    reads.length = 0;
    expect(await store.get("shard", { offset: 500, length: 10 })).toEqual(big.slice(500, 510));
    expect(await store.get("shard", { suffix: 16 })).toEqual(big.slice(-16));
    expect(reads.map(([, l]) => l)).toEqual([30 + 5 + 256, 10, 16]);
    reads.length = 0;
    expect(await store.get("zarr.json")).toEqual(new Uint8Array(10));
    expect(reads.length).toBe(1);

    // Verified (the default for entries up to 1 MiB): the first ranged read reads the
    // entry whole, header and data in one request, and checks its CRC-32; concurrent
    // ranged reads share that read; later ones read only their range.
    reads.length = 0;
    const checked = await ZipStore.open(counted);
    reads.length = 0;
    const parts = await Promise.all(
      [0, 1000, 50_000].map((offset) => checked.get("shard", { offset, length: 10 })),
    );
    expect(parts).toEqual([0, 1000, 50_000].map((o) => big.slice(o, o + 10)));
    expect(await checked.get("shard", { suffix: 16 })).toEqual(big.slice(-16));
    expect(reads.map(([, l]) => l)).toEqual([30 + 5 + 100_000, 16]);
  });
});

function findSig(bytes: Uint8Array, sig: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = bytes.length - 4; i >= 0; i--) if (view.getUint32(i, true) === sig) return i;
  throw new Error("signature not found");
}
