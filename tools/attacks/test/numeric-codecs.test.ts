// zfp and pcodec chunks that lie about how many values they hold, read as a
// user would: `zarr get` (which registers every codec) on a v2 array (numcodecs
// `zfpy` / `pcodec` compressors) and on v3 arrays (zarr-python 3's
// `numcodecs.zfpy` / `numcodecs.pcodec`, zarrs' headerless `zfp`). Each read
// runs under the watchdog: it must exit 2 with a CodecError naming the chunk,
// in bounded memory and time, and print no values.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { encodeStandalone, numberTypeNamed } from "@zarr/codec-pcodec";
import { reversibleParams, zfpCompress } from "@zarr/codec-zfp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeRun, runZarr } from "../src/index.js";

/** A child reading a 4-value chunk: Node, the CLI and its codecs, nothing near the claims. */
const LIMITS = { maxRssMiB: 300, timeoutMs: 45_000 };

let root: string;

async function put(rel: string, data: Uint8Array | object): Promise<void> {
  const file = join(root, rel);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, data instanceof Uint8Array ? data : JSON.stringify(data));
}

function v2Array(dtype: string, compressor: object) {
  return {
    zarr_format: 2,
    shape: [4],
    chunks: [4],
    dtype,
    fill_value: 0,
    order: "C",
    filters: null,
    compressor,
    dimension_separator: ".",
  };
}

function v3Array(dataType: string, codec: object) {
  return {
    zarr_format: 3,
    node_type: "array",
    shape: [4],
    data_type: dataType,
    chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: 0,
    codecs: [codec],
  };
}

/** Sets bits [from, from + count) of a zfp stream (bits run from the low bit of each byte). */
function setBits(stream: Uint8Array, from: number, count: number): Uint8Array {
  const out = stream.slice();
  for (let i = from; i < from + count; i++) out[i >> 3] |= 1 << (i & 7);
  return out;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "zarr-attack-numeric-"));
  // zfp: a valid stream of 4 float64 values whose header (1-d: size - 1 in
  // bits 36..83, libzfp reads the low 32) then claims 2^32 values (32 GiB).
  const honest = zfpCompress(new Float64Array([1, 2, 3, 4]), [4], reversibleParams());
  const lying = setBits(honest, 36, 32);
  await put("zfpy-v2-honest/.zarray", v2Array("<f8", { id: "zfpy", mode: 5 }));
  await put("zfpy-v2-honest/0", honest);
  await put("zfpy-v2/.zarray", v2Array("<f8", { id: "zfpy", mode: 5 }));
  await put("zfpy-v2/0", lying);
  await put("zfpy-v3/zarr.json", v3Array("float64", { name: "numcodecs.zfpy", configuration: {} }));
  await put("zfpy-v3/c/0", lying);
  // zarrs' zfp has no header: 4 MiB of 0xff (every group test "more bits")
  // behind a 4-value chunk must stop at the chunk's blocks.
  await put(
    "zfp-v3/zarr.json",
    v3Array("float64", { name: "zfp", configuration: { mode: "reversible" } }),
  );
  await put("zfp-v3/c/0", new Uint8Array(4 << 20).fill(0xff));
  // pcodec: a valid standalone stream of 4 float32 values, then one whose
  // header declares 2^24 numbers (pco's standalone header, format.md).
  const pco = encodeStandalone(
    new Uint8Array(new Float32Array([1, 2, 3, 4]).buffer),
    numberTypeNamed("f32"),
    { level: 8, deltaOrder: "auto", maxChunkN: 1 << 18 },
  );
  const pcoLying = Uint8Array.from([112, 99, 111, 33, 3, 0, 0, 4, 1, 5, 0xff, 0xff, 0xff, 0, 0, 0]);
  await put("pcodec-v2-honest/.zarray", v2Array("<f4", { id: "pcodec" }));
  await put("pcodec-v2-honest/0", pco);
  await put("pcodec-v2/.zarray", v2Array("<f4", { id: "pcodec" }));
  await put("pcodec-v2/0", pcoLying);
  await put(
    "pcodec-v3/zarr.json",
    v3Array("float32", { name: "numcodecs.pcodec", configuration: {} }),
  );
  await put("pcodec-v3/c/0", pcoLying);
}, 60_000);

afterAll(() => (root ? rm(root, { recursive: true, force: true }) : undefined));

describe("zfp and pcodec chunks lying about their size fail in bounded memory, through zarr get", () => {
  it.each([
    ["v2 zfpy, header claiming 2^32 values", "zfpy-v2"],
    ["v3 numcodecs.zfpy, header claiming 2^32 values", "zfpy-v3"],
    ["v3 zfp (zarrs, headerless), 4 MiB of set bits behind 4 values", "zfp-v3"],
    ["v2 pcodec, a chunk declaring 2^24 numbers", "pcodec-v2"],
    ["v3 numcodecs.pcodec, a chunk declaring 2^24 numbers", "pcodec-v3"],
  ])("%s", async (_name, path) => {
    const r = await runZarr(["get", join(root, path), "--json"], LIMITS);
    expect(r.killed, describeRun(r)).toBeUndefined();
    expect(r.code, describeRun(r)).toBe(2);
    // The chunk is named (v2 key "0", v3 key "c/0").
    expect(r.stderr, describeRun(r)).toMatch(/chunk "[^"]*\b0"/);
    expect(r.stdout, describeRun(r)).toBe("");
    expect(r.peakRssMiB, describeRun(r)).toBeLessThan(LIMITS.maxRssMiB);
  });

  it.each([
    ["zfpy", "zfpy-v2-honest"],
    ["pcodec", "pcodec-v2-honest"],
  ])("the honest %s chunk the lies were made from reads its 4 values", async (_name, path) => {
    const r = await runZarr(["get", join(root, path), "--json"], LIMITS);
    expect(r.code, describeRun(r)).toBe(0);
    expect(JSON.parse(r.stdout).data).toEqual([1, 2, 3, 4]);
  });
});
