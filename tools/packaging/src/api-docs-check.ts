/**
 * TSDoc coverage of a package's user API (issue 17): every function, class
 * constructor and public method that an entry point exports must have a
 * summary and an `@param` for each parameter, and every exported function and
 * class an `@example`. Read from the TypeScript sources with the compiler API,
 * so each finding names the source file and line to fix.
 * `test/api-docs.test.ts` runs it on `@zarr/core`'s root entry.
 *
 * What is checked, per exported symbol (aliases resolved to their source
 * declaration):
 * - a function: summary, `@param` per parameter, `@example` (overloads: the
 *   documented signatures together must cover every parameter);
 * - a class: `@example` on the class; its own constructor and public methods,
 *   accessors with parameters (setters) included: summary and `@param` per
 *   parameter (a constructor without its own comment may take its summary
 *   from the class comment, but still needs the `@param`s);
 * - interfaces, type aliases and constants: not checked (no parameters of
 *   their own to document).
 *
 * Parameters named with a leading underscore, `this` parameters, and members
 * that are private, protected, `#private`, named with a leading underscore or
 * tagged `@internal` (e.g. a constructor users do not call) are skipped.
 *
 * @module
 */
import { relative } from "node:path";
import ts from "typescript";

/** One missing piece of documentation. */
export interface DocFinding {
  /** The source file, relative to the `root` passed to {@link checkApiDocs}. */
  file: string;
  /** 1-based line of the declaration. */
  line: number;
  /** The exported name, with `.member` for a class member. */
  name: string;
  /** What is missing: `summary`, `@example` or `@param <name>`. */
  missing: string;
}

/** The result of {@link checkApiDocs}. */
export interface DocReport {
  findings: DocFinding[];
  /** Parameters of checked functions, constructors and methods. */
  params: number;
  /** Of those, how many have an `@param`. */
  documentedParams: number;
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
  customConditions: ["source"],
};

/** The JSDoc blocks attached directly to a declaration (not inherited). */
function docsOf(node: ts.Node): ts.JSDoc[] {
  let target: ts.Node = node;
  if (ts.isVariableDeclaration(node)) target = node.parent.parent;
  return ts.getJSDocCommentsAndTags(target).filter((d): d is ts.JSDoc => ts.isJSDoc(d));
}

function hasSummary(docs: readonly ts.JSDoc[]): boolean {
  return docs.some((d) => ts.getTextOfJSDocComment(d.comment)?.trim());
}

function hasTag(docs: readonly ts.JSDoc[], tag: string): boolean {
  return docs.some((d) => (d.tags ?? []).some((t) => t.tagName.text === tag));
}

/** Parameter names with an `@param` in `docs` (a destructured parameter may use any name). */
function paramTags(docs: readonly ts.JSDoc[]): Set<string> {
  const names = new Set<string>();
  for (const d of docs) {
    for (const t of d.tags ?? []) {
      if (ts.isJSDocParameterTag(t)) names.add(t.name.getText().replace(/^\[|\]$|=.*$/g, ""));
    }
  }
  return names;
}

type Signature = ts.SignatureDeclaration & { parameters: ts.NodeArray<ts.ParameterDeclaration> };

function checkedParams(sig: Signature): ts.ParameterDeclaration[] {
  return sig.parameters.filter((p) => {
    if (!ts.isIdentifier(p.name)) return true;
    return p.name.text !== "this" && !p.name.text.startsWith("_");
  });
}

function paramName(p: ts.ParameterDeclaration, index: number): string {
  return ts.isIdentifier(p.name) ? p.name.text : `#${index}`;
}

function isPublicMember(member: ts.ClassElement): boolean {
  if (member.name && ts.isPrivateIdentifier(member.name)) return false;
  if (member.name && ts.isIdentifier(member.name) && member.name.text.startsWith("_")) return false;
  const flags = ts.getCombinedModifierFlags(member as ts.Declaration);
  return !(flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected));
}

/**
 * Checks the TSDoc of everything `entry` (a `.ts` source file) exports.
 * `root` only shortens the file names in the findings.
 */
