/**
 * The viewer's pure parts in Node: OME-Zarr metadata (NGFF 0.4 and 0.5),
 * level choice and tile geometry, URL state, codec descriptions, the image
 * model over real arrays, local stores and the hierarchy tree.
 */
import "@zarr/codec-gzip/register";
import {
  consolidate,
  createArray,
  createGroup,
  type JsonObject,
  MemoryStore,
  openGroup,
} from "@zarr/core";
import { describe, expect, it } from "vitest";
import {
  imageOfArray,
  imageOfGroup,
  MAX_CHANNELS,
  MAX_LEVELS,
  readChunkShape,
  sliderAxes,
  tileSelection,
} from "../src/image.js";
import { describeCodec, physical } from "../src/info.js";
import { axisIndex, OmeMetadataError, parseColor, parseOme } from "../src/ome.js";
import { type FileMapStore, findRoot, openFileList } from "../src/open.js";
import { channelColour, compositeColour, tileDataOf, tileValue } from "../src/render.js";
import {
  chooseLevel,
  fitView,
  type LevelGeometry,
  LruCache,
  screenToLevel,
  tileRect,
  visibleTiles,
} from "../src/tiles.js";
import { hierarchyTree } from "../src/tree.js";
import { readUrlState, writeUrlState } from "../src/url.js";

const axes04: JsonObject[] = [
  { name: "t", type: "time", unit: "second" },
  { name: "c", type: "channel" },
  { name: "z", type: "space", unit: "micrometer" },
  { name: "y", type: "space", unit: "micrometer" },
  { name: "x", type: "space", unit: "micrometer" },
];

describe("OME-Zarr metadata", () => {
  it("0.4 (.zattrs top level): axes, datasets with scale and translation, omero channels (NGFF 0.4 §multiscales, §omero)", () => {
    const image = parseOme({
      multiscales: [
        {
          version: "0.4",
          name: "cells",
          axes: axes04,
          datasets: [
            {
              path: "0",
              coordinateTransformations: [{ type: "scale", scale: [1, 1, 0.5, 0.25, 0.25] }],
            },
            {
              path: "1",
              coordinateTransformations: [
                { type: "scale", scale: [1, 1, 0.5, 0.5, 0.5] },
                { type: "translation", translation: [0, 0, 0, 0.125, 0.125] },
              ],
            },
          ],
          coordinateTransformations: [{ type: "scale", scale: [2, 1, 1, 1, 1] }],
        },
      ],
      omero: {
        channels: [
          { label: "DAPI", color: "0000FF", window: { start: 10, end: 500, min: 0, max: 65535 } },
          { color: "not a colour", active: false },
        ],
        rdefs: { defaultT: 1, defaultZ: 3 },
      },
    })!;
    expect(image.version).toBe("0.4");
    expect(image.name).toBe("cells");
    expect(image.axes.map((a) => a.name)).toEqual(["t", "c", "z", "y", "x"]);
    expect(image.axes[4]!.unit).toBe("micrometer");
    // The multiscale's own scale applies after each dataset's (t: 2 seconds per step).
    expect(image.levels[0]).toEqual({
      path: "0",
      scale: [2, 1, 0.5, 0.25, 0.25],
      translation: [0, 0, 0, 0, 0],
    });
    expect(image.levels[1]!.translation).toEqual([0, 0, 0, 0.125, 0.125]);
    expect(image.channels).toEqual([
      { label: "DAPI", color: [0, 0, 255], window: [10, 500], active: true },
      { label: "channel 1", color: [255, 255, 255], active: false },
    ]);
    expect([image.defaultT, image.defaultZ]).toEqual([1, 3]);
    expect(axisIndex(image, "z")).toBe(2);
  });

  it("0.5 (zarr.json attributes under `ome`): version from `ome.version`", () => {
    const image = parseOme({
      ome: {
        version: "0.5",
        multiscales: [
          {
            axes: [
              { name: "y", type: "space" },
              { name: "x", type: "space" },
            ],
            datasets: [
              { path: "s0", coordinateTransformations: [{ type: "scale", scale: [1, 1] }] },
            ],
          },
        ],
      },
    })!;
    expect(image.version).toBe("0.5");
    expect(image.levels.map((l) => l.path)).toEqual(["s0"]);
    expect(image.channels).toBeUndefined();
  });

  it("plain attributes are not an image; malformed multiscales are errors naming the field", () => {
    expect(parseOme({ title: "weather" })).toBeUndefined();
    expect(() => parseOme({ multiscales: [] })).toThrow(OmeMetadataError);
    expect(() => parseOme({ multiscales: [{ axes: ["y", "x"], datasets: [] }] })).toThrow(
      /datasets/,
    );
    expect(() =>
      parseOme({
        multiscales: [
          {
            axes: ["y", "x"],
            datasets: [{ path: "0", coordinateTransformations: [{ type: "scale", scale: [1] }] }],
          },
        ],
      }),
    ).toThrow(/scale must be 2 numbers/);
    expect(() => parseOme({ multiscales: [{ axes: ["x"], datasets: [{ path: "0" }] }] })).toThrow(
      /2 to 5 axes/,
    );
    expect(parseColor("ff8000")).toEqual([255, 128, 0]);
  });
});

