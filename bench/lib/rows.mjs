// The benchmark table: one row per codec configuration. `v2` is the numcodecs
// compressor zarr-python writes (and our library and zarr.js write the same);
// `v3` is the codec list for implementations that only write Zarr v3 (zarrita).

/** @typedef {{ id: string, label: string, v2: object | null, v3: object[] }} Row */

/** @type {Row[]} */
export const ROWS = [
  { id: "raw", label: "raw (no compressor)", v2: null, v3: [] },
  {
    id: "zlib1",
    label: "zlib 1",
    v2: { id: "zlib", level: 1 },
    v3: [{ name: "zlib", configuration: { level: 1 } }],
  },
  {
    id: "gzip5",
    label: "gzip 5",
    v2: { id: "gzip", level: 5 },
    v3: [{ name: "gzip", configuration: { level: 5 } }],
  },
  {
    id: "blosc-lz4",
    label: "blosc lz4 shuffle",
    v2: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 },
    v3: [
      {
        name: "blosc",
        configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 },
      },
    ],
  },
  {
    id: "blosc-zstd",
    label: "blosc zstd shuffle",
    v2: { id: "blosc", cname: "zstd", clevel: 5, shuffle: 1, blocksize: 0 },
    v3: [
      {
        name: "blosc",
        configuration: { cname: "zstd", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 },
      },
    ],
  },
  {
    id: "blosc-blosclz",
    label: "blosc blosclz bitshuffle",
    v2: { id: "blosc", cname: "blosclz", clevel: 5, shuffle: 2, blocksize: 0 },
    v3: [
      {
        name: "blosc",
        configuration: {
          cname: "blosclz",
          clevel: 5,
          shuffle: "bitshuffle",
          typesize: 4,
          blocksize: 0,
        },
      },
    ],
  },
  {
    id: "zstd3",
    label: "zstd 3",
    v2: { id: "zstd", level: 3 },
    v3: [{ name: "zstd", configuration: { level: 3, checksum: false } }],
  },
];

/** Array geometry: the 64 MiB float32 4096×4096 in 512×512 chunks (quick: 16 MiB). */
export function geometry(quick) {
  const n = quick ? 2048 : 4096;
  return { shape: [n, n], chunks: [512, 512], dtype: "<f4", bytes: n * n * 4 };
}

/** Sharded array for partial reads: shards of 2048² (1024² quick) holding 256² inner chunks. */
export function shardedGeometry(quick) {
  const n = quick ? 2048 : 4096;
  return { shape: [n, n], shard: quick ? [1024, 1024] : [2048, 2048], inner: [256, 256] };
}

/**
 * The value at (i, j) of every benchmark array: a smooth field with a little
 * structure, so compressors see realistic (not trivial) input. Python uses the
 * same formula in float64 and rounds to float32 once.
 */
export function fillField(data, n, rowStart = 0, rows = n) {
  for (let i = 0; i < rows; i++) {
    const gi = rowStart + i;
    const a = Math.sin(gi / 37) * 100;
    for (let j = 0; j < n; j++) {
      data[i * n + j] = a * Math.cos(j / 23) + gi * 0.01 + ((gi * 7 + j * 13) % 17) * 0.001;
    }
  }
  return data;
}

const LZ4 = ROWS.find((r) => r.id === "blosc-lz4");

/**
 * Per-chunk overhead: float32 2048×2048 in 64×64 chunks (1,024 chunks, 16 KiB
 * each), written by zarr-python as Zarr v2 so that every reader can read it.
 * The same size in quick and full runs (16 MiB).
 * @type {(Row & { path: string, shape: number[], chunks: number[], dtype: string })[]}
 */
export const SMALL_CHUNK_ROWS = [
  {
    id: "small-raw",
    label: "1,024 chunks of 64×64, raw",
    v2: null,
    v3: [],
    path: "small-raw.zarr",
    shape: [2048, 2048],
    chunks: [64, 64],
    dtype: "<f4",
  },
  {
    id: "small-lz4",
    label: "1,024 chunks of 64×64, blosc lz4 shuffle",
    v2: LZ4.v2,
    v3: LZ4.v3,
    path: "small-lz4.zarr",
    shape: [2048, 2048],
    chunks: [64, 64],
    dtype: "<f4",
  },
];

/**
 * 1-D reads of a few chunks: float64, 10,000,000 elements in 1,000,000-element
 * chunks (Zarr v2 by zarr-python). Each read takes 2,000,000 elements starting
 * half-way into a chunk, so it touches 3 chunks (two of them partly).
 */
export const LINE_ROWS = [
  {
    id: "line-raw",
    label: "float64 1-D, 3 of 10 chunks, raw",
    v2: null,
    v3: [],
    path: "line-raw.zarr",
    shape: [10_000_000],
    chunks: [1_000_000],
    dtype: "<f8",
  },
  {
    id: "line-lz4",
    label: "float64 1-D, 3 of 10 chunks, blosc lz4 shuffle",
    v2: { ...LZ4.v2 },
    v3: [],
    path: "line-lz4.zarr",
    shape: [10_000_000],
    chunks: [1_000_000],
    dtype: "<f8",
  },
];

/** The slices of a 1-D row read in turn: [start, stop) over 3 chunks, the start moving by one chunk. */
export function lineSlices(row, count) {
  const c = row.chunks[0];
  const spans = Math.floor(row.shape[0] / c) - 3;
  return Array.from({ length: count }, (_, k) => {
    const start = (k % (spans + 1)) * c + c / 2;
    return [[start, start + 2 * c]];
  });
}

/** Value of element k of the 1-D arrays (gen.py computes the same in float64). */
export function lineValue(k) {
  return Math.sin(k / 1000) * 100 + k * 1e-6;
}
