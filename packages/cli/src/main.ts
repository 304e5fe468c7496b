/**
 * The `zarr` command. Exit codes: 0 ok, 1 usage error, 2 data or I/O error.
 * Errors print as one line (`--debug` adds the stack).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { type Command, type Io, UsageError, type Values } from "./command.js";
import { attrsCommand } from "./commands/attrs.js";
import { consolidateCommand } from "./commands/consolidate.js";
import { copyCommand } from "./commands/copy.js";
import { createCommand } from "./commands/create.js";
import { diffCommand } from "./commands/diff.js";
import { getCommand } from "./commands/get.js";
import { infoCommand } from "./commands/info.js";
import { rmCommand } from "./commands/rm.js";
import { serveCommand } from "./commands/serve.js";
import { setCommand } from "./commands/set.js";
import { treeCommand } from "./commands/tree.js";
import { verifyCommand } from "./commands/verify.js";
import { STORE_FLAGS } from "./flags.js";
import { didYouMean } from "./suggest.js";

/** Every subcommand, in help order. */
export const COMMANDS: readonly Command[] = [
  infoCommand,
  treeCommand,
  getCommand,
  setCommand,
  createCommand,
  copyCommand,
  verifyCommand,
  diffCommand,
  consolidateCommand,
  rmCommand,
  attrsCommand,
  serveCommand,
];

const GLOBAL_OPTIONS = {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
  debug: { type: "boolean" },
} as const;

/** Every option of every command, to find the command name wherever options are. */
const ALL_OPTIONS = Object.assign(
  {},
  GLOBAL_OPTIONS,
  STORE_FLAGS,
  ...COMMANDS.map((c) => c.options),
) as typeof GLOBAL_OPTIONS;

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `usage: zarr <command> [options]

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join("\n")}

options: --help, --version, --debug (stack traces)
<store> is a path or URL: data.zarr, file:, https://host/data.zarr, s3://bucket/x.zarr,
gs://bucket/x.zarr, data.zip (zip archives). Run 'zarr <command> --help' for details.
Exit codes: 0 ok, 1 usage error, 2 data or I/O error, 130/143 interrupted (SIGINT/SIGTERM),
141 output cut short (the reader went away). NO_COLOR disables colors.

examples:
  zarr tree data.zarr
  zarr info data.zarr temperature
  zarr copy v2.zarr v3.zarr --format 3 --compressor zstd:3
  zarr verify v3.zarr`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  return String(pkg.version);
}

/** The I/O of a real process: stdout/stderr, progress on an interactive terminal outside CI. */
export function processIo(signal?: AbortSignal): Io {
  const env = process.env;
  const tty = process.stderr.isTTY === true;
  const showProgress = tty && !env.CI && env.TERM !== "dumb";
  return {
    out: (s) => process.stdout.write(`${s}\n`),
    write: (data) =>
      new Promise<void>((resolve, reject) => {
        // Resolves once the stream has written `data` out, not when it merely
        // queued it: a queued write holds the caller's memory (get reuses its
        // slabs), and waiting for it is the back-pressure. (A reader that went
        // away is handled by the EPIPE listener of bin/zarr.js.)
        process.stdout.write(data, (error) => (error ? reject(error) : resolve()));
      }),
    err: (s) => process.stderr.write(`${s}\n`),
    progress: showProgress ? (line) => process.stderr.write(`\r\x1b[K${line}`) : undefined,
    color: tty && env.NO_COLOR === undefined && env.TERM !== "dumb",
    env,
    signal,
  };
}

/**
 * Runs the CLI with `argv` (without node and script); returns the exit code.
 * `out`/`err` receive one line per call (tests pass collectors), or pass an {@link Io}.
 */
export async function main(
  argv: string[],
  out?: ((s: string) => void) | Io,
  err?: (s: string) => void,
): Promise<number> {
  const io: Io =
    typeof out === "object"
      ? out
      : {
          out: out ?? ((s) => process.stdout.write(`${s}\n`)),
          err: err ?? ((s) => process.stderr.write(`${s}\n`)),
          color: false,
          env: process.env,
        };
  const debug = argv.includes("--debug");
  let ran = false;
  try {
    // The command is the first positional; options (with their values) may come before it.
    const name = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: false,
      options: ALL_OPTIONS,
    }).positionals[0];
    const command = COMMANDS.find((c) => c.name === name);
    if (name !== undefined && name !== "help" && command === undefined) throw unknownCommand(name);
    const options = {
      ...GLOBAL_OPTIONS,
      ...(command ? { ...STORE_FLAGS, ...command.options } : {}),
    };
    const { values, positionals } = parseStrict(argv, options, command);
    if (values.version) {
      io.out(version());
      return 0;
    }
    if (name === "help") {
      const topicName = positionals[1];
      const topic = COMMANDS.find((c) => c.name === topicName);
      if (topicName !== undefined && topic === undefined) throw unknownCommand(topicName);
      io.out(topic?.help ?? mainHelp());
      return 0;
    }
    if (command === undefined) {
      io.out(mainHelp());
      return values.help ? 0 : 1;
    }
    if (values.help) {
      io.out(command.help);
      return 0;
    }
    const args = positionals.slice(1);
    const [min, max] = command.positionals;
    if (args.length < min)
      throw new UsageError(
        `zarr ${command.name} needs more arguments\n${command.help.split("\n")[0]}`,
      );
    if (args.length > max) throw new UsageError(`too many arguments: ${args.slice(max).join(" ")}`);
    // Codecs and data formats register only now: `--help`, `--version` and
    // usage errors load none of them (nor core, nor any store package).
    await import("./register.js");
    ran = true;
    return (await untilStopped(command.run(args, values, io), io.signal)) ?? 0;
  } catch (e) {
    if (io.signal?.aborted) {
      // Ctrl-C / SIGTERM: what was written stays consistent (whole chunks); copies resume.
      io.err(
        `zarr: interrupted${argv.includes("copy") ? " (rerun with --resume to continue)" : ""}`,
      );
      return interruptedExitCode(io.signal.reason);
    }
    // The reader of an output stream named as a file (/dev/stdout, a FIFO) went
    // away: quiet, 128 + SIGPIPE, as bin/zarr.js does for standard output.
    const { code, syscall } = e as { code?: string; syscall?: string };
    if (code === "EPIPE" && syscall === "write") return 141;
    const usage = e instanceof UsageError || code?.startsWith("ERR_PARSE_ARGS");
    const message = e instanceof Error ? e.message : String(e);
    // Library errors can only come from a command that ran (core is not
    // loaded before): `--help` and usage errors never import it.
    const kind = usage
      ? "usage: "
      : ran && (await isZarrError(e))
        ? `${(e as Error).name}: `
        : "error: ";
    const prefix = io.color ? "\x1b[31mzarr:\x1b[39m" : "zarr:";
    io.err(`${prefix} ${kind}${message.split("\n")[0]}`);
    if (usage && message.includes("\n")) io.err(message.slice(message.indexOf("\n") + 1));
    const hint = ran ? hintFor(e) : undefined;
    if (hint !== undefined) io.err(hint);
    if (debug && e instanceof Error && e.stack) io.err(e.stack);
    return usage ? 1 : 2;
  } finally {
    if (ran) await untilStopped((await import("./stores.js")).closeOpenedStores(), io.signal);
  }
}

