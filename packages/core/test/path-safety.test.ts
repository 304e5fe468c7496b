// Path safety through core (v3 core: "Abstract store interface" keys; "Node
// names"): keys with "..", ".", empty segments, a leading "/", NUL or other
// control characters, backslashes or lone surrogates are rejected by every
// operation of every store resolved by core, before the store sees them; node
// paths given to open/create/erase (and to Group methods) are rejected the same
// way. A spy store records every key that reaches it: all are valid.
import {
  type AnyStore,
  consolidate,
  createArray,
  createGroup,
  eraseNode,
  exists,
  InvalidKeyError,
  MemoryStore,
  open,
  openArray,
  openGroup,
  type Store,
} from "@zarr/core";
import { isValidKey, resolveStore } from "@zarr/core/store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const RUNS = Number(process.env.FUZZ_RUNS) || 10_000;

const BAD_KEYS = [
  "",
  "..",
  ".",
  "../x",
  "a/../b",
  "a/..",
  "a/./b",
  "/abs",
  "/",
  "a//b",
  "a/",
  "a\0b",
  "a\\..\\b",
  "..\\x",
  "a\nb",
  "a\u001fb",
  "a\ud800b",
  "a\udc00",
];
const BAD_PREFIXES = ["../", "/", "a/../", "./", "a//", "a\0/", "a\\b/", "a"];

/** A string of one UTF-16 unit in the surrogate range (iteration splits only unpaired ones). */
const isLoneSurrogate = (ch: string) =>
  ch.length === 1 && ch.charCodeAt(0) >= 0xd800 && ch.charCodeAt(0) <= 0xdfff;

/** A store that records every key and prefix it is handed. */
function spyStore(): { store: AnyStore; seen: string[] } {
  const seen: string[] = [];
  const inner = new MemoryStore();
  const store: AnyStore = {
    get(key, range) {
      seen.push(key);
      return inner.get(key, range);
    },
    set(key, value) {
      seen.push(key);
      return inner.set(key, value);
    },
    erase(key) {
      seen.push(key);
      return inner.erase(key);
    },
    async *list() {
      yield* inner.list();
    },
  };
  return { store, seen };
}

const collect = async (it: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const x of it) out.push(x);
  return out;
};

/** Every key-taking operation of a resolved store, applied to `key`. */
function keyOperations(s: Store, key: string): (() => Promise<unknown>)[] {
  const value = new Uint8Array([1]);
  return [
    () => s.get(key),
    () => s.get(key, { offset: 0, length: 1 }),
    () => s.getPartialValues([{ key: "ok" }, { key }]),
    () => s.getSize(key),
    () => s.has(key),
    () => s.set(key, value),
    () => s.setPartialValues([{ key, offset: 0, value }]),
    () => s.erase(key),
    () => s.eraseValues(["ok", key]),
  ];
}

function prefixOperations(s: Store, prefix: string): (() => Promise<unknown>)[] {
  return [
    () => s.erasePrefix(prefix),
    () => collect(s.listPrefix(prefix)),
    () => s.listDir(prefix),
  ];
}