export function checkApiDocs(entry: string, root: string): DocReport {
  const program = ts.createProgram({ rootNames: [entry], options });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (!source) throw new Error(`cannot read ${entry}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${entry} is not a module`);
  const report: DocReport = { findings: [], params: 0, documentedParams: 0 };

  const find = (node: ts.Node, name: string, missing: string) => {
    const sf = node.getSourceFile();
    const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    report.findings.push({ file: relative(root, sf.fileName), line: line + 1, name, missing });
  };

  /**
   * Checks the summary and parameters of a group of signatures (the overloads
   * and implementation of one function or method). `fallbackDocs` supply a
   * summary (a constructor's class comment).
   */
  const checkSignatures = (
    sigs: readonly Signature[],
    name: string,
    fallbackDocs: readonly ts.JSDoc[] = [],
  ) => {
    const first = sigs[0];
    if (!first) return;
    const docs = sigs.flatMap(docsOf);
    if (!hasSummary(docs) && !hasSummary(fallbackDocs)) find(first, name, "summary");
    const documented = paramTags(docs);
    const seen = new Set<string>();
    // With overloads, the implementation's parameters are not part of the API.
    const api = sigs.length > 1 ? sigs.filter((s) => !("body" in s && s.body)) : sigs;
    for (const sig of api) {
      checkedParams(sig).forEach((p, i) => {
        const pn = paramName(p, i);
        if (seen.has(pn)) return;
        seen.add(pn);
        report.params++;
        const ok = ts.isIdentifier(p.name) ? documented.has(pn) : documented.size > 0;
        if (ok) report.documentedParams++;
        else find(p, name, `@param ${pn}`);
      });
    }
  };

  const checkClass = (decl: ts.ClassDeclaration, name: string) => {
    const classDocs = docsOf(decl);
    if (!hasSummary(classDocs)) find(decl, name, "summary");
    if (!hasTag(classDocs, "example")) find(decl, name, "@example");
    const groups = new Map<string, Signature[]>();
    for (const member of decl.members) {
      if (!isPublicMember(member) || hasTag(docsOf(member), "internal")) continue;
      let key: string | undefined;
      if (ts.isConstructorDeclaration(member)) key = "constructor";
      else if (ts.isMethodDeclaration(member)) key = member.name.getText();
      else if (ts.isSetAccessorDeclaration(member)) key = `set ${member.name.getText()}`;
      if (key === undefined) continue;
      const sigs = groups.get(key) ?? [];
      sigs.push(member as Signature);
      groups.set(key, sigs);
    }
    for (const [key, sigs] of groups) {
      const isStatic = sigs.some((s) => ts.getCombinedModifierFlags(s) & ts.ModifierFlags.Static);
      const member = key === "constructor" ? "constructor" : key.replace(/^set /, "");
      const label = `${name}${isStatic ? "." : "#"}${member}`;
      checkSignatures(sigs, label, key === "constructor" ? classDocs : []);
    }
  };

  const exported = checker.getExportsOfModule(moduleSymbol);
  for (const symbol of exported) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const decls = target.declarations ?? [];
    const fns = decls.filter(ts.isFunctionDeclaration);
    if (fns.length > 0) {
      checkSignatures(fns, symbol.name);
      if (!hasTag(fns.flatMap(docsOf), "example")) find(fns[0] as ts.Node, symbol.name, "@example");
    }
    for (const decl of decls) {
      if (ts.isClassDeclaration(decl)) checkClass(decl, symbol.name);
      // `export const f = (a) => ...`: an arrow function or function expression.
      if (ts.isVariableDeclaration(decl) && decl.initializer) {
        const init = decl.initializer;
        if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) {
          const docs = docsOf(decl);
          if (!hasSummary(docs)) find(decl, symbol.name, "summary");
          if (!hasTag(docs, "example")) find(decl, symbol.name, "@example");
          const documented = paramTags(docs);
          checkedParams(init).forEach((p, i) => {
            report.params++;
            if (documented.has(paramName(p, i))) report.documentedParams++;
            else find(p, symbol.name, `@param ${paramName(p, i)}`);
          });
        }
      }
    }
  }
  report.findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  return report;
}

/** One line per finding: `file:line name: missing`. */
export function formatFindings(findings: readonly DocFinding[]): string {
  return findings.map((f) => `${f.file}:${f.line} ${f.name}: missing ${f.missing}`).join("\n");
}
