import { ZstdCodec } from "@zarr/codec-zstd";
import {
  findPython,
  PY_PACK,
  pack,
  pythonSkipReason,
  runPython,
  sameBytes,
  sampleInputs,
  unpack,
} from "@zarr/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { scanFrames } from "../src/frame.js";

const MODULES = ["numcodecs", "zstd"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));

const LEVELS = [-5, 1, 3, 9, 19];
const inputs = sampleInputs();

// One python call. Returns, per input: numcodecs.Zstd and python-zstd frames at
// each level, a two-frame stream, and (when the zstd CLI is installed) frames
// written without content size, with and without checksum; then one verdict
// byte per frame we wrote (numcodecs and python-zstd both decode it exactly;
// the empty input goes to the zstd CLI, as both python libraries refuse it).
const SCRIPT = `${PY_PACK}
import numcodecs, zstd, shutil, subprocess
items = unpack(sys.stdin.buffer.read())
levels = ${JSON.stringify(LEVELS)}
n = ${inputs.length}
raw, ours = items[:n], items[n:]
cli = shutil.which("zstd")
# python-zstd 1.5.2.5 returns a 9-byte frame followed by uninitialised bytes for
# empty input (a bug of that binding); numcodecs writes the same frame correctly.
def zc(d, lv):
    return zstd.compress(d, lv) if d else numcodecs.Zstd(level=lv).encode(d)
out = [bytes([1 if cli else 0])]
for data in raw:
    for lv in levels:
        out.append(numcodecs.Zstd(level=lv).encode(data))
        out.append(zc(data, lv))
    half = len(data) // 2
    out.append(numcodecs.Zstd(level=1).encode(data[:half]) + zc(data[half:], 3))
    for flags in (["-3", "--no-check"], ["--fast=3", "--check"], ["-19", "--check"]):
        if cli:
            r = subprocess.run([cli, "-q", "-c", "--no-content-size", *flags], input=data, stdout=subprocess.PIPE, check=True)
            out.append(r.stdout)
        else:
            out.append(b"")
for i, frame in enumerate(ours):
    data = raw[i // (len(ours) // n)]
    if data:
        ok = bytes(numcodecs.Zstd().decode(frame)) == data and zstd.decompress(frame) == data
    else:  # numcodecs 0.11 and python-zstd reject empty content even from themselves
        ok = not cli or subprocess.run([cli, "-d", "-q", "-c"], input=frame, stdout=subprocess.PIPE).stdout == b""
    out.append(bytes([1 if ok else 0]))
sys.stdout.buffer.write(pack(out))
`;

describe.skipIf(!python)("interop with libzstd (numcodecs, python-zstd, zstd CLI)", () => {
  let haveCli = false;
  let theirs: Uint8Array[][] = [];
  let verdicts: Uint8Array[] = [];
  const perInput = LEVELS.length * 2 + 1 + 3;

  beforeAll(async () => {
    const ours: Uint8Array[] = [];
    for (const { data } of inputs) {
      for (const level of LEVELS) {
        for (const checksum of [false, true]) {
          ours.push(await new ZstdCodec({ level, checksum }).encode(data));
        }
      }
    }
    const result = unpack(
      runPython(python!, SCRIPT, pack([...inputs.map((i) => i.data), ...ours])),
    );
    haveCli = result[0]![0] === 1;
    if (!haveCli)
      console.warn("skipping no-content-size frames from the zstd CLI: zstd not installed");
    theirs = inputs.map((_, i) => result.slice(1 + i * perInput, 1 + (i + 1) * perInput));
    verdicts = result.slice(1 + inputs.length * perInput);
  });

  it("decodes numcodecs.Zstd and python-zstd frames exactly at every level", async () => {
    for (const [i, { name, data }] of inputs.entries()) {
      for (const [j, level] of LEVELS.entries()) {
        for (const frame of [theirs[i]![2 * j]!, theirs[i]![2 * j + 1]!]) {
          const codec = new ZstdCodec({ level });
          const out = await codec.decode(frame, data.length);
          expect(sameBytes(out, data), `${name} level ${level}`).toBe(true);
          expect(frame.length).toBeLessThanOrEqual(codec.maxEncodedSize(data.length));
        }
      }
    }
  });

  it("decodeInto writes numcodecs, python-zstd and zstd CLI frames exactly (one, two concatenated, no content size)", async () => {
    for (const [i, { name, data }] of inputs.entries()) {
      const last = haveCli ? LEVELS.length * 2 + 4 : LEVELS.length * 2 + 1;
      for (let k = 0; k < last; k++) {
        const out = new Uint8Array(data.length).fill(0xa5);
        await new ZstdCodec().decodeInto(theirs[i]![k]!, out);
        expect(sameBytes(out, data), `${name} stream ${k}`).toBe(true);
      }
    }
  });

  it("decodes two concatenated frames from different writers", async () => {
    for (const [i, { data }] of inputs.entries()) {
      const stream = theirs[i]![LEVELS.length * 2]!;
      expect(scanFrames(stream).length).toBe(2);
      expect(sameBytes(await new ZstdCodec().decode(stream, data.length), data)).toBe(true);
    }
  });

  it("decodes frames without content size, with and without checksum (as numcodecs < 0.13 wrote)", async (ctx) => {
    if (!haveCli) ctx.skip();
    for (const [i, { name, data }] of inputs.entries()) {
      for (let k = 0; k < 3; k++) {
        const stream = theirs[i]![LEVELS.length * 2 + 1 + k]!;
        const frames = scanFrames(stream);
        expect(frames.every((f) => f.contentSize === undefined)).toBe(true);
        expect(frames.some((f) => f.hasChecksum)).toBe(k > 0);
        expect(sameBytes(await new ZstdCodec().decode(stream, data.length), data), name).toBe(true);
        expect(sameBytes(await new ZstdCodec().decode(stream), data), name).toBe(true);
        expect(stream.length).toBeLessThanOrEqual(new ZstdCodec().maxEncodedSize(data.length));
        if (data.length > 0) {
          await expect(new ZstdCodec().decode(stream, data.length - 1)).rejects.toThrow(/exceeds/);
        }
      }
    }
  });

  it("numcodecs and python-zstd decode what we write, with and without checksum, exactly", () => {
    expect(verdicts.length).toBe(inputs.length * LEVELS.length * 2);
    expect(verdicts.map((v) => v[0])).toEqual(verdicts.map(() => 1));
  });
});
