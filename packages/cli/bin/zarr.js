#!/usr/bin/env node
import { mkdirSync, statSync } from "node:fs";
import module from "node:module";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";

enableCompileCache();
const { main, processIo } = await import("../dist/main.js");

// `zarr tree … | head`: the reader went away and what was left to write is lost.
// Stop quietly with 141 (128 + SIGPIPE), as Unix tools that SIGPIPE stops do:
// the output is partial, and `set -o pipefail` scripts see it. Any other
// error of the standard streams (ENOSPC on /dev/full) is an I/O error (2).
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e) => {
    if (e.code === "EPIPE") process.exit(128 + (constants.signals.SIGPIPE ?? 13));
    if (stream !== process.stderr) process.stderr.write(`zarr: error: ${e.message}\n`);
    process.exit(2);
  });
}

// Ctrl-C / SIGTERM: abort running operations, then end by the signal itself
// (its default action, raised again), which a shell reports as 128 + its
// number (130, 143). Exiting otherwise would wait for Node's thread pool,
// which a blocked file system call (opening a FIFO that has no reader) holds
// forever. A second signal ends the process at once.
const controller = new AbortController();
let received;
const endBy = (name) => {
  process.removeAllListeners(name);
  process.kill(process.pid, name);
};
const stop = (name) => {
  if (received !== undefined) return endBy(name);
  received = name;
  const exitCode = 128 + (constants.signals[name] ?? 2);
  controller.abort(Object.assign(new Error("interrupted"), { exitCode }));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

const code = await main(process.argv.slice(2), processIo(controller.signal));
// Interrupted (`zarr serve` stops with 0): what the command left waiting (a
// read of a server that never answers) must not keep the process alive.
if (received !== undefined && code !== 0) endBy(received);
process.exitCode = code;

/**
 * Node >= 22.1 keeps the compiled code of the modules imported after this
 * call on disk, which saves 30-60 ms of every command on Node 24 (hence the
 * dynamic import above). The directory is Node's default,
 * `<tmpdir>/node-compile-cache`, created here without `recursive`: Node's own
 * recursive creation loops forever under a `TMPDIR` where directories cannot
 * be made (e.g. `/proc`), so a directory this cannot create or find is no
 * cache at all. `NODE_COMPILE_CACHE` (which Node reads itself at start-up) and
 * `NODE_DISABLE_COMPILE_CACHE=1` keep their meaning.
 */
function enableCompileCache() {
  if (typeof module.enableCompileCache !== "function") return;
  if (process.env.NODE_COMPILE_CACHE || process.env.NODE_DISABLE_COMPILE_CACHE) return;
  const dir = join(tmpdir(), "node-compile-cache");
  try {
    mkdirSync(dir);
  } catch (e) {
    if (e?.code !== "EEXIST") return;
  }
  try {
    if (statSync(dir).isDirectory()) module.enableCompileCache(dir);
  } catch {
    // no cache: every command still runs
  }
}
