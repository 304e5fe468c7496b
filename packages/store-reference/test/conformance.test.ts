// v3 core: "Abstract store interface" (read-only, listable) through core's
// conformance suite: each case's data becomes a kerchunk reference set whose
// values are byte ranges of one packed target file, whole target files, or
// inline base64 data.
import { MemoryStore, registerStore, storeConformanceCases } from "@zarr/core/store";
import { ReferenceStore } from "@zarr/store-reference";
import { describe, it } from "vitest";

// Targets live in MemoryStores reached through a test scheme: conf-mem://N/NAME.
const targets = new Map<string, MemoryStore>();
registerStore("conf-mem", {
  async open(url: string) {
    const store = targets.get(/^conf-mem:\/\/([^/]+)\//.exec(url)?.[1] ?? "");
    if (store === undefined) throw new Error(`no test store for ${url}`);
    return store;
  },
});
let next = 0;

async function referencesTo(initial: ReadonlyMap<string, Uint8Array>, mode: "ranges" | "inline") {
  const id = String(next++);
  const memory = new MemoryStore();
  targets.set(id, memory);
  const refs: Record<string, unknown> = {};
  const packed: Uint8Array[] = [];
  let offset = 7; // something before the first value
  packed.push(new Uint8Array(7).fill(0xee));
  let i = 0;
  for (const [key, value] of initial) {
    if (mode === "inline") {
      refs[key] = `base64:${Buffer.from(value).toString("base64")}`;
    } else if (i++ % 3 === 2) {
      await memory.set(`whole${i}`, value.slice());
      refs[key] = [`conf-mem://${id}/whole${i}`];
    } else {
      refs[key] = [`conf-mem://${id}/pack.bin`, offset, value.length];
      packed.push(value, Uint8Array.of(0xee));
      offset += value.length + 1;
    }
  }
  const pack = new Uint8Array(offset);
  let at = 0;
  for (const p of packed) {
    pack.set(p, at);
    at += p.length;
  }
  await memory.set("pack.bin", pack);
  return { version: 1, refs };
}

describe("ReferenceStore conformance (ranges of one target, whole targets)", () => {
  for (const c of storeConformanceCases({
    writable: false,
    async create(initial) {
      return ReferenceStore.fromJson(await referencesTo(initial, "ranges"));
    },
    destroy: (store) => (store as ReferenceStore).close(),
  })) {
    it(c.name, c.run);
  }
});

describe("ReferenceStore conformance (inline base64 values)", () => {
  for (const c of storeConformanceCases({
    writable: false,
    async create(initial) {
      return ReferenceStore.fromJson(await referencesTo(initial, "inline"));
    },
  })) {
    it(c.name, c.run);
  }
});
