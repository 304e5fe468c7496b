import { fileURLToPath } from "node:url";
import { FileSystemStore } from "@zarr/store-fs";

/** A committed test repository of the icechunk project (see test/fixtures/README.md). */
export function fixture(name: string): FileSystemStore {
  return new FileSystemStore(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)));
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
export const text = (b: Uint8Array | undefined): string | undefined =>
  b === undefined ? undefined : new TextDecoder().decode(b);

/** Every key of an async iterable, sorted. */
export async function collect(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const k of it) out.push(k);
  return out.sort();
}
