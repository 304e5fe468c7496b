// Parquet reference lookups with hyparquet: 100,000 references in a
// kerchunk-layout directory (record_size 10,000: ten refs.N.parq files,
// written in memory with hyparquet-writer, snappy pages), read through
// ParquetReferences. Run after `pnpm --filter @zarr/store-reference build`:
//   node packages/store-reference/bench/parquet-refs.mjs
import { parquetWriteBuffer } from "hyparquet-writer";
import { ParquetReferences } from "../dist/parquet.js";

const N = 100_000;
const RECORD = 10_000;
const files = new Map();
files.set(
  ".zmetadata",
  new TextEncoder().encode(
    JSON.stringify({
      record_size: RECORD,
      metadata: {
        ".zgroup": { zarr_format: 2 },
        "a/.zarray": { zarr_format: 2, shape: [N], chunks: [1], dtype: "<f8" },
      },
    }),
  ),
);
let bytes = 0;
for (let r = 0; r < N / RECORD; r++) {
  const rows = Array.from({ length: RECORD }, (_, i) => r * RECORD + i);
  const file = new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        {
          name: "path",
          type: "STRING",
          data: rows.map((i) => `s3://bucket/era5/file_${Math.floor(i / 1000)}.nc`),
        },
        { name: "offset", type: "INT64", data: rows.map((i) => BigInt(4096 + (i % 1000) * 8192)) },
        { name: "size", type: "INT64", data: rows.map(() => 8192n) },
        { name: "raw", type: "BYTE_ARRAY", nullable: true, data: rows.map(() => null) },
      ],
    }),
  );
  bytes += file.length;
  files.set(`a/refs.${r}.parq`, file);
}

for (let run = 0; run < 3; run++) {
  const td = performance.now();
  const fresh = await ParquetReferences.open(async (name) => files.get(name), {
    cachedRecords: 16,
  });
  for (let r = 0; r < N / RECORD; r++) await fresh.lookup(`a/${r * RECORD}`);
  const decode = performance.now() - td;
  const t0 = performance.now();
  const refs = await ParquetReferences.open(async (name) => files.get(name), { cachedRecords: 16 });
  let sum = 0;
  for (let i = 0; i < N; i++) sum += (await refs.lookup(`a/${i}`)).offset;
  const cold = performance.now() - t0;
  const t1 = performance.now();
  for (let i = 0; i < N; i++) sum += (await refs.lookup(`a/${i}`)).offset;
  const warm = performance.now() - t1;
  console.log(
    `run ${run}: ${N} refs in ${files.size - 1} files (${(bytes / 1024).toFixed(0)} KiB): ` +
      `hyparquet decode of the ${files.size - 1} files ${decode.toFixed(0)} ms; decode + lookup all ${cold.toFixed(0)} ms (${(((N / cold) * 1000) / 1e6).toFixed(2)} M refs/s), ` +
      `cached lookups ${warm.toFixed(0)} ms (${sum > 0 ? "ok" : ""})`,
  );
}
