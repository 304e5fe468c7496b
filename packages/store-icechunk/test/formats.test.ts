// Small format pieces: Crockford base 32 ids (spec v2 "Common Types"),
// FlexBuffers (the spec v2 repo configuration), config.yaml containers (spec v1).
import { describe, expect, it } from "vitest";
import { containersFromYaml, matchContainer } from "../src/config.js";
import { readFlexBuffer } from "../src/flexbuffers.js";
import { decodeId12, encodeId } from "../src/ids.js";
import { fixture, text } from "./helpers.js";

describe("object ids (Crockford base 32, spec v2 Common Types)", () => {
  it("the spec's example: 0b 1c c8 d6 78 75 80 f0 e3 3a 65 34 is 1CECHNKREP0F1RSTCMT0", () => {
    const bytes = Uint8Array.of(
      0x0b,
      0x1c,
      0xc8,
      0xd6,
      0x78,
      0x75,
      0x80,
      0xf0,
      0xe3,
      0x3a,
      0x65,
      0x34,
    );
    expect(encodeId(bytes)).toBe("1CECHNKREP0F1RSTCMT0");
    expect(decodeId12("1CECHNKREP0F1RSTCMT0")).toEqual(bytes);
    expect(decodeId12("1cechnkrep0f1rstcmt0")).toEqual(bytes);
    expect(decodeId12("1CECHNKREPOF1RSTCMTO")).toEqual(bytes); // O is an alias of 0
  });

  it("8-byte node ids give 13 characters; bad ids decode to undefined", () => {
    expect(encodeId(new Uint8Array(8).fill(255))).toBe("ZZZZZZZZZZZZY");
    for (const bad of [
      "",
      "1CECHNKREP0F1RSTCMT",
      "1CECHNKREP0F1RSTCMT01",
      "1CECHNKREP0F1RSTCMTU",
      "1CECHNKREP0F1RSTCMT1",
      "../../../../../../xx",
    ]) {
      expect(decodeId12(bad)).toBeUndefined();
    }
  });
});

describe("FlexBuffers", () => {
  it("a hand-encoded map {a: 1} (flatbuffers.dev/internals: map, typed key vector, packed types)", () => {
    // "a\0" | keys: size 1, offset 3 | map: keys offset, key width 1, size 1 | value 1 | type INT | root
    const bytes = Uint8Array.of(0x61, 0, 1, 3, 1, 1, 1, 1, 4, 2, 36, 1);
    expect(readFlexBuffer(bytes)).toEqual({ a: 1 });
  });

  it("offsets pointing outside the buffer are errors", () => {
    expect(() => readFlexBuffer(Uint8Array.of(0x61, 0, 1, 3, 1, 1, 1, 1, 4, 200, 36, 1))).toThrow(
      /malformed FlexBuffer/,
    );
    expect(() => readFlexBuffer(Uint8Array.of(1, 36, 3))).toThrow(/root width 3/);
  });
});

describe("virtual chunk containers", () => {
  it("test-repo-v1's config.yaml: only prefixes that are absolute URLs count (as in icechunk)", async () => {
    const yaml = text(await fixture("test-repo-v1").get("config.yaml")) ?? "";
    expect(containersFromYaml(yaml)).toEqual([{ name: "s3", urlPrefix: "s3://testbucket/" }]);
  });

  it("the longest matching prefix wins; vcc:// expands by name", () => {
    const containers = [
      { name: "deep", urlPrefix: "s3://b/deep/" },
      { name: "b", urlPrefix: "s3://b/" },
    ];
    expect(matchContainer("s3://b/deep/x", containers)?.container.name).toBe("deep");
    expect(matchContainer("s3://b/x", containers)?.container.name).toBe("b");
    expect(matchContainer("vcc://b/y/z.nc", containers)?.url).toBe("s3://b/y/z.nc");
    expect(matchContainer("s3://c/x", containers)).toBeUndefined();
  });
});
