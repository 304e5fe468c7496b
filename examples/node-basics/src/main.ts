/**
 * `pnpm --filter @zarr/example-node-basics start [dir]`: runs the basics in
 * `dir` (default: a temporary directory, removed afterwards).
 *
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeBasics } from "./basics.js";

const given = process.argv[2];
const dir = given ?? (await mkdtemp(join(tmpdir(), "zarr-node-basics-")));
try {
  await nodeBasics(dir);
} finally {
  if (!given) await rm(dir, { recursive: true, force: true });
}
