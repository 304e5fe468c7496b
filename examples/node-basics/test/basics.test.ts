import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nodeBasics } from "../src/basics.js";

describe("examples/node-basics", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("runs every step and reads back what it wrote", async () => {
    const dir = await mkdtemp(join(tmpdir(), "zarr-node-basics-"));
    dirs.push(dir);
    const lines: string[] = [];
    const s = await nodeBasics(dir, (line) => lines.push(line));

    expect(s.shape).toEqual([10, 4, 6]);
    expect(s.day0Row0).toEqual([0, 1, 2, 3, 4, 5]);
    // days 0, 2, 4, 6, 8 at (0, 0); day 8 was overwritten with -1
    expect(s.everyOtherDayAtOrigin).toEqual([0, 200, 400, 600, -1]);
    // day 9, column -1 (x = 5), rows 3, 2, 1, 0
    expect(s.lastColumnReversed).toEqual([923, 917, 911, 905]);
    // day 3, rows {0, 3} × cols {1, 5}
    expect(s.pickedStations).toEqual([301, 305, 319, 323]);
    expect(s.attributes).toEqual({ units: "degC", source: "synthetic" });
    expect(s.children).toEqual(["stations", "temperature"]);
    expect(s.walked).toEqual(["array /stations/ids", "array /temperature", "group /stations"]);
    expect(s.resizedShape).toEqual([12, 4, 6]);
    expect(lines.at(-1)).toMatch(/resized to 12×4×6; day 11 starts with NaN/);
    expect(lines).toHaveLength(7);
  });
});
