// Descriptors of @zarr/store-fs reads are closed before the read settles: a
// close left queued in libuv's thread pool is dropped when the worker thread
// that queued it ends, and the descriptor then stays open for the whole
// process (found by an attack: 20 → 404 open descriptors after 50 workers of
// 16 reads each, while other work kept the pool busy).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ATTACKS_DIR, runGuarded } from "../src/index.js";

const PROGRAM = `
import { readdirSync } from "node:fs";
import { pbkdf2 } from "node:crypto";
import { Worker } from "node:worker_threads";
const { FileSystemStore } = await import("@zarr/store-fs");
const root = process.env.STORE_ROOT;
const store = new FileSystemStore(root);
for (let i = 0; i < 16; i++) await store.set("c/" + i, new Uint8Array(1000).fill(i));
// Other work keeps the thread pool busy, so closes queue behind it.
let busy = true;
const spin = () => busy && pbkdf2("x", "y", 5000, 32, "sha256", spin);
for (let i = 0; i < 4; i++) spin();
const open = () => readdirSync("/proc/self/fd").length;
const before = open();
const url = import.meta.resolve("@zarr/store-fs");
const worker = \`
  import(\${JSON.stringify(url)}).then(async ({ FileSystemStore }) => {
    const store = new FileSystemStore(\${JSON.stringify(root)});
    const values = await Promise.all(Array.from({ length: 16 }, (_, i) => store.get("c/" + i)));
    if (values.some((v, i) => v?.length !== 1000 || v[0] !== i)) process.exit(3);
    process.exit(0);
  });
\`;
let bad = 0;
for (let r = 0; r < 40; r++) {
  const code = await new Promise((res) => new Worker(worker, { eval: true }).on("exit", res));
  if (code !== 0) bad++;
}
busy = false;
await new Promise((r) => setTimeout(r, 300));
process.stdout.write("RESULT " + JSON.stringify({ before, after: open(), bad }) + "\\n", () => process.exit(0));
`;

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "zarr-fs-descriptors-"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

it.skipIf(process.platform !== "linux")(
  "40 worker threads that end right after 16 reads each leave no descriptor open",
  async () => {
    const run = await runGuarded(
      process.execPath,
      ["--input-type=module", "-e", PROGRAM],
      { maxRssMiB: 600, timeoutMs: 60_000 },
      { cwd: ATTACKS_DIR, env: { ...process.env, STORE_ROOT: root }, finishedLine: "RESULT " },
    );
    const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "));
    expect(line, run.stderr).toBeDefined();
    const result = JSON.parse(line!.slice("RESULT ".length));
    expect(result.bad).toBe(0);
    expect(result.after - result.before).toBeLessThanOrEqual(2);
  },
);
