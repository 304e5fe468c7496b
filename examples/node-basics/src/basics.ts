/**
 * The basics on a local directory, step by step: groups, arrays, writing,
 * reading, slicing, attributes, resizing and walking the hierarchy. Each step
 * logs one line; the returned summary is what the test checks.
 *
 * @module
 */
import "@zarr/codec-gzip/register"; // the codecs used below must be registered once
import { createArray, createGroup, type NDArray, openArray, openGroup, slice } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";

/** What {@link nodeBasics} read back, for checking. */
export interface BasicsSummary {
  shape: readonly number[];
  day0Row0: number[];
  everyOtherDayAtOrigin: number[];
  lastColumnReversed: number[];
  pickedStations: number[];
  attributes: Record<string, unknown>;
  children: string[];
  walked: string[];
  resizedShape: readonly number[];
}

const values = (a: NDArray) => Array.from(a.data as ArrayLike<number>);

/** Runs every step in the directory `dir` (created if missing), logging through `log`. */
export async function nodeBasics(
  dir: string,
  log: (line: string) => void = console.log,
): Promise<BasicsSummary> {
  const store = new FileSystemStore(dir);

  // 1. A root group with attributes, and a sub-group.
  const root = await createGroup(store, "", { attributes: { title: "node basics" } });
  const stations = await root.createGroup("stations", { attributes: { network: "demo" } });
  log(`created groups "/" and "/stations" in ${dir}`);

  // 2. A 3-D float32 array: 10 days × 4 × 6 cells, one chunk per day, gzip.
  const temps = await createArray(store, "temperature", {
    shape: [10, 4, 6],
    dataType: "float32",
    chunkShape: [1, 4, 6],
    fillValue: "NaN",
    codecs: [
      { name: "bytes", configuration: { endian: "little" } },
      { name: "gzip", configuration: { level: 5 } },
    ],
    dimensionNames: ["day", "y", "x"],
    attributes: { units: "degC" },
  });
  log(
    `created a ${temps.shape.join("×")} ${temps.dataType.name} array as a ${temps.gridShape.join("×")} grid of ${temps.chunkShape.join("×")} chunks`,
  );

  // 3. Writing: a whole day from a flat C-order array, then a scalar broadcast.
  for (let day = 0; day < 10; day++) {
    const grid = Float32Array.from({ length: 4 * 6 }, (_, i) => day * 100 + i);
    await temps.set([day, null, null], grid);
  }
  await temps.set([slice(8, 10), 0, slice(0, 2)], -1); // a scalar fills the selection

  // 4. Reading and slicing (NumPy semantics; negative steps, integer arrays).
  const reopened = await openArray(store, "temperature");
  const shape = [...reopened.shape];
  const row = await reopened.get([0, 0, null]);
  const origin = await reopened.get([slice(null, null, 2), 0, 0]);
  const lastColumn = await reopened.get([9, slice(null, null, -1), -1]);
  const picked = await reopened.get([3, [0, 3], [1, 5]]); // orthogonal: rows {0,3} × cols {1,5}
  log(`row 0 of day 0: ${values(row).join(", ")}`);
  log(`every other day at (0, 0): ${values(origin).join(", ")}`);

  // 5. Attributes: merge an update, read them back from a fresh open.
  await reopened.updateAttributes({ source: "synthetic" });
  const attributes = (await openArray(store, "temperature")).attrs;
  log(`attributes: ${JSON.stringify(attributes)}`);

  // 6. Groups: an array inside a sub-group, children, a walk of the hierarchy.
  const ids = await stations.createArray("ids", { shape: [3], dataType: "int32", chunkShape: [3] });
  await ids.set(null, Int32Array.of(101, 102, 103));
  const group = await openGroup(store);
  const children = (await group.childNames()).sort();
  const walked: string[] = [];
  for await (const node of group.walk()) walked.push(`${node.kind} /${node.path}`);
  walked.sort();
  log(`hierarchy: ${walked.join("; ")}`);

  // 7. Resize: grow the day axis; new days read as the fill value.
  await reopened.resize([12, 4, 6]);
  const resized = await openArray(store, "temperature");
  log(
    `resized to ${resized.shape.join("×")}; day 11 starts with ${values(await resized.get([11, 0, 0]))}`,
  );

  return {
    shape,
    day0Row0: values(row),
    everyOtherDayAtOrigin: values(origin),
    lastColumnReversed: values(lastColumn),
    pickedStations: values(picked),
    attributes,
    children,
    walked,
    resizedShape: [...resized.shape],
  };
}
