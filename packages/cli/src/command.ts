/**
 * The shape of one `zarr` subcommand and the I/O it writes through.
 *
 * @module
 */
import type { ParseArgsConfig } from "node:util";

/** Where a command writes, and what it knows about the terminal. */
export interface Io {
  /** Writes one line to standard output. */
  out(line: string): void;
  /**
   * Writes text or bytes to standard output as they are (no newline added),
   * resolving once `data` is written out and no longer held (the caller may
   * then reuse its memory; waiting for it is the back-pressure). Absent when
   * standard output is a line collector (then streamed text is passed to
   * `out` line by line, and binary output to standard output is refused).
   */
  write?: (data: string | Uint8Array) => Promise<void>;
  /** Writes one line to standard error. */
  err(line: string): void;
  /** Rewrites the progress line on standard error; absent when stderr is not an interactive terminal. */
  progress?: (line: string) => void;
  /** Colors allowed (a TTY and no `NO_COLOR`). */
  color: boolean;
  /** Environment variables. */
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT/SIGTERM (long-running commands stop cleanly). */
  signal?: AbortSignal;
}

/** Parsed option values, as `util.parseArgs` returns them. */
export type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

/** One subcommand: its options, help text and implementation. */
export interface Command {
  readonly name: string;
  /** One line for `zarr --help`. */
  readonly summary: string;
  /** `zarr <name> --help`: usage, options and examples. */
  readonly help: string;
  /** Options besides the global ones (`--help`, `--debug`, `--version`, store flags). */
  readonly options: NonNullable<ParseArgsConfig["options"]>;
  /** Positional arguments after the command name: [min, max]. */
  readonly positionals: readonly [number, number];
  /** Runs the command; returns the exit code (default 0). */
  run(positionals: string[], values: Values, io: Io): Promise<number | undefined>;
}

/** A command-line usage error (exit code 1). */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Reads a string option. */
export function str(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

/** Reads a boolean option. */
export function flag(values: Values, name: string): boolean {
  return values[name] === true;
}

/** Red text when colors are allowed. */
export function red(io: Io, text: string): string {
  return io.color ? `\x1b[31m${text}\x1b[39m` : text;
}

/** Green text when colors are allowed. */
export function green(io: Io, text: string): string {
  return io.color ? `\x1b[32m${text}\x1b[39m` : text;
}
