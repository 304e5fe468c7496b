/**
 * Local files as zip sources and sinks (Node.js: `node:fs/promises`).
 *
 * @module
 */

import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { StoreError } from "@zarr/core";
import type { RangeSource } from "../source.js";
import type { ZipSink } from "../writer.js";

/** True: this build can open local files. */
export const hasLocalFiles = true;

function ioError(what: string, path: string, cause: unknown): StoreError {
  return new StoreError(`${what} ${path} failed: ${(cause as Error).message}`, { path, cause });
}

/**
 * Opens `path` for reading without blocking (a FIFO would otherwise hold the
 * open until a writer comes) and keeps it only when it is a regular file.
 */
async function openRegular(path: string): Promise<FileHandle> {
  const h = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const stat = await h.stat();
    if (!stat.isFile()) {
      throw new StoreError(
        `opening zip archive ${path} failed: not a regular file (a FIFO, device, socket or directory)`,
        { path },
      );
    }
    return h;
  } catch (e) {
    await h.close();
    throw e;
  }
}

/**
 * A {@link RangeSource} over a local file, read with positioned reads through
 * one file handle (opened on first use, released by `close`).
 */
export function fileSource(path: string): RangeSource {
  let handle: Promise<FileHandle> | undefined;
  const get = () => {
    handle ??= openRegular(path).catch((cause) => {
      handle = undefined;
      throw cause instanceof StoreError ? cause : ioError("opening zip archive", path, cause);
    });
    return handle;
  };
  return {
    name: path,
    async size() {
      const h = await get();
      return (await h.stat()).size;
    },
    async read(offset, length) {
      const h = await get();
      const out = new Uint8Array(length);
      let done = 0;
      try {
        while (done < length) {
          const { bytesRead } = await h.read(out, done, length - done, offset + done);
          if (bytesRead === 0) throw new Error(`unexpected end of file at ${offset + done}`);
          done += bytesRead;
        }
      } catch (cause) {
        throw ioError(`reading ${length} bytes at ${offset} of`, path, cause);
      }
      return out;
    },
    async close() {
      const h = handle;
      handle = undefined;
      if (h) await (await h.catch(() => undefined))?.close();
    },
  };
}

/** A {@link ZipSink} writing a new local file (replacing any existing one). */
export function fileSink(path: string): ZipSink {
  let handle: Promise<FileHandle> | undefined;
  const get = () => {
    handle ??= open(path, "w").catch((cause) => {
      throw ioError("creating zip archive", path, cause);
    });
    return handle;
  };
  return {
    async write(chunk) {
      const h = await get();
      let done = 0;
      while (done < chunk.length) {
        const { bytesWritten } = await h.write(chunk, done, chunk.length - done);
        done += bytesWritten;
      }
    },
    async close() {
      await (await get()).close();
    },
  };
}

/** The local path of a plain path or `file:` URL. */
export function localPath(pathOrUrl: string): string {
  return /^file:/i.test(pathOrUrl) ? fileURLToPath(pathOrUrl) : pathOrUrl;
}
