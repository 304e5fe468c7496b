import type { Command } from "../command.js";
import { LAYOUT_FLAGS, LAYOUT_HELP, STORE_HELP, WORKERS_FLAG, workersHelp } from "../flags.js";

export const DEFAULT_JOBS = 8;

/** `zarr copy <src> <dst>`: any store to any store, with conversion, rechunking, parts and resume. */
export const copyCommand: Command = {
  name: "copy",
  summary:
    "copy a hierarchy or one node between stores: convert v2/v3, rechunk, reshard, recompress",
  help: `usage: zarr copy <src> <dst> [options]

Copies the node at --path of <src> (default: the root, with everything below it)
to --to of <dst>. Without layout options the copy keeps the source layout; a v2
source copied with --format 3 (or v3 with --format 2) is converted. Chunks equal
to the fill value everywhere are not stored.

options:
  --path P           source node (default: root)
  --to P             destination path (default: the same as --path)
  --overwrite        erase an existing destination node first
  --resume           keep what an earlier run wrote: each destination chunk is
                     re-encoded and compared with the stored one (size, then
                     crc32c); identical chunks are skipped, others rewritten
  --part i/N         copy only part i (0-based) of N disjoint, shard-aligned parts;
                     part 0 writes the metadata (see below)
  --part auto        the part of a job array this task is, from its scheduler's
                     environment (see below)
  --parts N          with --part auto: the number of parts, for schedulers that do not
                     tell their tasks (Kubernetes, AWS Batch; or set ZARR_COPY_PARTS)
  --plan             print how the copy splits into parts (N from --part i/N, --part
                     auto or --parts; chunks and decoded bytes per part) and copy
                     nothing; with --json as JSON
  --json             print the summary as JSON (part, parts, arrays, groups, chunks,
                     written, unchanged, rewritten, empty, data_bytes, stored_bytes,
                     seconds); with --plan, the partition
  --metadata-only    write the destination metadata and no data
  --no-metadata      write data only (metadata written by another process)
  --consolidate      write consolidated metadata for a group (v3 inline, v2 .zmetadata);
                     the default when the source group has it
  --jobs N           destination chunks in flight (default ${DEFAULT_JOBS})
  --max-memory SIZE  bound on decoded data held at once (default 1G); lowers --jobs
                     for large chunks
${workersHelp(21, "cores - 1")}
  --quiet, -q        no summary (the progress line shows only on a terminal, never in CI)

${LAYOUT_HELP}

Parallel copies on many machines: run N processes with --part 0/N ... --part N-1/N
(a Kubernetes indexed Job, an AWS Batch array job, a CI matrix). Each part writes
whole destination chunks (whole shards when sharded) that no other part touches,
so parts need no coordination; part 0 writes the metadata (or run
'zarr copy --metadata-only' first and give every part --no-metadata). Rerun a
failed part with --resume.

Job arrays: with --part auto each task reads its part from the environment:
  Kubernetes Indexed Job  JOB_COMPLETION_INDEX, with --parts N (the Job's completions)
  AWS Batch array job     AWS_BATCH_JOB_ARRAY_INDEX, with --parts N (the array size)
  GCP Batch               BATCH_TASK_INDEX and BATCH_TASK_COUNT
  Slurm job array         SLURM_ARRAY_TASK_ID, _MIN, _STEP and _COUNT

${STORE_HELP}

examples:
  zarr copy data.zarr s3://bucket/data.zarr
  zarr copy v2.zarr v3.zarr --format 3 --shards 1000,1000 --chunks 100,100 --compressor zstd:3
  zarr copy data.zarr out.zarr --path temperature --chunks 1,720,1440 --order F
  zarr copy gs://src/data.zarr s3://dst/data.zarr --part 3/16 --resume
  zarr copy s3://src/v2.zarr s3://dst/v3.zarr --format 3 --part auto --parts 16 --resume
  zarr copy s3://src/v2.zarr s3://dst/v3.zarr --format 3 --shards 4,720,1440 --parts 16 --plan`,
  options: {
    path: { type: "string" },
    to: { type: "string" },
    overwrite: { type: "boolean" },
    resume: { type: "boolean" },
    part: { type: "string" },
    parts: { type: "string" },
    plan: { type: "boolean" },
    json: { type: "boolean" },
    "metadata-only": { type: "boolean" },
    "no-metadata": { type: "boolean" },
    consolidate: { type: "boolean" },
    jobs: { type: "string" },
    "max-memory": { type: "string" },
    ...WORKERS_FLAG,
    quiet: { type: "boolean", short: "q" },
    ...LAYOUT_FLAGS,
  },
  positionals: [2, 2],
  async run(args, values, io) {
    // The implementation (and the core, codec and store code it needs) loads
    // only when the command runs, not for `--help` or a usage error.
    return (await import("../run/copy.js")).run(args, values, io);
  },
};
