import { describe, expect, it } from "vitest";
import {
  copyStrided,
  cStrides,
  normalizeSelection,
  projectChunks,
  resolveAxes,
  slice,
} from "../src/indexing/index.js";

describe("smoke", () => {
  it("gathers a negative-step slice across chunks", () => {
    const shape = [10, 7];
    const chunks = [3, 4];
    const sel = normalizeSelection([slice(8, 1, -3), [6, 0, 2, 2]], shape);
    expect(sel.shape).toEqual([3, 4]);
    const out = new Int32Array(12);
    const outStrides = cStrides(sel.shape);
    for (const p of projectChunks(sel, shape, chunks)) {
      const chunk = new Int32Array(12);
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 4; j++) {
          const gi = p.chunkCoords[0] * 3 + i;
          const gj = p.chunkCoords[1] * 4 + j;
          chunk[i * 4 + j] = gi < 10 && gj < 7 ? gi * 7 + gj : -1;
        }
      const r = resolveAxes(p.chunkSel, cStrides(chunks));
      copyStrided(chunk, r.offset, r.axes, r.strides, out, 0, [...p.outAxes], outStrides, 1);
    }
    const exp: number[] = [];
    for (const i of [8, 5, 2]) for (const j of [6, 0, 2, 2]) exp.push(i * 7 + j);
    expect(Array.from(out)).toEqual(exp);
  });
});
