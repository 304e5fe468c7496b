// The README's main job, part 2: write an array, read it back, slice it.
// Run after `pnpm build` (the README's `pnpm demo` does both).
import "@zarr/codec-blosc/register";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArray, createGroup, openArray, openGroup, slice } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";

const dir = await mkdtemp(join(tmpdir(), "zarr-demo-"));
try {
  const store = new FileSystemStore(dir);
  await createGroup(store, "", { attributes: { title: "demo" } });

  // A 1000×1000 float32 array in 100×100 chunks, compressed with blosc (lz4 + shuffle).
  const a = await createArray(store, "grid", {
    shape: [1000, 1000],
    dataType: "float32",
    chunkShape: [100, 100],
    fillValue: "NaN",
    codecs: [
      { name: "bytes", configuration: { endian: "little" } },
      { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle" } },
    ],
    dimensionNames: ["y", "x"],
  });
  const values = new Float32Array(1000 * 1000);
  for (let i = 0; i < values.length; i++)
    values[i] = Math.sin(i / 1000) * Math.cos((i % 1000) / 100);
  await a.set(null, values);
  await a.set([slice(0, 10), slice(0, 10)], 42); // broadcast a scalar into a corner

  const reopened = await openArray(store, "grid");
  const row = await reopened.get([5, slice(0, 12)]);
  const col = await reopened.get([slice(null, null, -250), 999]);
  console.log(
    `wrote a ${reopened.shape.join("×")} ${reopened.dataType.name} array as a ${reopened.gridShape.join("×")} grid of ${reopened.chunkShape.join("×")} chunks to ${dir}`,
  );
  console.log(
    "row 5, columns 0..11:",
    Array.from(row.data, (v) => Number(v.toFixed(3))),
  );
  console.log(
    "column 999, every 250th row from the end:",
    Array.from(col.data, (v) => Number(v.toFixed(3))),
  );
  console.log("metadata codecs:", JSON.stringify(reopened.codecs.toJSON()));
  const root = await openGroup(store);
  console.log("group children:", await root.childNames(), "attributes:", root.attrs);
} finally {
  await rm(dir, { recursive: true, force: true });
}
