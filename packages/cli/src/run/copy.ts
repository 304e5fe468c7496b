import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { eraseNode, exists, open, type Store } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { createZipFileStore } from "@zarr/store-zip/node";
import { flag, type Io, str, type Values } from "../command.js";
import { DEFAULT_JOBS } from "../commands/copy.js";
import { partFromEnvironment } from "../copy/job-array.js";
import { type PartPlan, partition } from "../copy/partition.js";
import { planCopy, writePlanMetadata } from "../copy/plan.js";
import { elementBytes, type TransferStats, transfer } from "../copy/transfer.js";
import { planUnits } from "../copy/units.js";
import { formatBytes, formatDuration, Progress } from "../progress.js";
import { openStoreArg, type StoreFlags } from "../stores.js";
import { parseBytes, parseCount, TooLargeError, UsageError } from "../usage.js";
import { commandPool, parseWorkers } from "../workers.js";
import { shardInnerShape } from "./info.js";

const DEFAULT_MEMORY = 1024 * 2 ** 20;
/** `--plan` plans each part as its process would (a listing each): a line per part, bounded. */
const MAX_PLANNED_PARTS = 10_000;
const READ_CONCURRENCY = 4;

function parsePart(text: string): [number, number] {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const i = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (!m || !(n >= 1) || !(i < n))
    throw new UsageError(`--part must be i/N with 0 <= i < N (e.g. 0/4), got "${text}"`);
  return [i, n];
}

/**
 * The part this process copies: `--part i/N`, `--part auto` (from a job
 * array's environment, with `--parts N` where the scheduler gives no count),
 * or the whole copy.
 */
function partOption(values: Values, io: Io): [number, number] {
  const text = str(values, "part");
  const partsText = str(values, "parts");
  if (text?.trim() !== "auto") {
    if (partsText !== undefined) {
      if (text !== undefined || !flag(values, "plan"))
        throw new UsageError("--parts N goes with --part auto or --plan");
      return [0, parseCount(partsText, "--parts", 1)];
    }
    return text === undefined ? [0, 1] : parsePart(text);
  }
  const given = partsText === undefined ? undefined : parseCount(partsText, "--parts", 1);
  const found = partFromEnvironment(io.env, given);
  io.err(`zarr: note: --part auto: part ${found.part}/${found.parts} from ${found.source}`);
  return [found.part, found.parts];
}

/** The source node and the copy's plan (notes go to standard error). */
async function planFrom(src: Store, srcPath: string, dstPath: string, values: Values, io: Io) {
  const root = await open(src, srcPath, { signal: io.signal });
  const plan = await planCopy(root, dstPath, values, (s) => io.err(`zarr: note: ${s}`), io.signal);
  return { root, plan };
}

/** `--plan`: one line per part and a total, or JSON. */
function printPartition(parts: PartPlan[], json: boolean, io: Io): void {
  const chunks = parts.reduce((n, p) => n + p.chunks, 0);
  const bytes = parts.reduce((n, p) => n + p.bytes, 0);
  if (json) {
    io.out(JSON.stringify({ parts: parts.length, chunks, bytes, per_part: parts }, null, 2));
    return;
  }
  for (const p of parts) {
    io.out(
      `part ${p.part}/${parts.length}: ${p.chunks} chunk${p.chunks === 1 ? "" : "s"}, ${formatBytes(p.bytes)}`,
    );
  }
  io.out(
    `total: ${chunks} chunk${chunks === 1 ? "" : "s"}, ${formatBytes(bytes)} in ${parts.length} part${parts.length === 1 ? "" : "s"}`,
  );
}

/** Whether two store arguments name the same place (paths compared after resolving). */
function sameLocation(a: string, b: string): boolean {
  const isUrl = (s: string) => /^[a-z][a-z0-9+.-]+:/i.test(s);
  const norm = (s: string) => (isUrl(s) ? s : resolve(s)).replace(/[\\/]+$/, "");
  return norm(a) === norm(b);
}