const level = (h: number, w: number, t: number, f: number): LevelGeometry => ({
  height: h,
  width: w,
  tileHeight: t,
  tileWidth: t,
  fy: f,
  fx: f,
});

describe("tiles", () => {
  const pyramid = [
    level(4096, 4096, 256, 1),
    level(2048, 2048, 256, 2),
    level(1024, 1024, 256, 4),
    level(512, 512, 256, 8),
  ];

  it("picks the level with one element per screen pixel (the finer one on a tie)", () => {
    expect(chooseLevel(pyramid, 1)).toBe(0);
    expect(chooseLevel(pyramid, 4)).toBe(0);
    expect(chooseLevel(pyramid, 0.5)).toBe(1);
    expect(chooseLevel(pyramid, 0.3)).toBe(2); // 1/0.3 = 3.3: 4 is closer than 2 in log scale
    expect(chooseLevel(pyramid, Math.SQRT1_2)).toBe(0);
    expect(chooseLevel(pyramid, 0.01)).toBe(3);
  });

  it("fits the image with a power-of-two zoom; only visible tiles are listed, clipped to the level", () => {
    const view = fitView(pyramid[0]!, 768, 512);
    expect(view).toEqual({ cx: 2048, cy: 2048, zoom: 0.125 });
    const k = chooseLevel(pyramid, view.zoom);
    expect(k).toBe(3);
    expect(visibleTiles(pyramid[k]!, view, 768, 512).map((t) => [t.ty, t.tx])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ]);
    // Zoomed in at the top-left corner of level 0: one tile and a half.
    const tiles = visibleTiles(pyramid[0]!, { cx: 200, cy: 100, zoom: 1 }, 300, 200);
    expect(tiles.map((t) => [t.ty, t.tx, t.y0, t.y1, t.x0, t.x1])).toEqual([
      [0, 0, 0, 256, 0, 256],
      [0, 1, 0, 256, 256, 512],
    ]);
    expect(visibleTiles(pyramid[0]!, { cx: -1000, cy: 0, zoom: 1 }, 300, 200)).toEqual([]);
    // Edge tiles stop at the level's end.
    const edge = visibleTiles(level(300, 300, 256, 1), { cx: 150, cy: 150, zoom: 1 }, 400, 400);
    expect(edge.at(-1)).toEqual({ ty: 1, tx: 1, y0: 256, y1: 300, x0: 256, x1: 300 });
  });

  it("places tiles on screen and maps the cursor back to elements", () => {
    const l1 = pyramid[1]!;
    const view = { cx: 512, cy: 512, zoom: 0.5 };
    expect(
      tileRect(l1, { ty: 0, tx: 1, y0: 0, y1: 256, x0: 256, x1: 512 }, view, 768, 512),
    ).toEqual([384, 0, 256, 256]);
    expect(screenToLevel(l1, view, 384, 0, 768, 512)).toEqual([0, 256]);
  });

  it("the LRU keeps the most recently used values within its size", () => {
    const lru = new LruCache<number[]>(10, (v) => v.length);
    lru.set("a", [1, 2, 3, 4]);
    lru.set("b", [1, 2, 3, 4]);
    expect(lru.get("a")).toEqual([1, 2, 3, 4]); // a is now the most recent
    lru.set("c", [1, 2, 3, 4]);
    expect([
      lru.get("a") !== undefined,
      lru.get("b") !== undefined,
      lru.get("c") !== undefined,
    ]).toEqual([true, false, true]);
    lru.set("huge", new Array(50).fill(0)); // larger than the cache: kept alone
    expect(lru.size).toBe(1);
  });
});

