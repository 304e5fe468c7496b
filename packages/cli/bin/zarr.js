#!/usr/bin/env node
import module from "node:module";

// Node >= 22.1 keeps the compiled code of the modules below on disk (in the
// temporary directory; `NODE_DISABLE_COMPILE_CACHE=1` turns it off), which
// saves 30-50 ms of every command on Node 24. It only covers modules imported
// after this call, hence the dynamic import.
module.enableCompileCache?.();
const { main, processIo } = await import("../dist/main.js");

// `zarr tree … | head`: the reader went away; stop quietly, as Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

// Ctrl-C / SIGTERM: abort running operations (a second signal exits at once).
const controller = new AbortController();
const stop = () => {
  if (controller.signal.aborted) process.exit(130);
  controller.abort(new Error("interrupted"));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);

process.exitCode = await main(process.argv.slice(2), processIo(controller.signal));
