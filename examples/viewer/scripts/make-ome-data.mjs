// Makes the viewer's example OME-Zarr pyramids with the project's own packages,
// deterministically (an analytic image: rings and gradients per channel, so
// zoom levels and channels look different):
//
//   ome05.zarr   OME-Zarr 0.5 (Zarr v3): axes c, z, y, x; 2 channels, 3 z planes,
//                1024² uint16 at level 0, 4 levels; sharded (512² shards of 128²
//                inner chunks, gzip), omero colours and windows, units.
//   ome04.zarr   OME-Zarr 0.4 (Zarr v2): axes t, c, y, x; 2 times, 3 channels,
//                512² uint8 at level 0, 3 levels; zlib, "/" separator.
//   big.zarr     (only with --big) OME-Zarr 0.5, 4096² uint8, one channel,
//                5 levels of 256² chunks, uncompressed: the request-count test.
//
// Usage: node scripts/make-ome-data.mjs <out-dir> [--big]
// (`pnpm --filter @zarr/example-viewer example-data` writes examples/viewer/data).
import "@zarr/codec-gzip/register";
import "@zarr/v2-compat/register";
import { mkdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createArray, createGroup } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { createArrayV2, createGroupV2 } from "@zarr/v2-compat";

/** Level 0 of channel `c` at plane `k` (z or t): a typed array of n*n values. */
function level0(n, c, k, max, Type) {
  const out = new Type(n * n);
  const half = n / 2;
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const dx = x - half * (1 + 0.2 * c);
      const dy = y - half;
      const r = Math.sqrt(dx * dx + dy * dy);
      let v;
      if (c % 2 === 0) {
        // Rings that get finer outwards: coarse levels blur the outer ones.
        v = 0.5 + 0.5 * Math.cos((r * r) / (n * (3 + k)));
      } else {
        // A diagonal gradient with a checkerboard of 32² squares.
        const check = ((x >> 5) + (y >> 5) + k) & 1;
        v = 0.7 * ((x + y) / (2 * n)) + 0.3 * check;
      }
      out[y * n + x] = Math.round(v * max);
    }
  }
  return out;
}

/** 2 × 2 mean, rounded: the next level of a pyramid. */
function downsample(data, n, Type) {
  const m = n / 2;
  const out = new Type(m * m);
  for (let y = 0; y < m; y++) {
    for (let x = 0; x < m; x++) {
      const i = 2 * y * n + 2 * x;
      out[y * m + x] = Math.round((data[i] + data[i + 1] + data[i + n] + data[i + n + 1]) / 4);
    }
  }
  return out;
}

/** The levels of one plane: level 0 and `count - 1` halvings. */
function pyramid(n, count, c, k, max, Type) {
  const levels = [level0(n, c, k, max, Type)];
  for (let l = 1; l < count; l++) levels.push(downsample(levels[l - 1], n >> (l - 1), Type));
  return levels;
}

function datasets(count, axes, pixel) {
  return Array.from({ length: count }, (_, l) => ({
    path: String(l),
    coordinateTransformations: [
      {
        type: "scale",
        scale: axes.map((a) =>
          a.type === "space" && a.name !== "z" ? pixel * 2 ** l : a.name === "z" ? 2 : 1,
        ),
      },
    ],
  }));
}

/** OME-Zarr 0.5 (v3, sharded): c, z, y, x. */
export async function makeOme05(dir, { n = 1024, levels = 4, channels = 2, planes = 3 } = {}) {
  await rm(dir, { recursive: true, force: true });
  const store = new FileSystemStore(dir);
  const axes = [
    { name: "c", type: "channel" },
    { name: "z", type: "space", unit: "micrometer" },
    { name: "y", type: "space", unit: "micrometer" },
    { name: "x", type: "space", unit: "micrometer" },
  ];
  await createGroup(store, "", {
    attributes: {
      ome: {
        version: "0.5",
        multiscales: [{ name: "rings", axes, datasets: datasets(levels, axes, 0.5) }],
        omero: {
          channels: [
            {
              label: "rings",
              color: "00FF00",
              active: true,
              window: { start: 0, end: 4000, min: 0, max: 65535 },
            },
            {
              label: "checks",
              color: "FF00FF",
              active: true,
              window: { start: 500, end: 3500, min: 0, max: 65535 },
            },
          ].slice(0, channels),
          rdefs: { defaultZ: 1, model: "color" },
        },
      },
    },
  });
  const planesOf = [];
  for (let c = 0; c < channels; c++)
    for (let z = 0; z < planes; z++) planesOf.push(pyramid(n, levels, c, z, 4000, Uint16Array));
  for (let l = 0; l < levels; l++) {
    const m = n >> l;
    const shard = Math.min(512, m);
    const inner = Math.min(128, m);
    const array = await createArray(store, String(l), {
      shape: [channels, planes, m, m],
      dataType: "uint16",
      chunkShape: [1, 1, shard, shard],
      dimensionNames: ["c", "z", "y", "x"],
      codecs: [
        {
          name: "sharding_indexed",
          configuration: {
            chunk_shape: [1, 1, inner, inner],
            codecs: [
              { name: "bytes", configuration: { endian: "little" } },
              { name: "gzip", configuration: { level: 1 } },
            ],
            index_codecs: [
              { name: "bytes", configuration: { endian: "little" } },
              { name: "crc32c" },
            ],
          },
        },
      ],
    });
    for (let c = 0; c < channels; c++)
      for (let z = 0; z < planes; z++)
        await array.set([c, z, null, null], planesOf[c * planes + z][l]);
  }
}

