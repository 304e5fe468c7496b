/** The viewer's pure parts: window clamping, selections, chunks in view, colours, painting. */
import { Slice } from "@zarr/core";
import { float32 } from "@zarr/core/internal";
import { describe, expect, it } from "vitest";
import { COLOUR_MAPS, colourIndex, interpolateStops } from "../src/colormap.js";
import { paint, planeOf, planeRange } from "../src/render.js";
import { chunksInView, initialState, viewSelection, viewWindow } from "../src/view.js";

describe("view", () => {
  const shape = [3, 300, 400];

  it("starts on the last two dimensions at index 0", () => {
    expect(initialState(shape, 256, 256)).toMatchObject({
      rowAxis: 1,
      colAxis: 2,
      indices: [0, 0, 0],
    });
  });

  it("clamps the window to the array", () => {
    const s = { ...initialState(shape, 256, 256), rowStart: 1000, colStart: -5 };
    expect(viewWindow(shape, s)).toEqual({ rowStart: 44, rows: 256, colStart: 0, cols: 256 });
    expect(viewWindow([2, 10, 20], initialState([2, 10, 20], 256, 256))).toEqual({
      rowStart: 0,
      rows: 10,
      colStart: 0,
      cols: 20,
    });
  });

  it("selects the window on the displayed axes and an index elsewhere", () => {
    const s = { ...initialState(shape, 256, 256), indices: [7, 0, 0], colStart: 10 };
    const sel = viewSelection(shape, s);
    expect(sel[0]).toBe(2); // clamped to the last plane
    expect(sel[1]).toEqual(new Slice(0, 256, null));
    expect(sel[2]).toEqual(new Slice(10, 266, null));
  });

  it("lists exactly the chunks the window touches", () => {
    const s = { ...initialState(shape, 256, 256), indices: [1, 0, 0], rowStart: 64, colStart: 65 };
    const chunks = chunksInView(shape, [1, 64, 64], s);
    // rows 64..319 -> chunk rows 1..4 (clamped: rows 44..299 -> 0..4); cols 65..320 -> 1..5
    const w = viewWindow(shape, s);
    expect(w).toEqual({ rowStart: 44, rows: 256, colStart: 65, cols: 256 });
    expect(chunks).toHaveLength(5 * 5);
    expect(chunks[0]).toEqual([1, 0, 1]);
    expect(chunks.at(-1)).toEqual([1, 4, 5]);
  });

  it("handles a transposed plane (rows after columns)", () => {
    const s = { ...initialState(shape, 256, 256), rowAxis: 2, colAxis: 0 };
    const w = viewWindow(shape, s);
    expect(w).toEqual({ rowStart: 0, rows: 256, colStart: 0, cols: 3 });
    expect(chunksInView(shape, [1, 64, 64], s)).toHaveLength(3 * 4);
  });
});

describe("colours", () => {
  it("maps the range onto 256 entries, clamps outside it, NaN to -1", () => {
    expect(colourIndex(0, 0, 10)).toBe(0);
    expect(colourIndex(10, 0, 10)).toBe(255);
    expect(colourIndex(5, 0, 10)).toBe(128);
    expect(colourIndex(-3, 0, 10)).toBe(0);
    expect(colourIndex(30, 0, 10)).toBe(255);
    expect(colourIndex(Number.NaN, 0, 10)).toBe(-1);
    expect(colourIndex(4, 4, 4)).toBe(0); // empty range
  });

  it("interpolates the stops: first and last entries are the end stops", () => {
    const t = interpolateStops([
      [0, 0, 0],
      [255, 128, 2],
    ]);
    expect([...t.subarray(0, 3)]).toEqual([0, 0, 0]);
    expect([...t.subarray(765, 768)]).toEqual([255, 128, 2]);
    for (const table of Object.values(COLOUR_MAPS)) expect(table).toHaveLength(768);
  });
});

describe("painting", () => {
  const array = {
    data: new Float32Array([0, 1, 2, Number.NaN, 4, 5]),
    shape: [2, 3],
    stride: [3, 1],
    dataType: float32,
  };

  it("paints row-major RGBA, NaN transparent", () => {
    const plane = planeOf(array, 0, 1);
    const px = new Uint8ClampedArray(2 * 3 * 4);
    paint(plane, px, 0, 5, COLOUR_MAPS.grey!);
    expect([...px.subarray(0, 4)]).toEqual([0, 0, 0, 255]);
    expect([...px.subarray(12, 16)]).toEqual([0, 0, 0, 0]);
    expect([...px.subarray(20, 24)]).toEqual([255, 255, 255, 255]);
    expect(planeRange(plane)).toEqual([0, 5]);
  });

  it("transposes when the row axis comes after the column axis", () => {
    const plane = planeOf(array, 1, 0);
    expect([plane.rows, plane.cols]).toEqual([3, 2]);
    const px = new Uint8ClampedArray(6 * 4);
    paint(plane, px, 0, 5, COLOUR_MAPS.grey!);
    // row 0 of the transposed plane is column 0 of the array: values 0 and NaN
    expect([...px.subarray(0, 8)]).toEqual([0, 0, 0, 255, 0, 0, 0, 0]);
  });
});
