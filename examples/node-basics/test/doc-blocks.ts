/**
 * Code blocks of the markdown guides in docs/ and of the READMEs: extraction
 * and type-checking.
 *
 * A block opened with ```ts (or ```js) is type-checked and executed; ```ts
 * check is only type-checked (it needs a network, credentials or a server);
 * ```ts fragment and blocks in other libraries' syntax (```ts zarrita, ```ts
 * zarr.js) are skipped. Other languages (sh, python, json) are not code of
 * this project.
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";

/** What the checker does with a block. */
export type BlockMode = "run" | "check" | "skip";

/** One fenced ```ts block of a guide. */
export interface DocBlock {
  /** The markdown file, relative to the repository root. */
  doc: string;
  /** 1-based line of the block's first code line in the markdown file. */
  line: number;
  mode: BlockMode;
  code: string;
}

const TAGS: Record<string, BlockMode> = {
  "": "run",
  check: "check",
  fragment: "skip",
  zarrita: "skip",
  "zarr.js": "skip",
};

/**
 * Every ```ts/```typescript block of the `.md` files directly in `docsDir`,
 * named `docs/FILE.md`.
 */
export function extractBlocks(docsDir: string): DocBlock[] {
  return readdirSync(docsDir)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .flatMap((doc) => extractFileBlocks(join(docsDir, doc), `docs/${doc}`));
}

const LANGUAGES = new Set(["ts", "typescript", "js", "javascript"]);

/**
 * Every ```ts/```typescript (or ```js/```javascript) block of one markdown
 * file, named `doc` in messages.
 */
export function extractFileBlocks(path: string, doc: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  const lines = readFileSync(path, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*(\S*)\s*(.*?)\s*$/.exec(lines[i]);
    if (!open) continue;
    const [, , fence, lang, rest] = open;
    let end = i + 1;
    while (end < lines.length && !lines[end].trimStart().startsWith(fence)) end++;
    if (end === lines.length) throw new Error(`${doc}:${i + 1}: unclosed code fence`);
    if (LANGUAGES.has(lang)) {
      const mode = TAGS[rest];
      if (mode === undefined) {
        throw new Error(
          `${doc}:${i + 1}: unknown block tag "${rest}" (use one of: ${Object.keys(TAGS).filter(Boolean).join(", ")})`,
        );
      }
      blocks.push({ doc, line: i + 2, mode, code: lines.slice(i + 1, end).join("\n") });
    }
    i = end;
  }
  return blocks;
}

/** The virtual file name of a block, beside `projectDir` so that its node_modules resolve. */
export function blockFileName(projectDir: string, block: DocBlock): string {
  const name = block.doc.replace(/\.md$/, "").replace(/[^\w.-]+/g, "_");
  return join(projectDir, "docs-check", `${name}-L${block.line}.ts`);
}

/** Source of a block as a module (so top-level await works and names do not clash). */
export function blockSource(block: DocBlock): string {
  return `${block.code}\nexport {};\n`;
}

/**
 * Type-checks `blocks` as modules of the project at `projectDir` (its
 * tsconfig.json, so workspace packages resolve to their TypeScript sources).
 * Returns one message per problem: `doc.md:line: error text`.
 */
export function typeCheckBlocks(projectDir: string, blocks: readonly DocBlock[]): string[] {
  const configPath = join(projectDir, "tsconfig.json");
  const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, projectDir);
  const options: ts.CompilerOptions = { ...parsed.options, noEmit: true };
  const files = new Map(blocks.map((b) => [blockFileName(projectDir, b), b]));
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, languageVersion, onError, shouldCreate) => {
    const block = files.get(name);
    if (block) return ts.createSourceFile(name, blockSource(block), languageVersion, true);
    return getSourceFile(name, languageVersion, onError, shouldCreate);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => {
    const block = files.get(name);
    return block ? blockSource(block) : readFile(name);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  const problems: string[] = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    const block = d.file ? files.get(d.file.fileName) : undefined;
    if (d.file && block && d.start !== undefined) {
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      problems.push(`${block.doc}:${block.line + line}: ${text}`);
    } else if (d.file) {
      problems.push(`${relative(dirname(projectDir), d.file.fileName)}: ${text}`);
    } else {
      problems.push(text);
    }
  }
  return problems;
}
