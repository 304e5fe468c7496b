/**
 * Interop with the C reference (c-blosc 1.21 through python-blosc), both
 * directions, over cname x shuffle x typesize x size x clevel, plus forced
 * block sizes with leftover blocks. The whole matrix runs in two python
 * processes: one compresses every case while we encode ours (in parallel),
 * the other decodes ours; then we decode python's.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Cname, parseHeader } from "@zarr/codec-blosc";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOptionalEngines, makeCodec, structured } from "./helpers.js";

const MODULES = ["blosc", "numpy"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));

const SHUFFLES = ["noshuffle", "shuffle", "bitshuffle"] as const;
const TYPESIZES = [1, 2, 4, 8, 16];
const SIZES = [0, 1, 127, 128, 4096, (1 << 20) + 3];
const CLEVELS = [0, 1, 5, 9];

interface Case {
  id: number;
  cname: Cname;
  clevel: number;
  shuffle: 0 | 1 | 2;
  typesize: number;
  size: number;
  blocksize: number;
}

interface PyResult {
  id: number;
  ok?: boolean;
  error?: string;
}

const SCRIPT = `
import sys, json, os, blosc
d, mode = sys.stdin.read().split()
cases = json.load(open(os.path.join(d, 'cases.json')))
have = set(blosc.compressor_list())
inputs = {}
res = []
for c in cases:
    data = inputs.get(c['size'])
    if data is None:
        data = inputs[c['size']] = open(os.path.join(d, 'in_%d.bin' % c['size']), 'rb').read()
    r = {'id': c['id']}
    if mode == 'compress' and c['cname'] in have:
        blosc.set_blocksize(c['blocksize'])
        ref = blosc.compress(data, typesize=c['typesize'], clevel=c['clevel'],
                             shuffle=c['shuffle'], cname=c['cname'])
        open(os.path.join(d, 'ref_%d.bin' % c['id']), 'wb').write(ref)
    p = os.path.join(d, 'ours_%d.bin' % c['id'])
    if mode == 'decode' and os.path.exists(p):
        try:
            r['ok'] = blosc.decompress(open(p, 'rb').read()) == data
            if not r['ok']:
                r['error'] = 'decoded bytes differ'
        except Exception as e:
            r['ok'] = False
            r['error'] = repr(e)
    res.append(r)
blosc.set_blocksize(0)
print(json.dumps(res))
`;

/** Runs a python script with `input` on stdin without blocking the event loop. */
function runPythonAsync(exe: string, script: string, input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(exe, ["-c", script], { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`python failed (${code}): ${stderr}`)),
    );
    child.stdin.end(input);
  });
}

