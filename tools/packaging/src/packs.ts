/**
 * Packs workspace packages exactly as `pnpm publish` would (workspace:
 * versions replaced, publishConfig applied, `files` honoured) into a
 * temporary directory, so checks run offline on what npm users would get.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A publishable workspace package. */
export interface WorkspacePackage {
  name: string;
  dir: string;
  manifest: Record<string, unknown>;
}

/** The non-private packages under `<root>/packages`. */
export function publishablePackages(root: string): WorkspacePackage[] {
  const found: WorkspacePackage[] = [];
  for (const entry of readdirSync(join(root, "packages"), { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(root, "packages", entry.name);
    let manifest: Record<string, unknown>;
    try {
      manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    } catch {
      continue;
    }
    if (manifest.private === true) continue;
    found.push({ name: String(manifest.name), dir, manifest });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** Runs `pnpm pack` in `pkg.dir`, writing into `destination`; returns the tarball's bytes. */
export async function pack(pkg: WorkspacePackage, destination: string): Promise<Uint8Array> {
  const { stdout } = await run("pnpm", ["pack", "--json", "--pack-destination", destination], {
    cwd: pkg.dir,
    maxBuffer: 16 * 1024 * 1024,
  });
  const parsed = JSON.parse(stdout) as { filename: string };
  return new Uint8Array(readFileSync(parsed.filename));
}
