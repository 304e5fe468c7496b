/**
 * Destinations of streamed output: files (checked against their disk's free
 * space before the first byte), standard output with back-pressure, and text
 * passed on line by line when standard output is a line collector.
 *
 * @module
 */
import { type FileHandle, open, rename, rm, stat, statfs } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { Io } from "./command.js";
import { formatBytes } from "./progress.js";
import { TooLargeError, UsageError } from "./usage.js";

/** A byte count for messages: binary units, or the exact count beyond exbibytes. */
export function sizeText(bytes: bigint): string {
  return bytes < 2n ** 60n ? formatBytes(Number(bytes)) : `${bytes} bytes`;
}

/** A destination of bytes. */
export interface ByteSink {
  write(bytes: Uint8Array): Promise<void>;
  /** Flushes and closes (after the last write). */
  close(): Promise<void>;
  /** Closes after a failure, removing what a regular file's write left (the file keeps its old content). */
  abort(): Promise<void>;
}

/**
 * Bytes free on the disk of `file` (a regular or new file, which is written
 * beside it and renamed over it), or undefined for devices, pipes and unknown
 * file systems.
 */
async function roomFor(file: string): Promise<bigint | undefined> {
  try {
    if (!(await stat(file)).isFile()) return undefined; // /dev/null, a FIFO: no size to check
  } catch {
    // A new file.
  }
  try {
    const fs = await statfs(dirname(resolve(file)), { bigint: true });
    return fs.bavail * fs.bsize;
  } catch {
    return undefined;
  }
}

/**
 * Opens `file` for writing `size` bytes, after checking that they fit on its
 * disk (`what` describes them for the message, `option` names the flag).
 * A regular (or new) file is written under a temporary name beside it and
 * renamed over it by `close`, so it appears only complete and a failed read
 * leaves what was there before; devices and pipes are written directly.
 */
export async function fileSink(
  file: string,
  size: bigint,
  what: string,
  option: string,
): Promise<ByteSink> {
  const room = await roomFor(file);
  if (room !== undefined && size > room) {
    throw new TooLargeError(
      `${option} ${file}: ${what} needs ${sizeText(size)}, but only ${sizeText(room)} is free there; read a part with --select`,
      { path: file },
    );
  }
  let regular = true;
  try {
    regular = (await stat(file)).isFile();
  } catch {
    // A new file.
  }
  const target = resolve(file);
  const temp = regular
    ? join(dirname(target), `.${basename(target)}.zarr-get-${process.pid}-${randomSuffix()}`)
    : target;
  const handle: FileHandle = await open(temp, regular ? "wx" : "w");
  return {
    async write(bytes) {
      for (let done = 0; done < bytes.length; ) {
        const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
        done += bytesWritten;
      }
    },
    async close() {
      await handle.close();
      if (regular) await rename(temp, target);
    },
    async abort() {
      await handle.close().catch(() => {});
      if (regular) await rm(temp, { force: true });
    },
  };
}

function randomSuffix(): string {
  return Math.floor(Math.random() * 2 ** 32).toString(36);
}

/** Standard output as a byte sink (`--out -`). */
export function stdoutSink(io: Io, option: string): ByteSink {
  const write = io.write;
  if (write === undefined)
    throw new UsageError(`${option} -: standard output takes lines only here; give a file name`);
  return { write: (bytes) => write(bytes), close: async () => {}, abort: async () => {} };
}

/** A destination of text: standard output as a stream, or line by line through `io.out`. */
export interface TextSink {
  write(text: string): Promise<void>;
  /** Writes what is left of the last line. */
  close(): Promise<void>;
}

/** Text to standard output. */
export function textSink(io: Io): TextSink {
  const write = io.write;
  if (write !== undefined) return { write: (text) => write(text), close: async () => {} };
  let line = "";
  return {
    async write(text) {
      let start = 0;
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
        io.out(line + text.slice(start, nl));
        line = "";
        start = nl + 1;
      }
      line += text.slice(start);
    },
    async close() {
      if (line !== "") io.out(line);
      line = "";
    },
  };
}