/**
 * How long an interrupted command has to stop by itself. Commands that pass
 * the signal on (get, copy, diff, verify) stop within it, after their chunks
 * in flight; a command waiting on a read that ignores the signal (a server
 * that never answers) is abandoned, and bin/zarr.js ends the process.
 */
const STOP_GRACE_MS = 1000;

/**
 * Settles like `work`, or rejects with `signal`'s reason once `signal` has
 * been aborted for {@link STOP_GRACE_MS} and `work` has not settled.
 */
function untilStopped<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      timer = setTimeout(() => reject(signal.reason), STOP_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    });
  });
}

/**
 * The exit code of a command `reason` aborted: the `exitCode` the caller gave
 * it (bin/zarr.js: 128 + the signal's number), else 130 (an interrupt).
 */
function interruptedExitCode(reason: unknown): number {
  const code = (reason as { exitCode?: unknown } | undefined)?.exitCode;
  return Number.isInteger(code) && (code as number) > 0 && (code as number) < 256
    ? (code as number)
    : 130;
}

/** Names other tools use for these commands. */
const COMMAND_ALIASES: Readonly<Record<string, string>> = {
  cp: "copy",
  remove: "rm",
  del: "rm",
  delete: "rm",
  ls: "tree",
  list: "tree",
  cat: "get",
  show: "info",
  inspect: "info",
  check: "verify",
  compare: "diff",
};

function unknownCommand(name: string): UsageError {
  const names = COMMANDS.map((c) => c.name);
  return new UsageError(
    `unknown command "${name}"${didYouMean(name, names, '"', COMMAND_ALIASES)}; commands: ${names.join(", ")}`,
  );
}

type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses `argv` against the options of `command` (strictly), turning Node's
 * parse errors into usage errors in the CLI's words, with a suggestion for a
 * mistyped option.
 */
function parseStrict(
  argv: string[],
  options: OptionSpec,
  command: Command | undefined,
): { values: Values; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options });
    return { values: parsed.values as Values, positionals: parsed.positionals };
  } catch (e) {
    const code = (e as { code?: string }).code;
    const message = e instanceof Error ? e.message : String(e);
    const where = command ? `zarr ${command.name}` : "zarr";
    const help = command ? `'zarr ${command.name} --help'` : "'zarr --help'";
    const unknown = /Unknown option '([^']+)'/.exec(message)?.[1];
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown !== undefined) {
      const names = Object.keys(options).map((n) => `--${n}`);
      const typed = unknown.startsWith("--") ? unknown : unknown.replace(/^-+/, "--");
      throw new UsageError(
        `unknown option ${unknown} for ${where}${didYouMean(typed, names, "")}; ${help} lists the options`,
      );
    }
    const option = /Option '(?:-\w, )?(--[\w-]+)/.exec(message)?.[1];
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option !== undefined) {
      const takesValue = options[option.slice(2)]?.type === "string";
      throw new UsageError(
        takesValue
          ? `option ${option} needs a value (${option} VALUE or ${option}=VALUE; a value starting with "-" as ${option}=-1)`
          : `option ${option} takes no value`,
      );
    }
    throw new UsageError(`${message.split(". ")[0]}; ${help} shows the usage`);
  }
}

/**
 * A second line for errors whose fix is not in their message: a store that
 * cannot list (HTTP) when a command needs to walk a hierarchy.
 */
function hintFor(e: unknown): string | undefined {
  if (!(e instanceof Error) || e.name !== "StoreCapabilityError") return undefined;
  if (/\blist/i.test(e.message)) {
    return "hint: this store cannot list its keys (plain HTTP cannot): open a path below it (an array or group path as the second argument), or run 'zarr consolidate' on the hierarchy where it is written, so that one read lists it";
  }
  return undefined;
}

/** Whether `e` is one of the library's errors. */
async function isZarrError(e: unknown): Promise<boolean> {
  if (!(e instanceof Error)) return false;
  const { ZarrError } = await import("@zarr/core");
  return e instanceof ZarrError;
}
