// Path safety: reference keys that could escape a store's root (`..`/`.`
// segments, absolute, empty segments, backslash, NUL) are refused when the
// references are parsed, with a StoreError naming the key; relative targets
// may not climb out of the reference file's folder; keys and prefixes given
// to the store are validated before any lookup (the checks of
// packages/test-utils/src/store-suites.ts: ESCAPING_KEYS, ESCAPING_PREFIXES).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidKeyError, StoreError } from "@zarr/core";
import { isValidKey, resolveStore } from "@zarr/core/store";
import "@zarr/store-fs/register";
import { parseJsonReferences, ReferenceStore } from "@zarr/store-reference";
import { ESCAPING_KEYS, ESCAPING_PREFIXES } from "@zarr/test-utils/store-suites";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const RUNS = Math.max(200, Math.floor((Number(process.env.FUZZ_RUNS) || 10_000) / 5));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "zarr-ref-paths-"));
  await writeFile(join(dir, "secret"), "beside the references");
  await writeFile(join(dir, "inside.bin"), "inside");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("reference keys that would escape are refused when parsed", () => {
  it.each(ESCAPING_KEYS.map((k) => [JSON.stringify(k), k]))("%s", (_, key) => {
    const error = (() => {
      try {
        parseJsonReferences({ [key]: "x" });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).path).toBe(key);
    expect((error as StoreError).message).toContain(JSON.stringify(key));
  });
});

describe("keys and prefixes given to the store are validated before any lookup", () => {
  const store = () =>
    ReferenceStore.fromJson(
      { "a/b": "x" },
      { targets: { read: () => Promise.reject(new Error("read")), close: async () => {} } },
    );
  it.each(ESCAPING_KEYS.map((k) => [JSON.stringify(k), k]))(
    "key %s: InvalidKeyError directly and through core",
    async (_, key) => {
      const direct = store();
      const resolved = resolveStore(direct);
      for (const call of [
        () => direct.get(key),
        () => direct.get(key, { suffix: 3 }),
        () => direct.getSize(key),
        () => resolved.get(key),
        () => resolved.getPartialValues([{ key, range: { offset: 0, length: 1 } }]),
        () => resolved.has(key),
      ]) {
        await expect(call()).rejects.toBeInstanceOf(InvalidKeyError);
      }
      await expect(resolved.set(key, Uint8Array.of(1))).rejects.toBeInstanceOf(StoreError);
    },
  );
  it.each(ESCAPING_PREFIXES.map((p) => [JSON.stringify(p), p]))(
    "prefix %s: listDir and listPrefix throw InvalidKeyError",
    async (_, prefix) => {
      for (const s of [store(), resolveStore(store())]) {
        await expect(s.listDir(prefix)).rejects.toBeInstanceOf(InvalidKeyError);
        const iterate = async () => {
          for await (const _ of s.listPrefix(prefix));
        };
        await expect(iterate()).rejects.toBeInstanceOf(InvalidKeyError);
      }
    },
  );
  it("the store is read-only: writes are refused", async () => {
    const s = resolveStore(store());
    expect(s.writable).toBe(false);
    await expect(s.set("a/b", Uint8Array.of(1))).rejects.toBeInstanceOf(StoreError);
    await expect(s.erase("a/b")).rejects.toBeInstanceOf(StoreError);
  });
});

describe("relative targets stay inside the reference file's folder", () => {
  it.each(["../secret", "sub/../../secret", "./inside.bin", "sub//inside.bin", "sub\\..\\secret"])(
    "%j is a StoreError naming the key, and nothing is read",
    async (url) => {
      const store = ReferenceStore.fromJson(
        { "a/0": [url, 0, 4], "a/1": [url] },
        { base: join(dir, "refs") },
      );
      for (const key of ["a/0", "a/1"]) {
        const error = await store.get(key).catch((e) => e);
        expect(error).toBeInstanceOf(StoreError);
        expect(error.path).toBe(key);
        expect(error.message).toContain(JSON.stringify(key));
      }
      await store.close();
    },
  );
  it("a plain relative name inside the folder is read", async () => {
    const store = ReferenceStore.fromJson({ "a/0": ["inside.bin", 1, 3] }, { base: dir });
    expect(new TextDecoder().decode(await store.get("a/0"))).toBe("nsi");
    await store.close();
  });
});

describe("random reference keys made of dangerous pieces", () => {
  const piece = fc.constantFrom(
    "a",
    "zarr.json",
    "c",
    "0",
    "..",
    ".",
    "/",
    "\\",
    "\u0000",
    "\u001f",
    "C:",
    "é",
    " ",
    "%2e%2e",
  );
  it(`${RUNS} keys: refused with a StoreError naming the key, or listed as valid store keys`, async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 6 }), async (pieces) => {
        const key = pieces.join("");
        let store: ReferenceStore;
        try {
          store = ReferenceStore.fromJson({ version: 1, refs: { [key]: "v" } });
        } catch (e) {
          expect(e).toBeInstanceOf(StoreError);
          expect((e as StoreError).path).toBe(key);
          expect(isValidKey(key)).toBe(false);
          return;
        }
        accepted++;
        expect(isValidKey(key)).toBe(true);
        for await (const k of store.list()) expect(k).toBe(key);
      }),
      { seed: 42, numRuns: RUNS },
    );
    console.info(`${RUNS} random keys: ${accepted} accepted, ${RUNS - accepted} refused`);
  });
});
