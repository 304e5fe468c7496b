/**
 * API reports: the exported surface of every entry point of a published
 * package, read from its built declaration files (`dist/*.d.ts`) with the
 * TypeScript compiler API. Each exported name is listed with its kind and its
 * declaration as the `.d.ts` states it (comments removed), so adding, removing,
 * renaming or retyping an export changes the report. `test/api.test.ts`
 * compares the reports with the snapshots committed in `tools/packaging/api/`;
 * `pnpm api:update` rewrites them.
 *
 * Why not api-extractor: it wants one configuration and one run per entry
 * point (20 entries here), and its own TypeScript version; this needs only the
 * workspace's `typescript` and reads every entry in one program, in seconds.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import type { WorkspacePackage } from "./packs.js";

/** Entries left out of the reports: no semver promise, so no snapshot either. */
export const UNGUARDED_SUBPATHS: ReadonlySet<string> = new Set(["./internal"]);

/** One entry point of a package: its subpath and its declaration file. */
export interface ApiEntry {
  subpath: string;
  types: string;
}

/** The `types` file an exports-map value resolves to (first match, depth first). */
function typesOf(value: unknown): string | undefined {
  if (typeof value === "string") return value.endsWith(".d.ts") ? value : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.types === "string") return record.types;
  for (const [condition, inner] of Object.entries(record)) {
    if (condition === "source") continue;
    const found = typesOf(inner);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The guarded entry points of `pkg` (subpaths with types, except `UNGUARDED_SUBPATHS`). */
export function apiEntries(pkg: WorkspacePackage): ApiEntry[] {
  const exportsMap = pkg.manifest.exports as Record<string, unknown> | undefined;
  const entries: ApiEntry[] = [];
  for (const [subpath, value] of Object.entries(exportsMap ?? {})) {
    if (UNGUARDED_SUBPATHS.has(subpath)) continue;
    const types = typesOf(value);
    if (types !== undefined) entries.push({ subpath, types: join(pkg.dir, types) });
  }
  return entries;
}

/** The checker's (internal, but long-standing) lookup of a type-only alias in a chain. */
type TypeOnlyChecker = ts.TypeChecker & {
  getTypeOnlyAliasDeclaration?(symbol: ts.Symbol): ts.Node | undefined;
};

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

function kindOf(symbol: ts.Symbol): string {
  const f = symbol.flags;
  if (f & ts.SymbolFlags.Class) return "class";
  if (f & ts.SymbolFlags.Enum) return "enum";
  if (f & ts.SymbolFlags.Function) return "function";
  if (f & ts.SymbolFlags.Interface) return "interface";
  if (f & ts.SymbolFlags.TypeAlias) return "type";
  if (f & ts.SymbolFlags.Variable) {
    const decl = symbol.declarations?.[0];
    const list = decl?.parent;
    return list && ts.isVariableDeclarationList(list) && list.flags & ts.NodeFlags.Const
      ? "const"
      : "let";
  }
  if (f & ts.SymbolFlags.Module) return "namespace";
  return "unknown";
}

/** The printed text of one declaration, without comments, `export`/`declare` or blank lines. */
function declarationText(decl: ts.Declaration): string {
  let node: ts.Node = decl;
  if (ts.isVariableDeclaration(decl)) node = decl.parent.parent; // the statement
  const text = printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile());
  return text
    .replace(/^(export )?(default )?(declare )?/, "")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .join("\n");
}

const options: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  types: ["node"],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};

/**
 * A compiler host that parses each declaration file once per process (the DOM
 * and Node typings dominate the cost), so a report per package stays fast.
 */
const cachingHost: ts.CompilerHost = (() => {
  const host = ts.createCompilerHost(options);
  const cache = new Map<string, ts.SourceFile | undefined>();
  const getSourceFile: ts.CompilerHost["getSourceFile"] = (fileName, language, ...rest) => {
    const key = `${fileName}\0${typeof language === "object" ? `${language.languageVersion}/${language.impliedNodeFormat}` : language}`;
    if (!cache.has(key)) cache.set(key, host.getSourceFile(fileName, language, ...rest));
    return cache.get(key);
  };
  return { ...host, getSourceFile };
})();

