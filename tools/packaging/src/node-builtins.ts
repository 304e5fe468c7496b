/**
 * Recognises imports of Node.js built-in modules (`node:fs`, `fs`, `zlib`, ...),
 * which must never reach a browser bundle.
 *
 * @module
 */
import { builtinModules } from "node:module";

const BARE_BUILTINS = new Set(builtinModules.filter((name) => !name.startsWith("_")));

/** True when `specifier` names a Node.js built-in module. */
export function isNodeBuiltin(specifier: string): boolean {
  if (specifier.startsWith("node:")) return true;
  return BARE_BUILTINS.has(specifier) || BARE_BUILTINS.has(specifier.split("/")[0]!);
}

/** An esbuild `onResolve` filter matching every specifier {@link isNodeBuiltin} accepts. */
export const NODE_BUILTIN_FILTER: RegExp = new RegExp(
  `^(node:.*|(${[...BARE_BUILTINS].map((name) => name.replace(/[/]/g, "\\/")).join("|")})(\\/.*)?)$`,
);
