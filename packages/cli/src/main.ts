/**
 * The `zarr` command. Exit codes: 0 ok, 1 usage error, 2 data or I/O error.
 * Errors print as one line (`--debug` adds the stack).
 *
 * @module
 */
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "@zarr/codec-blosc/register";
import "@zarr/store-fs/register";
import "@zarr/v2-compat/register";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ZarrError } from "@zarr/core";
import { get } from "./commands/get.js";
import { info } from "./commands/info.js";
import { tree } from "./commands/tree.js";
import { UsageError } from "./usage.js";

const HELP: Record<string, string> = {
  main: `usage: zarr <command> [options]

commands:
  info <store> [path]   what a node is: shape, data type, chunks, codecs, attributes, stored bytes
  tree <store> [path]   the hierarchy below a node, with shapes and data types
  get <store> [path]    read an array or a selection of it

options: --help, --version, --debug (stack traces)
<store> is a local directory. Run 'zarr <command> --help' for a command's options.`,
  info: `usage: zarr info <store> [path] [--json]

examples:
  zarr info data.zarr
  zarr info data.zarr temperature --json`,
  tree: `usage: zarr tree <store> [path] [--depth N]

examples:
  zarr tree data.zarr
  zarr tree data.zarr group/sub --depth 1`,
  get: `usage: zarr get <store> [path] [--select SEL] (--json | --out FILE)

SEL is numpy-like: "0:10,::-2,5,...", "[1,3,5],:" (index arrays), "-1".
--json prints {"shape": [...], "data": [...]} (C order; NaN/Infinity and
integers beyond 2^53 as strings; complex as [re, im]; raw/bytes as byte lists).
--out FILE writes the raw little-endian C-order bytes.

examples:
  zarr get data.zarr temperature --select "0,:10" --json
  zarr get data.zarr temperature --out temperature.bin`,
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  return String(pkg.version);
}

/** Runs the CLI with `argv` (without node and script); returns the exit code. */
export async function main(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(`${s}\n`),
  err: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Promise<number> {
  const debug = argv.includes("--debug");
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
        debug: { type: "boolean" },
        json: { type: "boolean" },
        select: { type: "string", short: "s" },
        out: { type: "string", short: "o" },
        depth: { type: "string" },
      },
    });
    const [command, storeArg, path = ""] = positionals;
    if (values.version) {
      out(version());
      return 0;
    }
    if (values.help || command === undefined || command === "help") {
      out(HELP[command ?? "main"] ?? HELP.main);
      return command === undefined && !values.help ? 1 : 0;
    }
    if (!(command in HELP) || command === "main")
      throw new UsageError(`unknown command "${command}"`);
    if (storeArg === undefined)
      throw new UsageError(`zarr ${command} needs a <store>\n${HELP[command]}`);
    if (positionals.length > 3)
      throw new UsageError(`too many arguments: ${positionals.slice(3).join(" ")}`);
    switch (command) {
      case "info":
        await info(storeArg, path, values.json ?? false, out);
        break;
      case "tree": {
        const depth = values.depth === undefined ? Number.POSITIVE_INFINITY : Number(values.depth);
        if (!(depth >= 0))
          throw new UsageError(`--depth must be a non-negative integer, got ${values.depth}`);
        await tree(storeArg, path, depth, out);
        break;
      }
      case "get":
        await get(
          storeArg,
          path,
          { select: values.select, json: values.json ?? false, out: values.out },
          out,
        );
        break;
    }
    return 0;
  } catch (e) {
    const usage =
      e instanceof UsageError || (e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    const message = e instanceof Error ? e.message : String(e);
    const kind = e instanceof ZarrError ? `${e.name}: ` : usage ? "usage: " : "error: ";
    err(`zarr: ${kind}${message.split("\n")[0]}`);
    if (usage && message.includes("\n")) err(message.slice(message.indexOf("\n") + 1));
    if (debug && e instanceof Error && e.stack) err(e.stack);
    return usage ? 1 : 2;
  }
}