function overlaps(a: string, b: string): boolean {
  return a === b || a === "" || b === "" || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

function summary(stats: TransferStats, arrays: number, groups: number, seconds: number): string {
  const rate = seconds > 0 ? stats.dataBytes / seconds : 0;
  const parts = [
    `${stats.written} written`,
    ...(stats.verified ? [`${stats.verified} already there (size and crc32c match)`] : []),
    ...(stats.replaced ? [`${stats.replaced} rewritten (differed)`] : []),
    ...(stats.empty ? [`${stats.empty} all fill value (not stored)`] : []),
  ];
  return (
    `copied ${arrays} array${arrays === 1 ? "" : "s"} and ${groups} group${groups === 1 ? "" : "s"}: ` +
    `${stats.units} chunk${stats.units === 1 ? "" : "s"} (${parts.join(", ")}); ${formatBytes(stats.dataBytes)} of data, ` +
    `${formatBytes(stats.storedBytes)} stored, in ${formatDuration(seconds)} (${formatBytes(rate)}/s)`
  );
}

/** `--json`: the summary with numbers as numbers (schema in docs/cli.md). */
function summaryJson(
  stats: TransferStats,
  arrays: number,
  groups: number,
  seconds: number,
  part: number,
  parts: number,
): Record<string, number> {
  return {
    part,
    parts,
    arrays,
    groups,
    chunks: stats.units,
    written: stats.written,
    unchanged: stats.verified,
    rewritten: stats.replaced,
    empty: stats.empty,
    data_bytes: stats.dataBytes,
    stored_bytes: stats.storedBytes,
    seconds: Number(seconds.toFixed(3)),
  };
}

/** Runs `zarr copy` (its options are described by the command in `commands/copy.ts`). */
export async function run(
  [srcArg, dstArg]: string[],
  values: Values,
  io: Io,
): Promise<number | undefined> {
  const started = performance.now();
  const srcPath = (str(values, "path") ?? "").replace(/^\/+|\/+$/g, "");
  const dstPath = (str(values, "to") ?? srcPath).replace(/^\/+|\/+$/g, "");
  const [part, parts] = partOption(values, io);
  const partMode = str(values, "part") !== undefined;
  const resume = flag(values, "resume");
  const overwrite = flag(values, "overwrite");
  const metadataOnly = flag(values, "metadata-only");
  const noMetadata = flag(values, "no-metadata");
  if (overwrite && (partMode || resume))
    throw new UsageError(
      "--overwrite erases the destination; it cannot be combined with --part or --resume",
    );
  if (metadataOnly && noMetadata)
    throw new UsageError("--metadata-only and --no-metadata exclude each other");
  const jobsWanted =
    str(values, "jobs") === undefined
      ? DEFAULT_JOBS
      : parseCount(str(values, "jobs")!, "--jobs", 1);
  const workers = parseWorkers(str(values, "workers"));
  const memory =
    str(values, "max-memory") === undefined
      ? DEFAULT_MEMORY
      : parseBytes(str(values, "max-memory")!, "--max-memory");

  if (sameLocation(srcArg, dstArg) && overlaps(srcPath, dstPath))
    throw new UsageError(
      `source and destination overlap ("/${srcPath}" and "/${dstPath}" in one store)`,
    );
  const storeFlags = values as StoreFlags;
  const src = resolveStore(await openStoreArg(srcArg, storeFlags));
  if (flag(values, "plan")) {
    // The partition only: nothing is written, the destination is not opened.
    if (parts > MAX_PLANNED_PARTS)
      throw new UsageError(`--plan lists at most ${MAX_PLANNED_PARTS} parts, got ${parts}`);
    const { plan } = await planFrom(src, srcPath, dstPath, values, io);
    printPartition(await partition(plan, parts, io.signal), flag(values, "json"), io);
    return 0;
  }
  // A new local .zip file: written as a stream (each chunk once), closed at the end.
  const zipOut = !/^[a-z][a-z0-9+.-]+:/i.test(dstArg) && /\.zip$/i.test(dstArg);
  if (zipOut) {
    if (resume || partMode || noMetadata)
      throw new UsageError(
        "a .zip destination is written once: no --resume, --part or --no-metadata",
      );
    if (existsSync(dstArg) && !overwrite)
      throw new UsageError(`${dstArg} exists (pass --overwrite to replace it)`);
  }
  const dst = resolveStore(
    zipOut
      ? createZipFileStore(dstArg, { compress: false })
      : await openStoreArg(dstArg, storeFlags, { create: true }),
  );
  const { root, plan } = await planFrom(src, srcPath, dstPath, values, io);

  // Memory: a unit holds its decoded region, the padded chunk and the encoded bytes,
  // plus up to READ_CONCURRENCY decoded source chunks.
  // Which destination chunks this process writes (none for --metadata-only), and
  // refusals (a chunk larger than --max-memory) before anything is written or erased.
  const units = metadataOnly
    ? []
    : await planUnits(plan, dst, { part, parts, resume, signal: io.signal });
  let unitBytes = 1;
  for (const { node: a, count } of units) {
    if (count === 0) continue;
    const e = elementBytes(a);
    const dstChunk = a.plan.chunkShape.reduce((x, y) => x * y, 1) * e;
    // (Reads of a sharded source decode inner chunks only.)
    const srcChunk = (shardInnerShape(a.src) ?? a.src.chunkShape).reduce((x, y) => x * y, 1) * e;
    // One chunk (or shard) that cannot be held within the bound: refused before any work.
    for (const [side, bytes, what] of [
      ["destination", dstChunk, a.plan.chunkShape],
      ["source", srcChunk, shardInnerShape(a.src) ?? a.src.chunkShape],
    ] as const) {
      if (bytes > memory)
        throw new TooLargeError(
          `/${a.src.path}: one ${side} chunk [${what.join(", ")}] is ${formatBytes(bytes)} decoded, more than --max-memory ${formatBytes(memory)}; ${side === "destination" ? "pick smaller --chunks (and --shards)" : "the source cannot be read in pieces smaller than its chunks"}, or raise --max-memory`,
          { path: a.src.path },
        );
    }
    unitBytes = Math.max(unitBytes, 3 * dstChunk + READ_CONCURRENCY * srcChunk);
  }
  const jobs = Math.max(1, Math.min(jobsWanted, Math.floor(memory / unitBytes)));
  const writesMetadata = !noMetadata && (part === 0 || metadataOnly);
  if (
    !zipOut &&
    !partMode &&
    !resume &&
    !noMetadata &&
    (await exists(dst, dstPath, { consolidated: false }))
  ) {
    if (!overwrite)
      throw new UsageError(
        `the destination already has a node at "/${dstPath}" (pass --overwrite to replace it, --resume to continue a copy)`,
      );
    await eraseNode(dst, dstPath);
  }
  if (writesMetadata)
    await writePlanMetadata(plan, dst, {
      consolidate:
        flag(values, "consolidate") ||
        (root.kind === "group" &&
          (root.consolidated || (await src.has(`${root.path ? `${root.path}/` : ""}.zmetadata`)))),
      requireSame: resume,
      signal: io.signal,
    });
  const groups = plan.nodes.length - plan.arrays.length;
  if (metadataOnly) {
    if (!flag(values, "quiet"))
      io.out(`wrote the metadata of ${plan.arrays.length} arrays and ${groups} groups`);
    return 0;
  }

  const progress = new Progress(
    units.reduce((n, u) => n + u.count, 0),
    partMode ? `copy ${part}/${parts}` : "copy",
    io.progress,
  );
  let stats: TransferStats;
  const pool = commandPool(workers);
  try {
    stats = await transfer(units, dst, {
      resume,
      jobs,
      readConcurrency: READ_CONCURRENCY,
      progress,
      signal: io.signal,
      workers: pool.workers,
    });
  } finally {
    progress.finish();
    await pool.close();
  }
  const close = (dst.inner as { close?: () => Promise<void> }).close;
  if (typeof close === "function") await close.call(dst.inner);
  const seconds = (performance.now() - started) / 1000;
  if (flag(values, "json")) {
    io.out(JSON.stringify(summaryJson(stats, plan.arrays.length, groups, seconds, part, parts)));
  } else if (!flag(values, "quiet")) {
    const prefix = partMode ? `part ${part}/${parts}: ` : "";
    io.out(prefix + summary(stats, plan.arrays.length, groups, seconds));
    if (jobs < jobsWanted)
      io.out(`(ran ${jobs} chunks at a time to stay within --max-memory ${formatBytes(memory)})`);
  }
  return 0;
}