describe.skipIf(!python)("blosc interop with c-blosc (python-blosc)", () => {
  let dir = "";
  let available = new Set<string>();
  const cases: Case[] = [];
  const inputs = new Map<number, Uint8Array>();
  const results = new Map<number, PyResult>();

  beforeAll(async () => {
    const optional = await loadOptionalEngines();
    available = new Set(["blosclz", "lz4", "lz4hc", "snappy", ...optional]);
    dir = mkdtempSync(join(tmpdir(), "blosc-interop-"));
    const add = (c: Omit<Case, "id">) => cases.push({ ...c, id: cases.length });
    for (const cname of ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"] as Cname[]) {
      for (let shuffle = 0 as 0 | 1 | 2; shuffle <= 2; shuffle++) {
        for (const typesize of TYPESIZES) {
          for (const size of SIZES) {
            for (const clevel of CLEVELS)
              add({ cname, clevel, shuffle, typesize, size, blocksize: 0 });
          }
          // Forced block sizes: leftover blocks, bitshuffle blocks whose element
          // count is not a multiple of 8, blocks that are not split.
          for (const blocksize of [200, 1000]) {
            add({ cname, clevel: 5, shuffle, typesize, size: 4096 + 5, blocksize });
          }
        }
      }
    }
    for (const c of cases) {
      if (!inputs.has(c.size)) {
        inputs.set(c.size, structured(c.size, c.size));
        writeFileSync(join(dir, `in_${c.size}.bin`), inputs.get(c.size)!);
      }
    }
    writeFileSync(join(dir, "cases.json"), JSON.stringify(cases));
    const reference = runPythonAsync(python!, SCRIPT, `${dir} compress`);
    for (const c of cases) {
      if (!available.has(c.cname)) continue;
      const codec = makeCodec(
        {
          cname: c.cname,
          clevel: c.clevel,
          shuffle: SHUFFLES[c.shuffle],
          typesize: c.typesize,
          blocksize: c.blocksize,
        },
        c.typesize,
      );
      writeFileSync(join(dir, `ours_${c.id}.bin`), await codec.encode(inputs.get(c.size)!));
    }
    await reference;
    const out = runPython(python!, SCRIPT, new TextEncoder().encode(`${dir} decode`));
    for (const r of JSON.parse(out.toString()) as PyResult[]) results.set(r.id, r);
  }, 120_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("c-blosc decodes every chunk we write exactly", () => {
    const failures: string[] = [];
    let checked = 0;
    for (const c of cases) {
      if (!available.has(c.cname)) continue;
      const r = results.get(c.id);
      checked++;
      if (!r?.ok) failures.push(`${JSON.stringify(c)}: ${r?.error ?? "no result"}`);
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(checked).toBeGreaterThan(1000);
  });

  it("we decode every chunk c-blosc writes exactly", async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const c of cases) {
      if (!available.has(c.cname)) continue;
      const ref = new Uint8Array(readFileSync(join(dir, `ref_${c.id}.bin`)));
      const codec = makeCodec({ cname: "lz4", shuffle: "noshuffle" }, c.typesize);
      try {
        const out = await codec.decode(ref, c.size);
        if (Buffer.compare(out, inputs.get(c.size)!) !== 0)
          failures.push(`${JSON.stringify(c)}: differs`);
        if (ref.length > codec.maxEncodedSize(c.size))
          failures.push(`${JSON.stringify(c)}: ${ref.length} bytes > maxEncodedSize`);
      } catch (e) {
        failures.push(`${JSON.stringify(c)}: ${(e as Error).message}`);
      }
      checked++;
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(checked).toBeGreaterThan(1000);
  });

  it("byte ranges of every chunk c-blosc writes decode exactly (decodeRangeInto)", async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const c of cases) {
      if (!available.has(c.cname) || c.size < 4) continue;
      const ref = new Uint8Array(readFileSync(join(dir, `ref_${c.id}.bin`)));
      const codec = makeCodec({ cname: "lz4", shuffle: "noshuffle" }, c.typesize);
      const input = inputs.get(c.size)!;
      // A range inside the last block and one around the middle of the chunk.
      for (const [start, end] of [
        [c.size - 3, c.size],
        [Math.floor(c.size / 2) - 1, Math.floor(c.size / 2) + 2],
      ]) {
        const out = new Uint8Array(c.size).fill(0xee);
        try {
          await codec.decodeRangeInto(ref, out, start, end);
          if (Buffer.compare(out.subarray(start, end), input.subarray(start, end)) !== 0)
            failures.push(`${JSON.stringify(c)} [${start}, ${end}): differs`);
        } catch (e) {
          failures.push(`${JSON.stringify(c)} [${start}, ${end}): ${(e as Error).message}`);
        }
        checked++;
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(checked).toBeGreaterThan(1000);
  });

  it("our headers match c-blosc's: typesize, flags, blocksize (compute_blocksize)", async () => {
    const failures: string[] = [];
    for (const c of cases) {
      if (!available.has(c.cname)) continue;
      const ref = parseHeader(new Uint8Array(readFileSync(join(dir, `ref_${c.id}.bin`))));
      const ours = parseHeader(new Uint8Array(readFileSync(join(dir, `ours_${c.id}.bin`))));
      // The memcpyed bit may differ: whether a chunk compresses depends on the compressor.
      const same =
        ref.typesize === ours.typesize &&
        ref.nbytes === ours.nbytes &&
        ref.blocksize === ours.blocksize &&
        (ref.flags | 2) === (ours.flags | 2);
      if (!same)
        failures.push(
          `${JSON.stringify(c)}: ref ${JSON.stringify(ref)} ours ${JSON.stringify(ours)}`,
        );
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it("reports the cnames that were skipped", () => {
    for (const cname of ["zlib", "zstd"]) {
      if (!available.has(cname)) {
        console.warn(`blosc interop: ${cname} rows skipped (engine package not available)`);
      }
    }
    expect(available.has("lz4")).toBe(true);
  });
});