/**
 * The API report of `entries` (one package): a Markdown document with one
 * section per entry listing every export, values then types, by name.
 */
export function apiReport(packageName: string, entries: readonly ApiEntry[]): string {
  const program = ts.createProgram({
    rootNames: entries.map((e) => e.types),
    options,
    host: cachingHost,
  });
  const checker = program.getTypeChecker();
  const out = [
    `# API report: ${packageName}`,
    "",
    "Generated from the built declaration files by `tools/packaging/src/api-report.ts`;",
    "checked by `tools/packaging/test/api.test.ts`. Do not edit: run `pnpm api:update`.",
  ];
  for (const entry of entries) {
    const source = program.getSourceFile(entry.types);
    const specifier =
      entry.subpath === "." ? packageName : `${packageName}/${entry.subpath.slice(2)}`;
    out.push("", `## ${specifier}`, "");
    if (!source) {
      out.push(`(declaration file ${entry.types} not found: build first)`);
      continue;
    }
    const moduleSymbol = checker.getSymbolAtLocation(source);
    const exported = moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [];
    const rows = exported.map((symbol) => {
      const target =
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      // `export type { X }` / `export type *` of a value: the alias is type-only.
      const typeOnly =
        !(target.flags & ts.SymbolFlags.Value) ||
        (symbol.declarations ?? []).some(ts.isTypeOnlyImportOrExportDeclaration) ||
        (checker as TypeOnlyChecker).getTypeOnlyAliasDeclaration?.(symbol) !== undefined;
      const decls = (target.declarations ?? []).filter((d) => !ts.isSourceFile(d));
      const text = decls.map(declarationText).join("\n");
      return { name: symbol.name, kind: kindOf(target), value: !typeOnly, text };
    });
    rows.sort((a, b) => Number(b.value) - Number(a.value) || a.name.localeCompare(b.name, "en"));
    const values = rows.filter((r) => r.value).length;
    out.push(`${rows.length} exports: ${values} values, ${rows.length - values} types only.`, "");
    for (const row of rows) {
      out.push(`### ${row.value ? "value" : "type"} ${row.kind} \`${row.name}\``, "", "```ts");
      out.push(row.text, "```", "");
    }
    while (out.at(-1) === "") out.pop();
  }
  return `${out.join("\n")}\n`;
}

/** The snapshot file of a package's report, relative to `tools/packaging`. */
export function reportFile(packageName: string): string {
  return join("api", `${packageName.replace(/^@/, "").replace("/", "-")}.api.md`);
}

/**
 * A short line diff of two reports (the sections and lines that differ), for
 * a failure message that says which exports changed.
 */
export function reportDiff(expected: string, actual: string): string {
  const before = expected.split("\n");
  const after = actual.split("\n");
  const removed = new Set(before);
  const added = new Set(after);
  for (const line of after) removed.delete(line);
  for (const line of before) added.delete(line);
  const heading = (lines: string[], i: number) => {
    for (let j = i; j >= 0; j--) if (lines[j]?.startsWith("#")) return lines[j];
    return "";
  };
  const out: string[] = [];
  before.forEach((line, i) => {
    if (removed.has(line)) out.push(`- ${line}    (in ${heading(before, i)})`);
  });
  after.forEach((line, i) => {
    if (added.has(line)) out.push(`+ ${line}    (in ${heading(after, i)})`);
  });
  return out.join("\n");
}

/** Reads a committed snapshot, or `undefined` when there is none yet. */
export function readSnapshot(packagingDir: string, packageName: string): string | undefined {
  try {
    return readFileSync(join(packagingDir, reportFile(packageName)), "utf8");
  } catch {
    return undefined;
  }
}