describe("URL state", () => {
  it("round-trips store, path, level, indices, view, channels and colour map", () => {
    const state = {
      store: "https://example.org/a.zarr/",
      path: "images/cells",
      level: 2,
      indices: { t: 3, z: 7 },
      view: { cx: 612.5, cy: 100, zoom: 0.25 },
      channels: [
        { lo: 0, hi: 4000, active: true },
        { lo: -1.5, hi: 2.25, active: false },
      ],
      cmap: "grey",
    };
    expect(readUrlState(`?${writeUrlState(state)}`)).toEqual(state);
  });

  it("ignores malformed parts and reads `array` as an alias of `path`", () => {
    const s = readUrlState("?array=temperature&level=-1&view=1,2&idx=t:x,z:4&ch=1:2:1;oops");
    expect(s).toEqual({ path: "temperature", indices: { z: 4 } });
    // Found by the fuzz test: -0 must read as 0 (written back as "0").
    expect(Object.is(readUrlState("?idx=t:-0").indices.t, 0)).toBe(true);
  });
});

describe("codec descriptions", () => {
  it("lists the inner and index codecs of sharding_indexed", () => {
    expect(
      describeCodec({
        name: "sharding_indexed",
        configuration: {
          chunk_shape: [32, 32],
          codecs: [
            { name: "bytes", configuration: { endian: "little" } },
            { name: "blosc", configuration: { cname: "lz4", clevel: 5 } },
          ],
          index_codecs: [
            { name: "bytes", configuration: { endian: "little" } },
            { name: "crc32c" },
          ],
          index_location: "end",
        },
      }),
    ).toBe(
      "sharding_indexed (inner chunks [32, 32]; codecs: bytes (endian little) → blosc (cname lz4, clevel 5); index: bytes (endian little) → crc32c at end)",
    );
    expect(physical(3, 0.5, 10, "micrometer")).toBe("11.5 micrometer");
    expect(physical(3, 1, 0)).toBe("3");
  });
});

describe("colours", () => {
  const green = {
    label: "g",
    map: "tint",
    color: [0, 200, 0] as [number, number, number],
    lo: 100,
    hi: 300,
    active: true,
  };
  it("tints scale the channel colour within the window, clamped; channels add up to 255", () => {
    expect(channelColour(200, green)).toEqual([0, 100, 0]);
    expect(channelColour(50, green)).toEqual([0, 0, 0]);
    expect(channelColour(1000, green)).toEqual([0, 200, 0]);
    expect(channelColour(Number.NaN, green)).toBeUndefined();
    const two = [
      { index: 0, settings: green },
      { index: 1, settings: { ...green, color: [255, 200, 0] as [number, number, number] } },
    ];
    expect(compositeColour(two, () => 300)).toEqual([255, 255, 0, 255]);
    expect(compositeColour(two, (c) => (c === 0 ? Number.NaN : 200))).toEqual([128, 100, 0, 255]);
    expect(compositeColour(two, () => Number.NaN)).toEqual([0, 0, 0, 0]);
  });
});

