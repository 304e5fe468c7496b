/**
 * A file opened for reading, as a plain descriptor. Every call goes through
 * Node's callback API, in libuv's thread pool (`FileHandle` costs several
 * microseconds of main-thread work per open, read and close, which dominate
 * reads of small chunks). None is made on the calling thread: on a FUSE or
 * network filesystem even `fstat` (a GETATTR) and `close` (a FLUSH) wait for
 * the server, and a server that stops answering would freeze the event loop.
 *
 * @module
 */
import { close, fstat, open, read, readv, type Stats } from "node:fs";

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

  /** The open file's type and size (`fstat`). */
  stat(): Promise<Stats> {
    return new Promise((resolve, reject) => {
      fstat(this.fd, (error, stats) => (error ? reject(error) : resolve(stats)));
    });
  }

  /**
   * Closes the descriptor (once; later calls resolve at once), in the thread
   * pool; never rejects: nothing was written, so an error (EBADF, EINTR) loses
   * nothing. Awaited by every read: a close still queued when a worker thread
   * ends is dropped with its event loop, and the descriptor would stay open.
   */
  close(): Promise<void> {
    if (!this.#open) return Promise.resolve();
    this.#open = false;
    return new Promise((resolve) => close(this.fd, () => resolve()));
  }
}
