import { createHash } from "node:crypto";
import { StoreError } from "@zarr/core";
import { storeRegistry } from "@zarr/core/store";
import { parseS3Url, S3Store } from "@zarr/store-s3";
import "@zarr/store-s3/register";
import { describe, expect, it } from "vitest";
import { md5 } from "../src/md5.js";

// Parts that need no server: URL parsing, option checking, MD5. (Range headers and
// Content-Range parsing are tested in @zarr/remote-store.)

describe("parseS3Url", () => {
  it("splits bucket and decoded prefix", () => {
    expect(parseS3Url("s3://b/a/b%20c")).toEqual({ bucket: "b", prefix: "/a/b c" });
    expect(parseS3Url("s3://bucket")).toEqual({ bucket: "bucket", prefix: "" });
  });
  it("rejects other schemes, queries and bad escapes with a StoreError", () => {
    for (const url of ["http://b/x", "s3:///x", "s3://b/x?y=1", "s3://b/%zz"]) {
      expect(() => parseS3Url(url), url).toThrow(StoreError);
    }
  });
});

describe("S3Store options", () => {
  it("normalizes the prefix and rejects escaping ones", () => {
    expect(new S3Store({ bucket: "b", prefix: "/x/y/", region: "us-east-1" }).prefix).toBe("x/y");
    for (const prefix of ["a/../b", "a//b", "./a", ".."]) {
      expect(() => new S3Store({ bucket: "b", prefix, region: "us-east-1" }), prefix).toThrow(
        /invalid S3Store prefix/,
      );
    }
  });
  it("rejects bad buckets and numeric options", () => {
    expect(() => new S3Store({ bucket: "" })).toThrow(StoreError);
    expect(() => new S3Store({ bucket: "a/b" })).toThrow(StoreError);
    expect(() => new S3Store({ bucket: "b", partSize: 1024, region: "us-east-1" })).toThrow(
      /partSize/,
    );
    expect(() => new S3Store({ bucket: "b", listPageSize: 0, region: "us-east-1" })).toThrow(
      /listPageSize/,
    );
  });
  it("the opener checks option types", async () => {
    const opener = await storeRegistry.get("s3");
    await expect(opener.open("s3://b/x", { forcePathStyle: "yes" })).rejects.toThrow(
      /option "forcePathStyle"/,
    );
    await expect(opener.open("s3://b/x", { accessKeyId: "k" })).rejects.toThrow(/go together/);
    await expect(opener.open("s3://b/x", { maxAttempts: 0 })).rejects.toThrow(/maxAttempts/);
  });
});

describe("md5 (RFC 1321)", () => {
  it("matches node:crypto for lengths around block boundaries", () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 65_537]) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) & 0xff);
      const expected = createHash("md5").update(data).digest("hex");
      expect(Buffer.from(md5(data)).toString("hex"), `length ${n}`).toBe(expected);
    }
  });
  it("RFC 1321 test suite: md5('abc')", () => {
    expect(Buffer.from(md5(new TextEncoder().encode("abc"))).toString("hex")).toBe(
      "900150983cd24fb0d6963f7d28e17f72",
    );
  });
});
