// Interop with the reference: numcodecs (checksum32.py, fletcher32.pyx, jenkins.pyx) and
// zarr-python 2.13 (v2 spec: "compressor", "filters"), both directions. numcodecs 0.11
// (Debian's python3-numcodecs) has crc32 and adler32 only, always at the start; for
// `location` (numcodecs >= 0.14), crc32c (0.14) and fletcher32/jenkins_lookup3 (0.12)
// test/python/checksums.py registers ports of numcodecs' newer source (crc32c's checksum
// from the `crc32c` module numcodecs uses) and prints which implementation served each
// case. Set ZARR_TEST_NUMCODECS_PATH to a directory holding a newer numcodecs (e.g.
// `pip install --target DIR numcodecs typing_extensions`) to run the codec-level cases
// against numcodecs' own classes too.
import "@zarr/v2-compat/register";
import "@zarr/codec-checksums/register";
import "@zarr/codec-gzip/register";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHECKSUM_CODECS } from "@zarr/codec-checksums";
import { CodecError, type JsonObject, openArray } from "@zarr/core";
import type { BytesToBytesCodec, CodecContext } from "@zarr/core/codec";
import { FileSystemStore } from "@zarr/store-fs";
import { findPython, pythonSkipReason } from "@zarr/test-utils";
import { createArrayV2 } from "@zarr/v2-compat";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const MODULES = ["zarr", "numcodecs", "numpy", "crc32c"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));
const newer = process.env.ZARR_TEST_NUMCODECS_PATH;
if (python && !newer) {
  console.warn(
    "checksums interop: ZARR_TEST_NUMCODECS_PATH not set, so crc32c/fletcher32/jenkins_lookup3 and `location` are checked against ports of numcodecs' source only",
  );
}
const SCRIPT = fileURLToPath(new URL("./python/checksums.py", import.meta.url));

/** The cases of checksums.py (same names and configurations). */
const CASES: Record<string, JsonObject> = {
  adler32: { id: "adler32" },
  crc32: { id: "crc32" },
  adler32_end: { id: "adler32", location: "end" },
  crc32_end: { id: "crc32", location: "end" },
  crc32c: { id: "crc32c" },
  crc32c_start: { id: "crc32c", location: "start" },
  fletcher32: { id: "fletcher32" },
  jenkins_lookup3: { id: "jenkins_lookup3" },
  jenkins_lookup3_seeded: { id: "jenkins_lookup3", initval: 1230, prefix: [70, 65, 68, 66] },
};
const SIZES = [0, 1, 3, 4, 5551, 5552, 5553, 100_000];

