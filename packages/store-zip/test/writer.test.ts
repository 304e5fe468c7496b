import { open, readFile, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { bytesSource, ZipFormatError, ZipStore, ZipWriter } from "@zarr/store-zip";
import { createZipFile, fileSink, fileSource, openZipFile } from "@zarr/store-zip/node";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUnzip, tempDir, unzipTest, zipBytes } from "./helpers.js";

const python = findPython(["zipfile", "json"]);
if (!python) console.warn(pythonSkipReason(["zipfile"]));
const unzip = findUnzip();

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterAll(() => cleanup());

/** Python's zipfile: testzip() and every member's name, size and a digest of its content. */
function pythonRead(path: string): { bad: string | null; members: [string, number, string][] } {
  const script = `
import sys, json, zipfile, hashlib
z = zipfile.ZipFile(sys.argv[1] if len(sys.argv) > 1 else ${JSON.stringify(path)})
bad = z.testzip()
out = [[i.filename, i.file_size, hashlib.sha1(z.read(i)).hexdigest()[:12]] for i in z.infolist()[:50]]
print(json.dumps({"bad": bad, "members": out, "count": len(z.infolist())}))
`;
  return JSON.parse(runPython(python!, script).toString());
}

const utf8 = (s: string) => new TextEncoder().encode(s);
const sample: [string, Uint8Array][] = [
  ["data.zarr/zarr.json", utf8('{"zarr_format":3,"node_type":"group"}')],
  ["data.zarr/a/c/0/0", Uint8Array.from({ length: 50_000 }, (_, i) => i % 7)],
  ["data.zarr/random", Uint8Array.from({ length: 3000 }, (_, i) => (i * 2654435761) >>> 24)],
  ["data.zarr/empty", new Uint8Array(0)],
  ["data.zarr/ünï cødé/🙂", utf8("unicode names are flagged UTF-8")],
];

describe("ZipWriter output is accepted by unzip and Python's zipfile", () => {
  for (const [label, options] of [
    ["deflated", {}],
    ["stored", { compress: false }],
    ["forced zip64", { forceZip64: true }],
  ] as const) {
    it(`${label}: unzip -t, zipfile.testzip and our reader agree`, async () => {
      const path = join(dir, `sample-${label.replace(" ", "-")}.zip`);
      const writer = createZipFile(path, options);
      for (const [name, data] of sample) await writer.add(name, data);
      await writer.close();
      if (unzip) {
        const [status, out] = unzipTest(path);
        expect(status, out).toBe(0);
        expect(out).toMatch(/No errors detected/);
      }
      if (python) {
        const r = pythonRead(path);
        expect(r.bad).toBeNull();
        expect(r.members.map((m) => [m[0], m[1]])).toEqual(sample.map(([n, d]) => [n, d.length]));
      }
      const store = await openZipFile(path, { root: "data.zarr" });
      for (const [name, data] of sample) {
        expect(await store.get(name.slice("data.zarr/".length))).toEqual(data);
      }
      await store.close();
    });
  }

  it("more than 65,535 entries: zip64 end records", async () => {
    const path = join(dir, "many.zip");
    const writer = new ZipWriter(fileSink(path), { compress: false });
    const n = 70_000;
    for (let i = 0; i < n; i++) await writer.add(`k/${i}`, utf8(String(i)));
    await writer.close();
    const store = await ZipStore.open(fileSource(path));
    expect(store.directory.entries.length).toBe(n);
    expect(new TextDecoder().decode(await store.get("k/69999"))).toBe("69999");
    await store.close();
    if (unzip) expect(unzipTest(path)[0]).toBe(0);
    if (python) {
      const count = runPython(
        python,
        `import zipfile; print(len(zipfile.ZipFile(${JSON.stringify(path)}).infolist()))`,
      );
      expect(Number(count.toString())).toBe(n);
    }
  }, 60_000);

  it("entries beyond 4 GiB: zip64 offsets (sparse file with 5 GiB before the archive)", async () => {
    const path = join(dir, "far.zip");
    const start = 5 * 2 ** 30;
    await writeFile(path, new Uint8Array(0));
    await truncate(path, start); // sparse: no 5 GiB written
    const handle = await open(path, "r+");
    let position = start;
    const writer = new ZipWriter(
      {
        async write(chunk) {
          await handle.write(chunk, 0, chunk.length, position);
          position += chunk.length;
        },
        close: () => handle.close(),
      },
      { startOffset: start },
    );
    for (const [name, data] of sample) await writer.add(name, data);
    await writer.close();
    const store = await ZipStore.open(fileSource(path), { root: "data.zarr" });
    expect(store.directory.entries[0].localHeaderOffset).toBe(start);
    expect(await store.get("a/c/0/0")).toEqual(sample[1][1]);
    await store.close();
    if (unzip) {
      const [status, out] = unzipTest(path);
      // unzip warns about the 5 GiB of leading zeros (exit 1 = warning) but checks every entry.
      expect([0, 1]).toContain(status);
      expect(out).toMatch(/No errors detected/);
    }
    if (python) expect(pythonRead(path).bad).toBeNull();
  });
});

describe("ZipWriter rules", () => {
  it("rejects names that escape the root, and duplicates", async () => {
    const w = new ZipWriter({ write() {} });
    for (const name of ["../x", "/abs", "a\\b", "a//b", "./a", "C:/x", "a/", "", "a/../b"]) {
      await expect(w.add(name, new Uint8Array(1)), name).rejects.toThrow(ZipFormatError);
    }
    await w.add("ok", new Uint8Array(1));
    await expect(w.add("ok", new Uint8Array(1))).rejects.toThrow(/write-once/);
    await w.close();
    await expect(w.add("late", new Uint8Array(1))).rejects.toThrow(/closed/);
  });

  it("keeps the order of concurrent adds and stores incompressible data", async () => {
    const files: [string, Uint8Array][] = Array.from({ length: 64 }, (_, i) => [
      `f${i}`,
      Uint8Array.from({ length: 100 + i * 10 }, (_, j) => (j * 2654435761 + i) >>> 24),
    ]);
    const bytes = await zipBytes(files);
    const store = await ZipStore.open(bytesSource(bytes));
    expect(store.directory.entries.map((e) => e.name)).toEqual(files.map(([n]) => n));
    for (const [name, data] of files) expect(await store.get(name)).toEqual(data);
  });

  it("a failing sink fails the writer, and close reports it", async () => {
    let writes = 0;
    const w = new ZipWriter({
      write() {
        if (++writes > 1) throw new Error("disk full");
      },
    });
    await expect(w.add("a", new Uint8Array(10))).rejects.toThrow(/disk full/);
    await expect(w.close()).rejects.toThrow(/failed earlier/);
  });

  it("output is byte-identical for the same input and date", async () => {
    const date = new Date(2024, 0, 2, 3, 4, 6);
    const a = await zipBytes(sample, { date });
    const b = await zipBytes(sample, { date });
    expect(a).toEqual(b);
    if (python) {
      const path = join(dir, "dated.zip");
      await writeFile(path, a);
      const t = runPython(
        python,
        `import zipfile; print(list(zipfile.ZipFile(${JSON.stringify(path)}).infolist()[0].date_time))`,
      );
      expect(JSON.parse(t.toString())).toEqual([2024, 1, 2, 3, 4, 6]);
    }
    expect((await readFile(join(dir, "dated.zip")).catch(() => a)).length).toBe(a.length);
  });
});
