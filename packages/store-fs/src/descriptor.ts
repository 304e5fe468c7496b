/**
 * A file opened for reading, as a plain descriptor. Reads go through Node's
 * callback API, and the descriptor closes synchronously: `FileHandle` costs
 * several microseconds of main-thread work per open, read and close, and a
 * thread-pool trip to close, which dominate reads of small chunks.
 *
 * @module
 */
import { closeSync, open, read, readv } from "node:fs";

export class ReadDescriptor {
  #open = true;

  private constructor(readonly fd: number) {}

  /** Opens `path` with `flags`; rejects with Node's error (its `code` set). */
  static open(path: string, flags: number): Promise<ReadDescriptor> {
    return new Promise((resolve, reject) => {
      open(path, flags, (error, fd) => (error ? reject(error) : resolve(new ReadDescriptor(fd))));
    });
  }

  /** Reads up to `length` bytes at `position` into `buffer[offset..]`; resolves to the bytes read. */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    return new Promise((resolve, reject) => {
      read(this.fd, buffer, offset, length, position, (error, bytesRead) =>
        error ? reject(error) : resolve(bytesRead),
      );
    });
  }

  /** Reads into `views`, laid end to end, from `position` (one `preadv`); resolves to the bytes read. */
  readv(views: readonly Uint8Array[], position: number): Promise<number> {
    return new Promise((resolve, reject) => {
      readv(this.fd, views as Uint8Array[], position, (error, bytesRead) =>
        error ? reject(error) : resolve(bytesRead),
      );
    });
  }

  /**
   * Closes the descriptor (once; later calls do nothing). Synchronous: closing
   * a descriptor opened for reading releases it without I/O.
   */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    try {
      closeSync(this.fd);
    } catch {
      // Already gone (EBADF) or interrupted: nothing was written, nothing is lost.
    }
  }
}
