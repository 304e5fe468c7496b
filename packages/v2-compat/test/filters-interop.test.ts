// numcodecs 0.11's lossy filters (fixedscaleoffset, quantize, bitround, astype,
// delta) bit for bit, both directions, over hostile inputs: NaN, infinities,
// halves (round half to even) and values past every integer range, whose casts
// follow numpy's rules on x86-64 (test/python/lossy_filters.py prints what
// numcodecs makes of them). We write each case through a v2 array with the
// filter and compare the stored chunk byte for byte; then we store numcodecs'
// encoding as the chunk and compare what we decode with what numcodecs decodes.
import "../src/register.js";
import { fileURLToPath } from "node:url";
import { type DataArray, type JsonObject, MemoryStore, openArray } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { describe, expect, it } from "vitest";
import { createArrayV2 } from "../src/index.js";

const MODULES = ["numcodecs", "numpy"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));
const script = fileURLToPath(new URL("./python/lossy_filters.py", import.meta.url));

interface Case {
  config: JsonObject;
  dtype: string;
  values: string[];
  encoded: string;
  decoded: string[];
}

function parseValue(s: string, big: boolean): number | bigint {
  if (big) return BigInt(s);
  if (s === "inf") return Number.POSITIVE_INFINITY;
  if (s === "-inf") return Number.NEGATIVE_INFINITY;
  if (s === "nan") return Number.NaN;
  return Number(s);
}

function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

function same(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === "number" && typeof b === "number") {
    return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) || a === b;
  }
  return a === b;
}

describe.skipIf(!python)("numcodecs lossy filters, bit for bit", () => {
  const cases: Case[] = python
    ? JSON.parse(
        runPython(
          python,
          `import runpy; runpy.run_path(${JSON.stringify(script)}, run_name="__main__")`,
        ).toString(),
      )
    : [];

  it("covers every filter", () => {
    const ids = new Set(cases.map((c) => c.config.id));
    expect([...ids].sort()).toEqual([
      "astype",
      "bitround",
      "delta",
      "fixedscaleoffset",
      "quantize",
    ]);
    expect(cases.length).toBeGreaterThan(200);
  });

  it("encodes and decodes every case as numcodecs does", async () => {
    const failures: string[] = [];
    for (const c of cases) {
      const name = JSON.stringify(c.config);
      const store = new MemoryStore();
      const n = c.values.length;
      const { id, ...rest } = c.config;
      try {
        const a = await createArrayV2(store, "a", {
          shape: [n],
          chunks: [n],
          dtype: c.dtype,
          filters: [{ id, ...rest }],
          compressor: null,
        });
        const big = a.dataType.slotBytes === 8 && a.dataType.kind !== "float";
        const data = a.dataType.allocate(n) as unknown as { [i: number]: number | bigint };
        c.values.forEach((v, i) => {
          data[i] = parseValue(v, big);
        });
        await a.set(null, data as unknown as DataArray, { writeEmptyChunks: true });
        const stored = await resolveStore(store).get("a/0");
        const hex = toHex(stored!);
        if (hex !== c.encoded)
          failures.push(`${name} ${c.dtype} encode: got ${hex}, want ${c.encoded}`);
        // Decode numcodecs' own encoding.
        await resolveStore(store).set("a/0", Buffer.from(c.encoded, "hex"));
        const got = (await (await openArray(store, "a")).get()).data as unknown as ArrayLike<
          number | bigint
        >;
        for (let i = 0; i < n; i++) {
          const want = parseValue(c.decoded[i], big);
          if (!same(got[i], want)) {
            failures.push(
              `${name} ${c.dtype} decode [${i}] (${c.values[i]}): got ${got[i]}, want ${want}`,
            );
            break;
          }
        }
      } catch (e) {
        failures.push(`${name} ${c.dtype}: ${(e as Error).message}`);
      }
    }
    expect(failures.slice(0, 30)).toEqual([]);
  });
});
