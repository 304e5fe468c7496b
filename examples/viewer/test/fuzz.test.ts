/**
 * Untrusted input the viewer parses: group attributes (any JSON a dataset may
 * hold) and the page's query string. `parseOme` returns an image or undefined,
 * or throws OmeMetadataError, never another error; an image it returns is
 * usable (levels, finite transforms). The URL state round-trips.
 */
import type { JsonObject } from "@zarr/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OmeMetadataError, parseOme } from "../src/ome.js";
import { chooseLevel, type LevelGeometry, visibleTileCount, visibleTiles } from "../src/tiles.js";
import { readUrlState, writeUrlState } from "../src/url.js";

const json = fc.jsonValue({ maxDepth: 4 });
const axis = fc.oneof(
  fc.constantFrom("t", "c", "z", "y", "x"),
  fc.record(
    { name: fc.constantFrom("t", "c", "z", "y", "x", "q"), unit: fc.string() },
    { requiredKeys: [] },
  ),
  json,
);
const transform = fc.oneof(
  fc.record({
    type: fc.constant("scale"),
    scale: fc.array(fc.double({ noNaN: true }), { maxLength: 6 }),
  }),
  fc.record({
    type: fc.constant("translation"),
    translation: fc.array(fc.double({ noNaN: true }), { maxLength: 6 }),
  }),
  json,
);
/** Mostly well-shaped multiscales with random holes and wrong types. */
const multiscales = fc.record(
  {
    version: json,
    axes: fc.oneof(fc.array(axis, { maxLength: 6 }), json),
    datasets: fc.oneof(
      fc.array(
        fc.record({
          path: fc.oneof(fc.string(), json),
          coordinateTransformations: fc.array(transform, { maxLength: 3 }),
        }),
        { maxLength: 4 },
      ),
      json,
    ),
    coordinateTransformations: fc.oneof(fc.array(transform, { maxLength: 2 }), json),
  },
  { requiredKeys: [] },
);
const omero = fc.oneof(
  fc.record(
    {
      channels: fc.array(
        fc.oneof(json, fc.record({ color: fc.string(), window: json, label: json, active: json })),
        { maxLength: 3 },
      ),
      rdefs: json,
    },
    { requiredKeys: [] },
  ),
  json,
);
const attributes = fc.oneof(
  fc.record(
    { multiscales: fc.oneof(fc.array(multiscales, { maxLength: 2 }), json), omero },
    { requiredKeys: [] },
  ),
  fc.record({
    ome: fc.record(
      { version: json, multiscales: fc.array(multiscales, { maxLength: 2 }), omero },
      { requiredKeys: [] },
    ),
  }),
  fc.dictionary(fc.string(), json),
);

describe("fuzz", () => {
  it("parseOme: an image, undefined or OmeMetadataError for any attributes", () => {
    fc.assert(
      fc.property(attributes, (attrs) => {
        try {
          const image = parseOme(attrs as JsonObject);
          if (!image) return;
          expect(image.levels.length).toBeGreaterThan(0);
          for (const level of image.levels) {
            expect(typeof level.path).toBe("string");
            expect(level.scale).toHaveLength(image.axes.length);
            expect(level.translation).toHaveLength(image.axes.length);
          }
        } catch (e) {
          if (!(e instanceof OmeMetadataError)) throw e;
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("URL state: any query string reads without throwing, and what it reads writes back the same", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.dictionary(
          fc.constantFrom("store", "path", "level", "idx", "view", "ch", "cmap", "x"),
          fc.string(),
        ),
        (raw, params) => {
          readUrlState(raw);
          const state = readUrlState(`?${new URLSearchParams(params)}`);
          const again = readUrlState(`?${writeUrlState(state)}`);
          expect(again.path).toBe(state.path);
          expect(again.level).toBe(state.level);
          expect(again.indices).toEqual(state.indices);
          expect(again.store).toBe(state.store);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("tiles: visible tiles lie inside the level and cover the visible part of it", () => {
    const geometry = fc.record({
      height: fc.integer({ min: 1, max: 5000 }),
      width: fc.integer({ min: 1, max: 5000 }),
      tileHeight: fc.integer({ min: 8, max: 600 }),
      tileWidth: fc.integer({ min: 8, max: 600 }),
    });
    fc.assert(
      fc.property(
        geometry,
        fc.double({ min: -2000, max: 7000, noNaN: true }),
        fc.double({ min: -2000, max: 7000, noNaN: true }),
        fc.double({ min: 1 / 16, max: 16, noNaN: true }),
        (g, cx, cy, zoom) => {
          const level: LevelGeometry = { ...g, fy: 1, fx: 1 };
          const view = { cx, cy, zoom };
          const count = visibleTileCount(level, view, 300, 200);
          fc.pre(count <= 5000); // the viewer refuses views of more (MAX_TILES)
          const tiles = visibleTiles(level, view, 300, 200);
          let area = 0;
          let outside = 0;
          for (const t of tiles) {
            if (t.y0 < 0 || t.x0 < 0 || t.y1 > g.height || t.x1 > g.width) outside++;
            area += (t.y1 - t.y0) * (t.x1 - t.x0);
          }
          expect(outside).toBe(0);
          // The visible part of the level (clipped to whole elements) is covered.
          const rows =
            Math.min(g.height, Math.ceil(cy + 100 / zoom)) -
            Math.max(0, Math.floor(cy - 100 / zoom));
          const cols =
            Math.min(g.width, Math.ceil(cx + 150 / zoom)) -
            Math.max(0, Math.floor(cx - 150 / zoom));
          expect(tiles).toHaveLength(count);
          expect(area).toBeGreaterThanOrEqual(Math.max(0, rows) * Math.max(0, cols));
          expect(chooseLevel([level], zoom)).toBe(0);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
