// The ` ```sh transcript ` blocks of docs/cli.md, run: every `zarr` command in
// them runs (in order, in one temporary directory holding a copy of
// examples/data), and what it prints must be the `# ` lines under it. So the
// documented output stays true.
//
// Rules: a line starting with `zarr ` is a command (a `  # comment` after it
// is ignored); the `# ` lines after it are its standard output, then its
// standard error; a trailing `(on stderr)` is dropped, a trailing `(exit N)`
// sets the expected exit code (0 otherwise); a line ending in `...` matches
// any line starting with what precedes it; `echo $?   # N` checks the last
// exit code; a command without `# ` lines must only succeed.
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./helpers.js";

interface Step {
  line: number;
  args: string[];
  expected: string[];
  exit: number;
  checked: boolean;
}

/** Splits a command line into words, honouring single and double quotes. */
function words(text: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const ch of text) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= "";
    } else if (ch === " ") {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + ch;
    }
  }
  if (quote !== undefined) throw new Error(`unclosed quote in: ${text}`);
  if (word !== undefined) out.push(word);
  return out;
}

/** The command part of a line: without a trailing `  # comment`. */
function command(text: string): string {
  const m = /^(.*?\S)\s{2,}#.*$/.exec(text);
  return m ? m[1] : text;
}

/** The steps of every transcript block of `markdown`, in order. */
function transcripts(markdown: string): Step[] {
  const lines = markdown.split("\n");
  const steps: Step[] = [];
  let inBlock = false;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i];
    if (/^```sh transcript\s*$/.test(text)) {
      inBlock = true;
      continue;
    }
    if (inBlock && text.startsWith("```")) {
      inBlock = false;
      continue;
    }
    if (!inBlock) continue;
    const last = steps.at(-1);
    if (text.startsWith("zarr ")) {
      steps.push({
        line: i + 1,
        args: words(command(text)).slice(1),
        expected: [],
        exit: 0,
        checked: false,
      });
    } else if (text.startsWith("echo $?")) {
      const code = /#\s*(\d+)\s*$/.exec(text)?.[1];
      if (last === undefined || code === undefined)
        throw new Error(`docs/cli.md:${i + 1}: echo $? needs a command before and "# N"`);
      last.exit = Number(code);
    } else if (text.startsWith("# ") || text === "#") {
      if (last === undefined) throw new Error(`docs/cli.md:${i + 1}: output before any command`);
      let expected = text.slice(2);
      const exit = /\s{2,}\(exit (\d+)\)$/.exec(expected);
      if (exit) {
        last.exit = Number(exit[1]);
        expected = expected.slice(0, exit.index);
      }
      expected = expected.replace(/\s{2,}\(on stderr\)$/, "");
      last.expected.push(expected);
      last.checked = true;
    } else if (text.trim() !== "") {
      throw new Error(`docs/cli.md:${i + 1}: not a command, an output line or echo $?: ${text}`);
    }
  }
  return steps;
}

function matches(actual: string, expected: string): boolean {
  return expected.endsWith("...") ? actual.startsWith(expected.slice(0, -3)) : actual === expected;
}

const steps = transcripts(readFileSync(join(repoRoot, "docs/cli.md"), "utf8"));

describe("docs/cli.md transcripts", () => {
  const dir = mkdtempSync(join(tmpdir(), "zarr-cli-docs-"));
  const cwd = process.cwd();
  beforeAll(() => {
    cpSync(join(repoRoot, "examples/data"), join(dir, "examples/data"), { recursive: true });
    process.chdir(dir);
  });
  afterAll(() => {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  });

  it("has transcripts to run", () => {
    expect(steps.length).toBeGreaterThan(10);
  });

  for (const step of steps) {
    it(`docs/cli.md:${step.line}: zarr ${step.args.join(" ")}`, async () => {
      const r = await run(...step.args);
      const printed = [r.out, r.err]
        .filter((s) => s !== "")
        .join("\n")
        .split("\n");
      expect(r.code, `${r.out}\n${r.err}`).toBe(step.exit);
      if (!step.checked) return;
      const ok =
        printed.length === step.expected.length &&
        printed.every((line, k) => matches(line, step.expected[k]));
      expect(ok ? step.expected : printed, "printed lines").toEqual(step.expected);
    });
  }
});