function py(args: string[], input?: string, extraPath?: string): unknown {
  const env = { ...process.env };
  if (extraPath) env.PYTHONPATH = [extraPath, env.PYTHONPATH].filter(Boolean).join(":");
  const r = spawnSync(python!, ["-W", "ignore", SCRIPT, ...args], {
    input,
    env,
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`checksums.py ${args[0]} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.toString());
}

/** Deterministic random bytes (xorshift32). */
function random(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const codecOf = (config: JsonObject) =>
  CHECKSUM_CODECS[config.id as string].fromConfig(config, {
    path: "interop",
    format: 2,
  } as unknown as CodecContext) as BytesToBytesCodec;
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const unb64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));

interface BlobResult {
  version: string;
  impl: Record<string, string>;
  encoded: Record<string, (string | null)[]>;
  decoded: Record<string, string[]>;
}

function codecLevel(label: string, extraPath?: string) {
  describe.skipIf(!python || (label !== "installed" && !extraPath))(
    `codec level, numcodecs ${label}: sizes ${SIZES.join(", ")} of random bytes`,
    () => {
      const blobs = SIZES.map((n, i) => random(n, 0x9e3779b9 + i));
      const ours: Record<string, string[]> = {};
      let result: BlobResult;
      beforeAll(async () => {
        for (const [name, config] of Object.entries(CASES)) {
          const codec = codecOf(config);
          ours[name] = await Promise.all(blobs.map(async (b) => b64(await codec.encode(b))));
        }
        const request = JSON.stringify({ blobs: blobs.map(b64), ours });
        result = py(["blobs"], request, extraPath) as BlobResult;
        console.info(`numcodecs ${result.version}:`, JSON.stringify(result.impl));
      }, 120_000);

      for (const name of Object.keys(CASES)) {
        it(`${name}: encodes byte for byte like the reference and each side decodes the other`, async () => {
          const codec = codecOf(CASES[name]);
          for (const [i, raw] of blobs.entries()) {
            const theirs = result.encoded[name][i];
            const what = `${name}, ${raw.length} bytes (${result.impl[name]})`;
            if (name === "fletcher32" && raw.length === 0) {
              // numcodecs' fletcher32 cannot encode or decode an empty payload (IndexError).
              expect(theirs, what).toBeNull();
              expect(result.decoded[name][i], what).toBe("IndexError");
              continue;
            }
            expect(theirs, what).toBe(ours[name][i]);
            expect(result.decoded[name][i], what).toBe("ok");
            expect(await codec.decode(unb64(theirs!), raw.length)).toEqual(raw);
          }
        });
      }

      it("ports are used only where this numcodecs lacks the codec or keyword", () => {
        if (label === "installed" && !result.version.startsWith("0.11")) return;
        if (label === "installed") {
          expect(result.impl.adler32).toMatch(/^numcodecs 0\.11/);
          expect(result.impl.crc32).toMatch(/^numcodecs 0\.11/);
        } else {
          expect(Object.values(result.impl).every((v) => v.startsWith("numcodecs"))).toBe(true);
        }
      });
    },
  );
}

codecLevel("installed");
codecLevel("from ZARR_TEST_NUMCODECS_PATH", newer);

interface ArrayCase {
  dtype: string;
  n: number;
  chunk: number;
  filters: JsonObject[] | null;
  compressor: JsonObject;
  expected: number[];
}

describe.skipIf(!python)(
  "arrays: zarr-python 2.13 with each checksum codec as compressor or filter",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "codec-checksums-"));
    let spec: Record<string, ArrayCase> = {};
    let impl: Record<string, string> = {};
    beforeAll(() => {
      const out = py(["write", join(dir, "py")]) as { spec: typeof spec; impl: typeof impl };
      spec = out.spec;
      impl = out.impl;
    }, 120_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("reads every array zarr-python wrote through @zarr/v2-compat, element by element", async () => {
      const store = new FileSystemStore(join(dir, "py"));
      expect(Object.keys(spec)).toHaveLength(18);
      for (const [name, c] of Object.entries(spec)) {
        const a = await openArray(store, name);
        const all = Array.from((await a.get(null)).data as ArrayLike<number>);
        expect(all.length, name).toBe(c.n);
        for (let i = 0; i < c.n; i++) {
          if (all[i] !== c.expected[i]) {
            throw new Error(
              `${name} (${impl[name]}): element ${i} is ${all[i]}, expected ${c.expected[i]}`,
            );
          }
        }
        for (const i of [0, c.chunk - 1, c.chunk, c.n - 1]) {
          expect((await a.get([i])).data[0], `${name}[${i}]`).toBe(c.expected[i]);
        }
      }
    });

    it("a damaged chunk of each is a CodecError naming the chunk", async () => {
      const store = new FileSystemStore(join(dir, "py"));
      for (const name of Object.keys(spec).filter((n) => n.endsWith("_compressor"))) {
        const chunk = (await store.get(`${name}/1`))!.slice();
        chunk[chunk.length >> 1] ^= 0x01;
        await store.set(`${name}/1`, chunk);
        const a = await openArray(store, name);
        const error = await a.get(null).catch((e: unknown) => e);
        expect(error, name).toBeInstanceOf(CodecError);
        expect((error as Error).message, name).toMatch(
          new RegExp(`chunk "${name}/1".*checksum mismatch`),
        );
      }
    });

    it("zarr-python reads every array we write with the same filters and compressor", async () => {
      const store = new FileSystemStore(join(dir, "js"));
      for (const [name, c] of Object.entries(spec)) {
        const a = await createArrayV2(store, name, {
          shape: [c.n],
          chunks: [c.chunk],
          dtype: c.dtype,
          compressor: c.compressor,
          filters: c.filters ?? undefined,
          fillValue: 0,
        });
        const data = c.dtype.endsWith("f8")
          ? Float64Array.from(c.expected)
          : c.dtype.endsWith("i4")
            ? Int32Array.from(c.expected)
            : Uint16Array.from(c.expected);
        await a.set(null, { data, shape: [c.n] });
      }
      // A non-default location survives into .zarray (numcodecs 0.11's keys plus layout keys).
      const zarray = JSON.parse(
        new TextDecoder().decode((await store.get("crc32_end_compressor/.zarray"))!),
      );
      expect(zarray.compressor).toEqual({ id: "crc32", location: "end" });
      const specPath = join(dir, "spec.json");
      writeFileSync(specPath, JSON.stringify(spec));
      expect(py(["check", join(dir, "js"), specPath])).toEqual({ bad: {} });
    });
  },
);
