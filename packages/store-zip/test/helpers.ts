import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ZipWriter, type ZipWriterOptions } from "@zarr/store-zip";

/** Writes `files` into an in-memory zip with {@link ZipWriter}. */
export async function zipBytes(
  files: Iterable<[string, Uint8Array]>,
  options?: ZipWriterOptions,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const writer = new ZipWriter({ write: (c) => void chunks.push(c.slice()) }, options);
  await Promise.all([...files].map(([name, data]) => writer.add(name, data)));
  await writer.close();
  return concat(chunks);
}

export function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "zarr-store-zip-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** `unzip` (Info-ZIP), or null with a printed reason. */
export function findUnzip(): string | null {
  const r = spawnSync("unzip", ["-v"], { encoding: "utf8" });
  if (r.status === 0) return "unzip";
  console.warn("skipping unzip -t checks: no `unzip` on PATH (Debian: apt-get install unzip)");
  return null;
}

/** Runs `unzip -t` on `path`; returns [exit status, output]. */
export function unzipTest(path: string): [number | null, string] {
  const r = spawnSync("unzip", ["-t", path], { encoding: "utf8", maxBuffer: 1 << 28 });
  return [r.status, `${r.stdout}${r.stderr}`];
}
