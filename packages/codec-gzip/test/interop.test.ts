import { DeflateCodec } from "@zarr/codec-gzip";
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
import { engine as browserEngine } from "../src/engine/browser.js";
import { engine as nodeEngine } from "../src/engine/node.js";

const MODULES = ["numcodecs", "zlib", "gzip"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));

const LEVELS = [0, 1, 5, 9];
const inputs = sampleInputs();
const engines = [nodeEngine, browserEngine];

// One python call: numcodecs encodes every input at every level (GZip, Zlib),
// adds a two-member gzip stream, and decodes everything we encoded.
const SCRIPT = `${PY_PACK}
import numcodecs, gzip, zlib
items = unpack(sys.stdin.buffer.read())
levels = ${JSON.stringify(LEVELS)}
n_inputs = ${inputs.length}
raw = items[:n_inputs]
ours = items[n_inputs:]
out = []
for data in raw:
    for lv in levels:
        out.append(numcodecs.GZip(level=lv).encode(data))
        out.append(numcodecs.Zlib(level=lv).encode(data))
    out.append(gzip.compress(data[: len(data) // 2]) + gzip.compress(data[len(data) // 2 :]))
# ours: per input, per engine, per level: gzip then zlib
k = 0
for data in raw:
    for _ in range(${engines.length}):
        for lv in levels:
            g = numcodecs.GZip(level=lv).decode(ours[k]); z = numcodecs.Zlib(level=lv).decode(ours[k + 1])
            out.append(bytes([bytes(g) == data and bytes(z) == data and gzip.decompress(ours[k]) == data]))
            k += 2
sys.stdout.buffer.write(pack(out))
`;

describe.skipIf(!python)("interop with numcodecs (C zlib via python)", () => {
  let theirs: Uint8Array[] = [];
  let verdicts: Uint8Array[] = [];

  beforeAll(async () => {
    const ours: Uint8Array[] = [];
    for (const { data } of inputs) {
      for (const engine of engines) {
        for (const level of LEVELS) {
          ours.push(await new DeflateCodec("gzip", { level, engine }).encode(data));
          ours.push(await new DeflateCodec("zlib", { level, engine }).encode(data));
        }
      }
    }
    const result = unpack(
      runPython(python!, SCRIPT, pack([...inputs.map((i) => i.data), ...ours])),
    );
    const perInput = LEVELS.length * 2 + 1;
    theirs = result.slice(0, inputs.length * perInput);
    verdicts = result.slice(inputs.length * perInput);
  });

  describe.each(engines)("engine $name", (engine) => {
    it("decodes numcodecs GZip and Zlib output exactly, every level", async () => {
      const perInput = LEVELS.length * 2 + 1;
      for (const [i, { name, data }] of inputs.entries()) {
        for (const [j, level] of LEVELS.entries()) {
          const g = theirs[i * perInput + 2 * j]!;
          const z = theirs[i * perInput + 2 * j + 1]!;
          const gz = new DeflateCodec("gzip", { level, engine });
          const zl = new DeflateCodec("zlib", { level, engine });
          expect(sameBytes(await gz.decode(g, data.length), data), `${name} gzip ${level}`).toBe(
            true,
          );
          expect(sameBytes(await zl.decode(z, data.length), data), `${name} zlib ${level}`).toBe(
            true,
          );
          expect(g.length).toBeLessThanOrEqual(gz.maxEncodedSize(data.length));
          expect(z.length).toBeLessThanOrEqual(zl.maxEncodedSize(data.length));
        }
      }
    });

    it.skipIf(!new DeflateCodec("gzip", { level: 1 }).decodeInto)(
      "decodeInto writes numcodecs' GZip and Zlib output and python's two-member streams exactly",
      async () => {
        const perInput = LEVELS.length * 2 + 1;
        for (const [i, { name, data }] of inputs.entries()) {
          const streams: [DeflateCodec, Uint8Array, string][] = [
            [
              new DeflateCodec("gzip", { level: 1, engine }),
              theirs[i * perInput + perInput - 1]!,
              "two members",
            ],
          ];
          for (const [j, level] of LEVELS.entries()) {
            streams.push([
              new DeflateCodec("gzip", { level, engine }),
              theirs[i * perInput + 2 * j]!,
              `gzip ${level}`,
            ]);
            streams.push([
              new DeflateCodec("zlib", { level, engine }),
              theirs[i * perInput + 2 * j + 1]!,
              `zlib ${level}`,
            ]);
          }
          for (const [codec, stream, label] of streams) {
            const out = new Uint8Array(data.length).fill(0xa5);
            await codec.decodeInto!(stream, out);
            expect(sameBytes(out, data), `${name} ${label}`).toBe(true);
          }
        }
      },
    );

    it("decodes python's two-member gzip streams (RFC 1952: members concatenate)", async () => {
      const perInput = LEVELS.length * 2 + 1;
      for (const [i, { data }] of inputs.entries()) {
        const twoMembers = theirs[i * perInput + perInput - 1]!;
        const out = await new DeflateCodec("gzip", { level: 1, engine }).decode(
          twoMembers,
          data.length,
        );
        expect(sameBytes(out, data)).toBe(true);
        expect(twoMembers.length).toBeLessThanOrEqual(
          new DeflateCodec("gzip", { level: 1 }).maxEncodedSize(data.length),
        );
      }
    });
  });

  it("numcodecs and python's gzip decode what both engines write, exactly", () => {
    expect(verdicts.length).toBe(inputs.length * engines.length * LEVELS.length);
    expect(verdicts.every((v) => v[0] === 1)).toBe(true);
  });
});