describe("images over arrays", () => {
  async function omeStore(): Promise<MemoryStore> {
    const store = new MemoryStore();
    const axes: JsonObject[] = [
      { name: "c", type: "channel" },
      { name: "y", type: "space", unit: "micrometer" },
      { name: "x", type: "space", unit: "micrometer" },
    ];
    await createGroup(store, "img", {
      attributes: {
        ome: {
          version: "0.5",
          multiscales: [
            {
              axes,
              datasets: [0, 1].map((l) => ({
                path: `s${l}`,
                coordinateTransformations: [
                  { type: "scale", scale: [1, 0.5 * 2 ** l, 0.5 * 2 ** l] },
                ],
              })),
            },
          ],
          omero: {
            channels: [{ color: "FF0000", window: { start: 0, end: 10 } }, { color: "00FF00" }],
          },
        },
      },
    });
    for (const [l, n] of [
      [0, 64],
      [1, 32],
    ] as const) {
      const a = await createArray(store, `img/s${l}`, {
        shape: [2, n, n],
        dataType: "uint16",
        chunkShape: [2, 16, 16],
        codecs: [
          {
            name: "sharding_indexed",
            configuration: {
              chunk_shape: [1, 8, 8],
              codecs: [{ name: "bytes", configuration: { endian: "little" } }],
            },
          },
        ],
      });
      await a.set(
        null,
        Uint16Array.from({ length: 2 * n * n }, (_, i) => i % 1000),
      );
    }
    await createGroup(store, "plain");
    await createArray(store, "plain/t", {
      shape: [3, 20, 30],
      dataType: "float32",
      chunkShape: [1, 10, 10],
    });
    await consolidate(store, "");
    return store;
  }

  it("an OME group: levels with factors from the scales, inner chunks as tiles, channels from omero", async () => {
    const store = await omeStore();
    const image = (await imageOfGroup(await openGroup(store, "img")))!;
    expect(image.levels.map((l) => [l.path, l.height, l.fy, l.tileHeight])).toEqual([
      ["s0", 64, 1, 8],
      ["s1", 32, 2, 8],
    ]);
    expect([image.yAxis, image.xAxis, image.cAxis]).toEqual([1, 2, 0]);
    expect(sliderAxes(image)).toEqual([]);
    expect(image.channels.map((c) => [c.color, c.lo, c.hi])).toEqual([
      [[255, 0, 0], 0, 10],
      [[0, 255, 0], 0, 65535], // no window: the data type's range
    ]);
    // A tile read: one inner chunk of channel 1, values checked against the written ones.
    const level = image.levels[1]!;
    const sel = tileSelection(image, level, { y0: 8, y1: 16, x0: 16, x1: 24 }, [0, 0, 0], 1);
    const data = tileDataOf(await level.array.get(sel), [0, 1, 2], 1, 2, 0, 1);
    expect([data.rows, data.cols, data.cStart, data.cCount]).toEqual([8, 8, 1, 1]);
    expect(tileValue(data, 1, 2, 3)).toBe((32 * 32 + (8 + 2) * 32 + 16 + 3) % 1000);
    expect(readChunkShape(level.array)).toEqual([1, 8, 8]);
  });

  it("levels whose scales say nothing (no transforms) get their factors from the shapes", async () => {
    const store = new MemoryStore();
    await createGroup(store, "", {
      attributes: { multiscales: [{ axes: ["y", "x"], datasets: [{ path: "a" }, { path: "b" }] }] },
    });
    await createArray(store, "a", { shape: [40, 60], dataType: "uint8", chunkShape: [10, 10] });
    await createArray(store, "b", { shape: [10, 15], dataType: "uint8", chunkShape: [10, 10] });
    const image = (await imageOfGroup(await openGroup(store, "")))!;
    expect(image.levels.map((l) => [l.fy, l.fx])).toEqual([
      [1, 1],
      [4, 4],
    ]);
    expect(image.channels[0]!.map).toBe("viridis"); // one channel, no omero: a colour map over the type's range
    expect([image.channels[0]!.lo, image.channels[0]!.hi]).toEqual([0, 255]);
  });

  it("a plain array: one level, the last two dimensions drawn, sliders for the rest", async () => {
    const store = await omeStore();
    const group = await openGroup(store, "plain");
    const array = await group.get("t");
    if (array.kind !== "array") throw new Error("expected an array");
    const image = imageOfArray(array);
    expect(image.levels).toHaveLength(1);
    expect(sliderAxes(image)).toEqual([0]);
    expect(Number.isNaN(image.channels[0]!.lo)).toBe(true); // fitted to the data once read
    expect(() => imageOfArray({ ...array, ndim: 1, path: "x" } as never)).toThrow(/1 dimension/);
  });

  it("the tree from consolidated metadata: OME images are leaves, arrays show type and shape", async () => {
    const store = await omeStore();
    const root = await openGroup(store, "");
    expect(root.consolidated).toBe(true);
    const { tree } = (await hierarchyTree(root, false))!;
    const flat = (e: typeof tree): string[] => [
      `${e.path}:${e.kind}:${e.detail}`,
      ...e.children.flatMap(flat),
    ];
    expect(flat(tree)).toEqual([
      ":group:consolidated",
      "img:image:OME-Zarr 0.5, 2 levels",
      "plain:group:consolidated",
      "plain/t:array:float32 [3, 20, 30]",
    ]);
  });

  it("a store that neither lists nor is consolidated has no tree", async () => {
    const store = new MemoryStore();
    await createGroup(store, "");
    const unlisted = { get: (k: string) => store.get(k) };
    expect(await hierarchyTree(await openGroup(unlisted, ""), false)).toBeUndefined();
  });
});

