#!/usr/bin/env node
import { main, processIo } from "../dist/main.js";

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
