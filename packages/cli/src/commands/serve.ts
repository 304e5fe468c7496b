import type { Command } from "../command.js";
import { STORE_HELP } from "../flags.js";

/** `zarr serve <dir|url> [--port N]`. */
export const serveCommand: Command = {
  name: "serve",
  summary: "serve a store over HTTP on 127.0.0.1 (Range, CORS) for browser viewers",
  help: `usage: zarr serve <store> [--port N]

Serves the store read-only on http://127.0.0.1:PORT/ (keys as paths), with Range
requests (including suffix ranges, for shard indexes) and CORS headers so that
browser viewers on other origins can read it. Prints the URL; stops on Ctrl-C
(SIGINT) or SIGTERM.

What is exposed, and to whom: every value under the store's root, to every
process and user on this machine and, because of "Access-Control-Allow-Origin: *",
to any web page open in a browser on this machine. It listens on 127.0.0.1 only,
so other machines cannot connect. Serve only what you would publish. Keys with
"..", "." or empty segments, backslashes or NUL are refused (400). In a local
directory, symbolic links, FIFOs, sockets and devices are never served (500):
nothing outside the directory is reachable through them.

Limits: values are streamed in 64 KiB pieces, and all responses together hold
at most 32 MiB of them (a request that waits over 10 s for memory gets 503); a
connection without traffic for 60 s (a client that stopped reading) is closed;
at most 1024 connections. One byte range per request (206); an unsatisfiable
one gets 416; several ranges, or a malformed Range header, get the whole value.
Errors are logged to standard error, never sent to clients.

options:
  --port N   port (default 0: any free port)

${STORE_HELP}

examples:
  zarr serve data.zarr --port 8080
  zarr serve s3://bucket/data.zarr`,
  options: { port: { type: "string", short: "p" } },
  positionals: [1, 1],
  async run(args, values, io) {
    // The implementation (and the core, codec and store code it needs) loads
    // only when the command runs, not for `--help` or a usage error.
    return (await import("../run/serve.js")).run(args, values, io);
  },
};