describe("very large images (caps)", () => {
  const multiscales = (datasets: number): JsonObject[] => [
    {
      version: "0.4",
      axes: [
        { name: "c", type: "channel" },
        { name: "y", type: "space" },
        { name: "x", type: "space" },
      ],
      datasets: Array.from({ length: datasets }, (_, i) => ({
        path: String(i),
        coordinateTransformations: [{ type: "scale", scale: [1, 2 ** i, 2 ** i] }],
      })),
    },
  ];

  it("an OME channel axis of 2,000,000 gives the first 64 channels and says so (review finding)", async () => {
    const store = new MemoryStore();
    await createGroup(store, "img", { attributes: { multiscales: multiscales(1) } });
    await createArray(store, "img/0", {
      shape: [2_000_000, 1, 1],
      dataType: "uint8",
      chunkShape: [1, 1, 1],
    });
    const image = (await imageOfGroup(await openGroup(store, "img")))!;
    expect(MAX_CHANNELS).toBe(64);
    expect(image.channels.length).toBe(64);
    expect(image.channels[63]!.label).toBe("channel 63");
    expect(image.notice).toBe("showing the first 64 of 2000000 channels");
  });

  it("a multiscale image lists 40 levels: the first 32 are opened and the notice says so", async () => {
    const store = new MemoryStore();
    await createGroup(store, "img", { attributes: { multiscales: multiscales(40) } });
    for (let i = 0; i < 32; i++) {
      await createArray(store, `img/${i}`, {
        shape: [2, 4, 4],
        dataType: "uint8",
        chunkShape: [1, 4, 4],
      });
    }
    // Levels past the cap are not even opened: they do not exist in this store.
    const image = (await imageOfGroup(await openGroup(store, "img")))!;
    expect(MAX_LEVELS).toBe(32);
    expect(image.levels.length).toBe(32);
    expect(image.levels[31]!.path).toBe("31");
    expect(image.channels.length).toBe(2);
    expect(image.notice).toBe("opened the first 32 of 40 levels");
  });

  it("an image within the caps has no notice", async () => {
    const store = new MemoryStore();
    await createGroup(store, "img", { attributes: { multiscales: multiscales(2) } });
    for (let i = 0; i < 2; i++) {
      await createArray(store, `img/${i}`, {
        shape: [3, 4, 4],
        dataType: "uint8",
        chunkShape: [1, 4, 4],
      });
    }
    const image = (await imageOfGroup(await openGroup(store, "img")))!;
    expect(image.levels.length).toBe(2);
    expect(image.channels.length).toBe(3);
    expect(image.notice).toBeUndefined();
  });
});

describe("local sources", () => {
  it("a folder's files: keys without the folder name, ranged reads, the hierarchy root found", async () => {
    const file = (path: string, text: string) =>
      Object.assign(new Blob([text]), {
        name: path.split("/").pop(),
        webkitRelativePath: path,
      }) as unknown as File;
    const source = openFileList([
      file("pick/data.zarr/zarr.json", '{"zarr_format":3,"node_type":"group"}'),
      file("pick/data.zarr/a/zarr.json", "{}"),
      file("pick/readme.txt", "hello"),
    ]);
    expect(source.label).toBe("local:pick");
    expect(await findRoot(source.store)).toBe("data.zarr");
    const store = source.store as FileMapStore;
    expect(new TextDecoder().decode(await store.get("readme.txt", { offset: 1, length: 3 }))).toBe(
      "ell",
    );
    expect(new TextDecoder().decode(await store.get("readme.txt", { suffix: 2 }))).toBe("lo");
    expect(await store.get("nope")).toBeUndefined();
  });
});