describe("store keys through core", () => {
  it.each([
    ["MemoryStore", () => new MemoryStore() as AnyStore],
    ["a minimal third-party store", () => spyStore().store],
  ])("every operation of a resolved %s rejects each bad key and prefix", async (_, make) => {
    const s = resolveStore(make());
    for (const key of BAD_KEYS) {
      for (const op of keyOperations(s, key)) {
        await expect(op(), JSON.stringify(key)).rejects.toThrow(InvalidKeyError);
      }
    }
    for (const prefix of BAD_PREFIXES) {
      for (const op of prefixOperations(s, prefix)) {
        await expect(op(), JSON.stringify(prefix)).rejects.toThrow(InvalidKeyError);
      }
    }
    expect(await collect(s.list())).toEqual([]);
  });

  it("random keys: rejected with InvalidKeyError, or valid and round-tripping; the store only ever sees valid keys", async () => {
    const { store, seen } = spyStore();
    const s = resolveStore(store);
    const piece = fc.constantFrom(
      "a",
      "b",
      ".",
      "..",
      "/",
      "\\",
      "\0",
      "\u0001",
      " ",
      "\ud800",
      "\udc00",
      "é",
      "__",
      ".zarray",
      "c",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 8 }).map((p) => p.join("")),
        async (key) => {
          // The model: non-empty "/"-separated segments, none "." or "..", no control
          // character or backslash, well-formed UTF-16.
          const valid =
            key.length > 0 &&
            key.split("/").every((seg) => seg !== "" && seg !== "." && seg !== "..") &&
            [...key].every((ch) => ch >= " " && ch !== "\\" && !isLoneSurrogate(ch));
          if (!valid) {
            await expect(s.set(key, new Uint8Array([7]))).rejects.toThrow(InvalidKeyError);
            await expect(s.get(key)).rejects.toThrow(InvalidKeyError);
            return;
          }
          expect(isValidKey(key)).toBe(true);
          await s.set(key, new Uint8Array([7]));
          expect(await s.get(key)).toEqual(new Uint8Array([7]));
          await s.erase(key);
        },
      ),
      { seed: 42, numRuns: RUNS / 5 },
    );
    expect(seen.length).toBeGreaterThan(0);
    for (const key of seen) expect(isValidKey(key), JSON.stringify(key)).toBe(true);
  });
});

describe("node paths", () => {
  const BAD_PATHS = [
    "..",
    "a/..",
    "../a",
    "a/../b",
    ".",
    "a/./b",
    "a\\b",
    "..\\a",
    "a\0b",
    "__a",
    "a/__b",
  ];

  it("open, openArray, openGroup, createArray, createGroup, eraseNode, consolidate and exists reject bad paths", async () => {
    const { store, seen } = spyStore();
    await createGroup(store, "g");
    const before = seen.length;
    for (const path of BAD_PATHS) {
      const calls: (() => Promise<unknown>)[] = [
        () => open(store, path),
        () => openArray(store, path),
        () => openGroup(store, path),
        () => createArray(store, path, { shape: [1], dataType: "uint8" }),
        () => createGroup(store, path),
        () => eraseNode(store, path),
        () => consolidate(store, path),
        () => exists(store, path),
      ];
      for (const call of calls) {
        await expect(call(), JSON.stringify(path)).rejects.toThrow(InvalidKeyError);
      }
    }
    expect(seen.length).toBe(before); // nothing reached the store
  });

  it("Group methods taking a relative name reject names that climb or are malformed", async () => {
    const { store, seen } = spyStore();
    const group = await createGroup(store, "g");
    for (const name of ["..", "../x", "x/../../y", "a\\b", "a\0b", "."]) {
      await expect(group.get(name), name).rejects.toThrow(InvalidKeyError);
      await expect(group.contains(name), name).rejects.toThrow(InvalidKeyError);
      await expect(
        group.createArray(name, { shape: [1], dataType: "uint8" }),
        name,
      ).rejects.toThrow(InvalidKeyError);
      await expect(group.createGroup(name), name).rejects.toThrow(InvalidKeyError);
      await expect(group.erase(name), name).rejects.toThrow(InvalidKeyError);
    }
    for (const key of seen)
      expect(isValidKey(key) && (key === "zarr.json" || key.startsWith("g/"))).toBe(true);
  });

  it("leading, trailing and repeated slashes are normalized, never read as absolute paths", async () => {
    const store = new MemoryStore();
    await createArray(store, "/x//y/", { shape: [1], dataType: "uint8" });
    expect((await openArray(store, "x/y")).path).toBe("x/y");
    const keys = await collect(resolveStore(store).list());
    expect(keys.sort()).toEqual(["x/y/zarr.json", "x/zarr.json", "zarr.json"]);
  });
});
