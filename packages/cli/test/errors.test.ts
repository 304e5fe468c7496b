// The CLI's errors as a new user meets them: mistyped commands, options and
// data types get a suggestion in the CLI's own words (exit 1); a local path
// that does not exist says so (exit 2); a store that cannot list says how to
// get around it.
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import { pathToFileURL } from "node:url";
import { COMMANDS } from "@zarr/cli";
import { repoRoot } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closest, editDistance } from "../src/suggest.js";
import { run } from "./helpers.js";

const example = join(repoRoot, "examples/data/weather.zarr");
const dir = mkdtempSync(join(tmpdir(), "zarr-cli-errors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("suggestions", () => {
  it("edit distance counts inserts, deletes, substitutions and swapped neighbours", () => {
    expect(editDistance("info", "info")).toBe(0);
    expect(editDistance("inof", "info")).toBe(1); // swap
    expect(editDistance("tre", "tree")).toBe(1);
    expect(editDistance("flaot32", "float32")).toBe(1);
    expect(editDistance("copy", "verify")).toBeGreaterThan(2);
  });

  it("suggests only likely typos, or the one name a prefix starts", () => {
    const names = ["info", "tree", "get", "set", "create", "copy", "verify", "serve"];
    expect(closest("inof", names)).toBe("info");
    expect(closest("GET", names)).toBe("get");
    expect(closest("verfy", names)).toBe("verify");
    expect(closest("frobnicate", names)).toBeUndefined();
    expect(closest("cr", names)).toBe("create");
    expect(closest("s", names)).toBeUndefined(); // set and serve
    expect(closest("int128", ["int8", "int16", "int64"])).toBeUndefined(); // not int8
  });

  it("names other tools use get their counterpart", async () => {
    expect((await run("cp", "a", "b")).err).toMatch(
      /^zarr: usage: unknown command "cp" \(did you mean "copy"\?\)/,
    );
    expect((await run("remove")).err).toMatch(/\(did you mean "rm"\?\)/);
    const f8 = await run("create", join(dir, "f8.zarr"), "a", "--shape", "2", "--dtype", "f8");
    expect(f8.err).toMatch(/unknown data type "f8" \(did you mean "float64"\?\)/);
    const complex = await run(
      "create",
      join(dir, "c.zarr"),
      "a",
      "--shape",
      "2",
      "--dtype",
      "complex",
    );
    expect(complex.err).toMatch(/\(did you mean "complex128"\?\)/);
  });
});

describe("usage errors (exit 1) in the CLI's words", () => {
  it("a mistyped command names the likely one and lists the commands", async () => {
    const r = await run("inof", example);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `zarr: usage: unknown command "inof" (did you mean "info"?); commands: ${COMMANDS.map((c) => c.name).join(", ")}`,
    );
  });

  it("help for a command that does not exist is a usage error too", async () => {
    const r = await run("help", "tre");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^zarr: usage: unknown command "tre" \(did you mean "tree"\?\)/);
    expect((await run("help", "tree")).code).toBe(0);
  });

  it("a mistyped option gets a suggestion, not Node's parser text", async () => {
    const r = await run("info", example, "--jsn");
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      "zarr: usage: unknown option --jsn for zarr info (did you mean --json?); 'zarr info --help' lists the options",
    );
    expect(r.err).not.toMatch(/positional argument/);
    const short = await run("get", example, "-q");
    expect(short.code).toBe(1);
    expect(short.err).toMatch(/^zarr: usage: unknown option -q for zarr get; /);
  });

  it("an option without its value, or a flag given one", async () => {
    const missing = await run("tree", example, "--depth");
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.err).toBe(
      'zarr: usage: option --depth needs a value (--depth VALUE or --depth=VALUE; a value starting with "-" as --depth=-1)',
    );
    // A negative value looks like an option to the parser: the message says how to give it.
    const negative = await run("set", example, "temperature", "--value", "-5");
    expect(negative.code).toBe(1);
    expect(negative.err).toBe(
      'zarr: usage: option --value needs a value (--value VALUE or --value=VALUE; a value starting with "-" as --value=-1)',
    );
    const flagged = await run("info", example, "--json=yes");
    expect(flagged.code).toBe(1);
    expect(flagged.err).toBe("zarr: usage: option --json takes no value");
  });

  it("an unknown data type is a usage error with the likely name and the known ones", async () => {
    const r = await run("create", join(dir, "new.zarr"), "a", "--shape", "4", "--dtype", "flaot32");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^zarr: usage: --dtype: unknown data type "flaot32" \(did you mean "float32"\?\); known: bool, int8, .*float32/,
    );
    expect(r.err).not.toMatch(/registerDataType/);
  });
});

describe("a local store path that does not exist", () => {
  it("is reported as missing (exit 2), as a path and as a file: URL", async () => {
    const missing = join(dir, "nope.zarr");
    for (const arg of [missing, pathToFileURL(missing).href]) {
      const r = await run("info", arg);
      expect(r.code, arg).toBe(2);
      expect(r.err, arg).toBe(
        `zarr: error: ${JSON.stringify(arg)} does not exist (no such file or directory)`,
      );
    }
  });

  it("commands that make the store still create it", async () => {
    const made = join(dir, "made.zarr");
    expect((await run("create", made, "a", "--shape", "4", "--dtype", "int8")).code).toBe(0);
    expect(statSync(made).isDirectory()).toBe(true);
    const copied = join(dir, "copied.zarr");
    expect((await run("copy", made, copied)).code).toBe(0);
    expect(JSON.parse(readFileSync(join(copied, "a", "zarr.json"), "utf8")).shape).toEqual([4]);
  });
});

describe("a store that cannot list", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const root = join(dir, "served");
    cpSync(example, join(root, "weather.zarr"), { recursive: true });
    // A plain static server: files by path, no listings (like most HTTP hosts).
    server = createServer((req, res) => {
      const path = normalize(
        join(root, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)),
      );
      try {
        if (!path.startsWith(root) || !statSync(path).isFile()) throw new Error("not a file");
        res.end(readFileSync(path));
      } catch {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("a v2 group over HTTP without .zmetadata: tree and copy fail with the hint, never a silent empty group", async () => {
    const url = `${base}/weather.zarr/legacy`;
    const tree = await run("tree", url);
    expect(tree.code).toBe(2);
    expect(tree.err).toMatch(
      /cannot be listed \(it has no consolidated metadata, \.zmetadata\)\nhint: /,
    );
    const copy = await run("copy", url, join(dir, "legacy-copy.zarr"));
    expect(copy.code).toBe(2);
    expect(copy.err).toMatch(/\nhint: this store cannot list its keys/);
    // A path below still opens: the hint's first way out.
    expect((await run("info", url, "pressure")).code).toBe(0);
  });

  it("tree over HTTP without consolidated metadata explains what to do", async () => {
    // The example hierarchy has no consolidated metadata: listing it needs a listing.
    const r = await run("tree", `${base}/weather.zarr`);
    expect(r.code).toBe(2);
    const [first, hint] = r.err.split("\n");
    expect(first).toMatch(/^zarr: StoreCapabilityError: /);
    expect(hint).toMatch(
      /^hint: this store cannot list its keys \(plain HTTP cannot\): open a path below it .* run 'zarr consolidate' on the hierarchy/,
    );
  });
});