/** OME-Zarr 0.4 (v2): t, c, y, x. */
export async function makeOme04(dir, { n = 512, levels = 3, times = 2, channels = 3 } = {}) {
  await rm(dir, { recursive: true, force: true });
  const store = new FileSystemStore(dir);
  const axes = [
    { name: "t", type: "time", unit: "second" },
    { name: "c", type: "channel" },
    { name: "y", type: "space", unit: "micrometer" },
    { name: "x", type: "space", unit: "micrometer" },
  ];
  await createGroupV2(store, "", {
    attributes: {
      multiscales: [
        { version: "0.4", name: "legacy rings", axes, datasets: datasets(levels, axes, 1.5) },
      ],
      omero: {
        channels: ["FF0000", "00FF00", "0000FF"].slice(0, channels).map((color, c) => ({
          label: `ch${c}`,
          color,
          active: true,
          window: { start: 0, end: 255, min: 0, max: 255 },
        })),
        rdefs: { defaultT: 0, model: "color" },
      },
    },
  });
  const planesOf = [];
  for (let t = 0; t < times; t++)
    for (let c = 0; c < channels; c++) planesOf.push(pyramid(n, levels, c, t, 255, Uint8Array));
  for (let l = 0; l < levels; l++) {
    const m = n >> l;
    const array = await createArrayV2(store, String(l), {
      shape: [times, channels, m, m],
      chunks: [1, 1, Math.min(128, m), Math.min(128, m)],
      dtype: "|u1",
      compressor: { id: "zlib", level: 1 },
      fillValue: 0,
      dimensionSeparator: "/",
    });
    for (let t = 0; t < times; t++)
      for (let c = 0; c < channels; c++)
        await array.set([t, c, null, null], planesOf[t * channels + c][l]);
  }
}

/** A 4096² one-channel OME-Zarr 0.5 pyramid (uint8, 256² chunks, uncompressed). */
export async function makeBig(dir, { n = 4096, levels = 5 } = {}) {
  await rm(dir, { recursive: true, force: true });
  const store = new FileSystemStore(dir);
  const axes = [
    { name: "y", type: "space", unit: "nanometer" },
    { name: "x", type: "space", unit: "nanometer" },
  ];
  await createGroup(store, "", {
    attributes: {
      ome: {
        version: "0.5",
        multiscales: [{ name: "big", axes, datasets: datasets(levels, axes, 10) }],
      },
    },
  });
  const planes = pyramid(n, levels, 0, 0, 255, Uint8Array);
  for (let l = 0; l < levels; l++) {
    const m = n >> l;
    const array = await createArray(store, String(l), {
      shape: [m, m],
      dataType: "uint8",
      chunkShape: [256, 256],
      dimensionNames: ["y", "x"],
      codecs: [{ name: "bytes" }],
    });
    await array.set(null, planes[l]);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const out = resolve(process.argv[2] ?? "data");
  await mkdir(out, { recursive: true });
  const started = Date.now();
  await makeOme05(join(out, "ome05.zarr"));
  await makeOme04(join(out, "ome04.zarr"));
  if (process.argv.includes("--big")) await makeBig(join(out, "big.zarr"));
  console.log(`wrote ${out}/ome05.zarr and ome04.zarr in ${Date.now() - started} ms`);
}
