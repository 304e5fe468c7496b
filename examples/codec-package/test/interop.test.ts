// Data written by the reference implementation: zarr-python 2.13 + numcodecs 0.11
// (Debian's python3-zarr, python3-numcodecs). v2 arrays use the numcodecs ids as
// `compressor`/`filters` (v2 spec: "compressor", "filters"); the v3 array names
// `numcodecs.adler32` in `codecs` (v3 core: "codecs"), with chunks numcodecs encoded.
import "@zarr/v2-compat/register";
import "zarr-codec-checksum32/register";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CodecError, MemoryStore, openArray, openGroup } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Checksum32Codec } from "zarr-codec-checksum32";

const MODULES = ["zarr", "numcodecs", "numpy"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));

const SCRIPT = `
import base64, json, sys, numpy as np, zarr, numcodecs
root = zarr.open_group(zarr.DirectoryStore(sys.argv[1]), mode="w")
root.attrs["writer"] = "zarr-python " + zarr.__version__
a = root.create_dataset("adler", shape=(30, 7), chunks=(8, 4), dtype="<i4", compressor=numcodecs.Adler32(), fill_value=0)
a[:] = np.arange(210, dtype="<i4").reshape(30, 7) - 100
c = root.create_dataset("crc", shape=(50,), chunks=(16,), dtype=">f8", compressor=numcodecs.CRC32(), filters=[numcodecs.Adler32()], fill_value=-1.5)
c[:45] = np.linspace(0, 1, 45)
rng = np.random.default_rng(7)
blobs = [rng.integers(0, 256, n, dtype="u1").tobytes() for n in (0, 1, 5551, 5552, 5553, 100000)]
out = {"blobs": [], "v3chunks": []}
for b in blobs:
    out["blobs"].append({"raw": base64.b64encode(b).decode(), "adler32": base64.b64encode(numcodecs.Adler32().encode(b).tobytes()).decode(), "crc32": base64.b64encode(numcodecs.CRC32().encode(b).tobytes()).decode()})
# A v3 array of 2 chunks of 5 uint16, chunk bytes from numcodecs (bytes codec little-endian, then adler32).
v = np.arange(10, dtype="<u2") * 1000
for i in range(2):
    out["v3chunks"].append(base64.b64encode(numcodecs.Adler32().encode(v[5*i:5*i+5].tobytes()).tobytes()).decode())
print(json.dumps(out))
`;

const b64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));

describe.skipIf(!python)("interop with numcodecs 0.11 and zarr-python 2.13", () => {
  const dir = mkdtempSync(join(tmpdir(), "checksum32-interop-"));
  let out: {
    blobs: { raw: string; adler32: string; crc32: string }[];
    v3chunks: string[];
  };
  beforeAll(() => {
    out = JSON.parse(
      runPython(python!, SCRIPT.replace("sys.argv[1]", JSON.stringify(dir))).toString(),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("encodes byte for byte like numcodecs and decodes what it wrote (sizes around zlib's NMAX)", () => {
    for (const blob of out.blobs) {
      const raw = b64(blob.raw);
      for (const algorithm of ["adler32", "crc32"] as const) {
        const codec = new Checksum32Codec(algorithm);
        expect(codec.encode(raw), `${algorithm} of ${raw.length} bytes`).toEqual(
          b64(blob[algorithm]),
        );
        expect(codec.decode(b64(blob[algorithm]), raw.length)).toEqual(raw);
      }
    }
  });

  it("opens a v2 hierarchy zarr-python wrote with adler32/crc32 compressors and filters", async () => {
    const store = new FileSystemStore(dir);
    const root = await openGroup(store);
    expect(root.attrs.writer).toMatch(/^zarr-python 2\./);

    const a = await openArray(store, "adler");
    const got = await a.get(null);
    expect(got.shape).toEqual([30, 7]);
    expect(Array.from(got.data as Int32Array)).toEqual(
      Array.from({ length: 210 }, (_, i) => i - 100),
    );

    const c = await openArray(store, "crc");
    const values = Array.from((await c.get(null)).data as Float64Array);
    expect(values.slice(0, 45).map((x) => Math.round(x * 44))).toEqual(
      Array.from({ length: 45 }, (_, i) => i),
    );
    expect(values.slice(45)).toEqual([-1.5, -1.5, -1.5, -1.5, -1.5]);
  });

  it("reports a corrupted v2 chunk as a CodecError, not wrong data", async () => {
    const store = new FileSystemStore(dir);
    const chunk = (await store.get("adler/1.1"))!;
    chunk[chunk.length - 1] ^= 0x80;
    await store.set("adler/1.1", chunk);
    const a = await openArray(store, "adler");
    await expect(a.get([10, 5])).rejects.toThrowError(CodecError);
    expect((await a.get([0, 0])).data).toEqual(Int32Array.of(-100));
  });

  it("reads a v3 array whose codecs name numcodecs.adler32, chunks encoded by numcodecs", async () => {
    const meta = {
      zarr_format: 3,
      node_type: "array",
      shape: [10],
      data_type: "uint16",
      chunk_grid: { name: "regular", configuration: { chunk_shape: [5] } },
      chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
      fill_value: 0,
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        { name: "numcodecs.adler32" },
      ],
      attributes: {},
    };
    const store = new MemoryStore([
      ["v3/zarr.json", new TextEncoder().encode(JSON.stringify(meta))],
      ["v3/c/0", b64(out.v3chunks[0])],
      ["v3/c/1", b64(out.v3chunks[1])],
    ]);
    const a = await openArray(store, "v3");
    expect(Array.from((await a.get(null)).data as Uint16Array)).toEqual(
      Array.from({ length: 10 }, (_, i) => i * 1000),
    );
  });
});
