// Path safety of the zip store: an archive holding an entry whose name could
// escape the store's root (a `..` or `.` segment, an absolute path, a
// backslash, a drive letter, NUL or another control character, an empty
// segment) is rejected when opened, with a ZipFormatError naming the entry and
// the reason, one test per case; the writer refuses such names; random names
// made of dangerous pieces either open as valid store keys or are rejected.
// (APPNOTE.TXT 4.4.17: "The path stored MUST NOT contain a drive or device
// letter, or a leading slash ... forward slashes '/' as opposed to backwards
// slashes '\'".)
import { InvalidKeyError } from "@zarr/core";
import { isValidKey, resolveStore } from "@zarr/core/store";
import {
  bytesSource,
  readCentralDirectory,
  unsafeNameReason,
  ZipFormatError,
  ZipStore,
  ZipWriter,
} from "@zarr/store-zip";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildZip, singleEntryZip, utf8 } from "./zip-builder.js";

const RUNS = Math.max(200, Math.floor((Number(process.env.FUZZ_RUNS) || 10_000) / 5));

const escaping: [string, string, RegExp][] = [
  ["a parent segment", "../evil", /"\.\." segment/],
  ["a parent segment inside the name", "a/../../evil", /"\.\." segment/],
  ["a bare parent segment", "..", /"\.\." segment/],
  ["a parent directory entry", "../", /"\.\." segment/],
  ["a current-directory segment", "./a", /"\." segment/],
  ["an absolute path", "/etc/passwd", /absolute/],
  ["a double leading slash", "//server/share", /absolute/],
  ["a backslash", "a\\b", /backslash/],
  ["a backslash parent segment", "..\\evil", /backslash/],
  ["a drive letter", "C:/windows/x", /drive letter/],
  ["a drive letter without slash", "c:evil", /drive letter/],
  ["a NUL byte", "zarr.json\u0000.txt", /control character/],
  ["a newline", "a\nb", /control character/],
  ["DEL", "a\u007fb", /control character/],
  ["an empty segment", "a//b", /empty segment/],
  ["an empty name", "", /empty/],
];

describe("zip entries escaping the root are rejected at open (APPNOTE.TXT 4.4.17)", () => {
  it.each(escaping)("%s: %j", async (_, name, reason) => {
    const bytes = singleEntryZip(name);
    for (const open of [
      () => ZipStore.open(bytesSource(bytes)),
      () => readCentralDirectory(bytesSource(bytes)),
    ]) {
      const err = await open().catch((e) => e);
      expect(err).toBeInstanceOf(ZipFormatError);
      expect(err.message).toMatch(/would escape the archive root|is empty/);
      expect(err.message).toMatch(reason);
    }
    expect(unsafeNameReason(name)).toMatch(reason);
  });

  it("one bad entry among good ones rejects the whole archive", async () => {
    const entry = (name: string) => ({
      name: utf8(name),
      data: utf8(name),
      deflate: true,
      utf8Flag: true,
      descriptor: "none" as const,
      zip64Extra: false,
    });
    const { bytes } = buildZip({
      entries: [entry("zarr.json"), entry("c/0"), entry("c/../../x"), entry("c/1")],
      zip64End: false,
      comment: new Uint8Array(0),
      prepend: new Uint8Array(0),
    });
    const err = await ZipStore.open(bytesSource(bytes)).catch((e) => e);
    expect(err).toBeInstanceOf(ZipFormatError);
    expect(err.message).toContain('"c/../../x"');
  });

  it("names that are not UTF-8 are read as CP437, whose high bytes hold no separators", async () => {
    // 0x2e 0x2e 0x2f = "../" stays ASCII in CP437; a 0x80..0xFF byte never becomes "/" or "\".
    const err = await ZipStore.open(
      bytesSource(singleEntryZip(Uint8Array.of(0x2e, 0x2e, 0x2f, 0x80))),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(ZipFormatError);
    const all = Uint8Array.from({ length: 128 }, (_, i) => 0x80 + i);
    const withoutFlag = buildZip({
      entries: [
        {
          name: all,
          data: utf8("x"),
          deflate: false,
          utf8Flag: false,
          descriptor: "none",
          zip64Extra: false,
        },
      ],
      zip64End: false,
      comment: new Uint8Array(0),
      prepend: new Uint8Array(0),
    }).bytes;
    const store = await ZipStore.open(bytesSource(withoutFlag));
    const [name] = store.directory.entries.map((e) => e.name);
    expect(name).toHaveLength(128);
    expect(name).not.toMatch(/[/\\]/);
  });

  it("the writer refuses the same names; an escaping root option is refused", async () => {
    const writer = new ZipWriter({ write: () => {} });
    for (const [, name] of escaping) {
      await expect(writer.add(name, utf8("x"))).rejects.toBeInstanceOf(ZipFormatError);
    }
    const ok = singleEntryZip("a/b");
    for (const root of ["..", "a/../..", "a\\b", "a//b"]) {
      await expect(ZipStore.open(bytesSource(ok), { root })).rejects.toBeInstanceOf(ZipFormatError);
    }
  });

  it("keys that would climb out of the store never reach it through core", async () => {
    const store = resolveStore(await ZipStore.open(bytesSource(singleEntryZip("a/b"))));
    for (const key of ["../a/b", "a/../a/b", "/a/b", "a\\b", "a/b\u0000"]) {
      await expect(store.get(key)).rejects.toBeInstanceOf(InvalidKeyError);
    }
    await expect(store.listDir("../")).rejects.toBeInstanceOf(InvalidKeyError);
    expect(await store.get("a/b")).toEqual(utf8("x"));
  });
});

describe("random entry names made of dangerous pieces", () => {
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
    ":",
    "é",
    "\uFEFF",
    " ",
    "~",
    "%2e%2e",
  );
  it(`${RUNS} names: rejected with a ZipFormatError, or opened as valid store keys`, async () => {
    let opened = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 6 }), async (pieces) => {
        const name = pieces.join("");
        const result = await ZipStore.open(bytesSource(singleEntryZip(name))).catch((e) => e);
        if (result instanceof ZipStore) {
          opened++;
          expect(unsafeNameReason(name)).toBeUndefined();
          for await (const key of result.list()) expect(isValidKey(key)).toBe(true);
        } else {
          expect(result).toBeInstanceOf(ZipFormatError);
          expect(unsafeNameReason(name)).toBeDefined();
        }
      }),
      { seed: 42, numRuns: RUNS },
    );
    console.info(`${RUNS} random names: ${opened} opened, ${RUNS - opened} rejected`);
  });
});
