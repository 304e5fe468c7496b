// Regenerates examples/data/weather.zarr, the small dataset the README's main
// job inspects: a v3 hierarchy (sharding + blosc, gzip, a string array) with a
// v2 group inside. Deterministic: running it twice gives the same bytes.
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "@zarr/v2-compat/register";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createArray, createGroup } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { createArrayV2, createGroupV2 } from "@zarr/v2-compat";

const target = join(dirname(fileURLToPath(import.meta.url)), "../data/weather.zarr");
await rm(target, { recursive: true, force: true });
const store = new FileSystemStore(target);

await createGroup(store, "", {
  attributes: { title: "Synthetic weather: a small Zarr v3 example made by @zarr packages" },
});

// Temperature: time × lat × lon, sharded (shards of 6×16×24, inner chunks 3×8×8), blosc lz4 + shuffle.
const [T, Y, X] = [12, 32, 48];
const temperature = await createArray(store, "temperature", {
  shape: [T, Y, X],
  dataType: "float32",
  chunkShape: [6, 16, 24],
  fillValue: "NaN",
  dimensionNames: ["time", "lat", "lon"],
  attributes: { units: "degC", long_name: "air temperature at 2 m" },
  codecs: [
    {
      name: "sharding_indexed",
      configuration: {
        chunk_shape: [3, 8, 8],
        codecs: [
          { name: "bytes", configuration: { endian: "little" } },
          { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle" } },
        ],
        index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
        index_location: "end",
      },
    },
  ],
});
const t = new Float32Array(T * Y * X);
for (let k = 0; k < T; k++) {
  for (let j = 0; j < Y; j++) {
    for (let i = 0; i < X; i++) {
      const lat = -60 + (120 * j) / (Y - 1);
      const v =
        28 * Math.cos((lat * Math.PI) / 180) - 8 + 4 * Math.sin((2 * Math.PI * (k + i / 8)) / T);
      t[(k * Y + j) * X + i] = Math.round(v * 10) / 10;
    }
  }
}
await temperature.set(null, t);

// Land mask: bool, gzip.
const land = await createArray(store, "masks/land", {
  shape: [Y, X],
  dataType: "bool",
  chunkShape: [16, 16],
  codecs: [{ name: "bytes" }, { name: "gzip", configuration: { level: 6 } }],
});
const mask = new Uint8Array(Y * X);
for (let j = 0; j < Y; j++)
  for (let i = 0; i < X; i++) mask[j * X + i] = (i - 20) ** 2 + (j - 12) ** 2 < 60 ? 1 : 0;
await land.set(null, mask);

// Station names: strings (vlen-utf8 + zstd).
const stations = await createArray(store, "stations", {
  shape: [5],
  dataType: "string",
  chunkShape: [5],
  codecs: [{ name: "vlen-utf8" }, { name: "zstd", configuration: { level: 3, checksum: true } }],
});
await stations.set(null, ["Reykjavík", "Tromsø", "São Paulo", "東京", "Nairobi"]);

// A Zarr v2 group inside the v3 hierarchy (as zarr-python 2 writes it): surface pressure
// as int16 hPa×10 with a delta filter and zlib, F order; station ids as big-endian int64.
await createGroupV2(store, "legacy", { attributes: { source: "written as Zarr v2" } });
const pressure = await createArrayV2(store, "legacy/pressure", {
  shape: [T, Y, X],
  chunks: [6, 16, 16],
  dtype: "<i2",
  order: "F",
  fillValue: 0,
  filters: [{ id: "delta", dtype: "<i2" }],
  compressor: { id: "zlib", level: 5 },
  attributes: { units: "hPa*10", _ARRAY_DIMENSIONS: ["time", "lat", "lon"] },
});
const p = new Int16Array(T * Y * X);
for (let k = 0; k < T; k++)
  for (let j = 0; j < Y; j++)
    for (let i = 0; i < X; i++)
      p[(k * Y + j) * X + i] = 10130 + ((j * 7 + i * 3 + k * 11) % 97) - 48;
await pressure.set(null, p);
const ids = await createArrayV2(store, "legacy/station_ids", {
  shape: [5],
  chunks: [5],
  dtype: ">i8",
  compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 },
});
await ids.set(null, new BigInt64Array([4030n, 1026n, 83780n, 47662n, 63741n]));

console.log(`wrote ${target}`);
