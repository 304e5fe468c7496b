/**
 * Virtual chunk containers of the repository configuration: the URL prefixes
 * virtual chunks may point into. Spec v1 keeps the configuration in
 * `config.yaml` (serde YAML), spec v2 in the repo info file's `config` field
 * (serde FlexBuffers). Only `virtual_chunk_containers` is read; as in
 * Icechunk, each prefix gets a trailing `/` and one that is not an absolute
 * URL is ignored.
 *
 * @module
 */

import { type FlexValue, readFlexBuffer } from "./flexbuffers.js";

/** A configured virtual chunk container. */
export interface VirtualChunkContainer {
  /** The container's name (for `vcc://NAME/path` locations), if it has one. */
  name?: string;
  /** Virtual chunk URLs starting with this prefix belong to the container (ends with `/`). */
  urlPrefix: string;
}

const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\/\/./i;

function container(name: unknown, urlPrefix: unknown): VirtualChunkContainer | undefined {
  if (typeof urlPrefix !== "string") return undefined;
  const prefix = urlPrefix.endsWith("/") ? urlPrefix : `${urlPrefix}/`;
  if (!ABSOLUTE_URL.test(prefix)) return undefined;
  return typeof name === "string" && name !== ""
    ? { name, urlPrefix: prefix }
    : { urlPrefix: prefix };
}

/** Longest prefix first, as Icechunk matches them. */
function sorted(list: VirtualChunkContainer[]): VirtualChunkContainer[] {
  return list.sort((a, b) => b.urlPrefix.length - a.urlPrefix.length);
}

/** The containers of a spec v2 `config` FlexBuffer (serde's `RepositoryConfig`). */
export function containersFromFlexBuffer(bytes: Uint8Array): VirtualChunkContainer[] {
  const config = readFlexBuffer(bytes);
  const map = isObject(config) ? config.virtual_chunk_containers : undefined;
  const out: VirtualChunkContainer[] = [];
  if (isObject(map)) {
    for (const [key, value] of Object.entries(map)) {
      if (!isObject(value)) continue;
      const c = container(value.name, value.url_prefix ?? key);
      if (c !== undefined) out.push(c);
    }
  }
  return sorted(out);
}

function isObject(v: FlexValue | undefined): v is { [key: string]: FlexValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/**
 * The containers of a spec v1 `config.yaml`: the `name` and `url_prefix`
 * scalars of each entry of the top-level `virtual_chunk_containers` mapping,
 * in the block style serde_yaml writes (other YAML forms give no containers).
 */
export function containersFromYaml(text: string): VirtualChunkContainer[] {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => /^virtual_chunk_containers:\s*$/.test(l));
  if (start < 0) return [];
  const out: VirtualChunkContainer[] = [];
  let entryIndent = -1;
  let fieldIndent = -1;
  let current: { name?: string; url?: string } | undefined;
  const flush = () => {
    const c = current && container(current.name, current.url);
    if (c !== undefined) out.push(c);
  };
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === "" || line.trim().startsWith("#")) continue;
    const indent = line.length - line.trimStart().length;
    if (indent === 0) break;
    if (entryIndent < 0) entryIndent = indent;
    if (indent === entryIndent) {
      flush();
      current = {};
      fieldIndent = -1;
      continue;
    }
    if (indent < entryIndent) break;
    if (fieldIndent < 0) fieldIndent = indent;
    if (indent !== fieldIndent || current === undefined) continue;
    const m = /^(name|url_prefix):\s*(.*?)\s*$/.exec(line.trim());
    if (m === null) continue;
    const value = unquote(m[2]);
    if (m[1] === "name") current.name = value;
    else current.url = value;
  }
  flush();
  return sorted(out);
}

function unquote(s: string): string {
  if (s.length >= 2 && s.startsWith("'") && s.endsWith("'"))
    return s.slice(1, -1).replaceAll("''", "'");
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) {
    try {
      return JSON.parse(s) as string;
    } catch {
      return s.slice(1, -1);
    }
  }
  return s;
}

/**
 * Expands `vcc://NAME/path` locations with the named container's prefix and
 * returns the container a URL belongs to; `undefined` when it belongs to none.
 */
export function matchContainer(
  url: string,
  containers: readonly VirtualChunkContainer[],
): { url: string; container: VirtualChunkContainer } | undefined {
  if (url.startsWith("vcc://")) {
    const rest = url.slice(6);
    const slash = rest.indexOf("/");
    if (slash < 0) return undefined;
    const name = rest.slice(0, slash);
    const named = containers.find((c) => c.name === name);
    return named && { url: named.urlPrefix + rest.slice(slash + 1), container: named };
  }
  const c = containers.find((c) => url.startsWith(c.urlPrefix));
  return c && { url, container: c };
}

/**
 * Why the part of `url` after its container's prefix could leave the
 * container (a `.` or `..` segment, also percent-encoded, or a backslash),
 * or `undefined` when it cannot.
 */
export function escapeReason(url: string, container: VirtualChunkContainer): string | undefined {
  const rest = url.slice(container.urlPrefix.length).split(/[?#]/)[0];
  if (rest.includes("\\") || /%5c/i.test(rest)) return "has a backslash";
  for (const segment of rest.split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return "has a malformed percent escape";
    }
    if (decoded === "." || decoded === "..") return `has a "${decoded}" segment`;
  }
  return undefined;
}
