/**
 * kerchunk JSON references (kerchunk "spec.md"): version 0 (the object is the
 * reference map) and version 1 (`{"version": 1, "templates", "gen", "refs"}`).
 *
 * @module
 */

import {
  badReference,
  checkReferenceKey,
  inlineBytes,
  listReference,
  type Reference,
  referenceCount,
} from "./reference.js";
import {
  isTemplated,
  type RenderBudget,
  renderTemplate,
  TemplateError,
  type TemplateValue,
} from "./template.js";

/** Options of {@link parseJsonReferences}. */
export interface JsonReferenceOptions {
  /**
   * Most references a `gen` section may expand to, in all (default 2,000,000).
   * Expansion is eager, so this (with a budget of 2^26 characters of generated
   * keys and URLs, raised in proportion) bounds the memory a small document can
   * claim: a few hundred bytes per reference.
   */
  maxGenerated?: number;
}

const DEFAULT_MAX_GENERATED = 2_000_000;
/** Characters of generated keys and URLs per allowed reference (2^26 at the default). */
const CHARS_PER_GENERATED = 2 ** 26 / DEFAULT_MAX_GENERATED;

/**
 * Parses a kerchunk JSON reference document (already `JSON.parse`d) into a
 * map from store key to {@link Reference}. Every key is checked to be a valid
 * store key and every value to be a valid reference; templates and `gen`
 * entries are rendered. Errors are `StoreError`s naming the key (or the
 * `gen`/`templates` entry).
 *
 * @example
 * ```ts
 * const refs = parseJsonReferences({ version: 1, refs: { ".zgroup": '{"zarr_format":2}' } });
 * refs.get(".zgroup"); // { kind: "inline", bytes: ... }
 * ```
 */
export function parseJsonReferences(
  doc: unknown,
  options: JsonReferenceOptions = {},
): Map<string, Reference> {
  if (!isObject(doc)) throw badReference("", "the reference document is not a JSON object");
  const version = doc.version;
  const maxGenerated = options.maxGenerated ?? DEFAULT_MAX_GENERATED;
  const chars = Math.ceil(maxGenerated * CHARS_PER_GENERATED);
  const budget: RenderBudget = { chars, limit: chars };
  if (version === undefined || version === 0) return parseRefs(doc, { templates: {}, budget });
  if (version !== 1) {
    throw badReference(
      "version",
      `unsupported reference version ${JSON.stringify(version)} (0 and 1 are supported)`,
    );
  }
  const ctx: RenderContext = { templates: parseTemplates(doc.templates), budget };
  const refs = parseRefs(doc.refs ?? {}, ctx);
  expandGen(doc.gen ?? [], ctx, refs, maxGenerated);
  return refs;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function parseTemplates(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw badReference("templates", "templates must be an object");
  const templates: Record<string, string> = {};
  for (const [name, text] of Object.entries(value)) {
    if (typeof text !== "string")
      throw badReference(`templates.${name}`, "a template must be a string");
    templates[name] = text;
  }
  return templates;
}

/** What the templates of one document render with: its templates and its shared budget. */
interface RenderContext {
  templates: Record<string, string>;
  budget: RenderBudget;
}

function render(
  key: string,
  text: string,
  values: Record<string, TemplateValue>,
  ctx: RenderContext,
): string {
  try {
    return renderTemplate(text, { values, templates: ctx.templates, budget: ctx.budget });
  } catch (e) {
    if (e instanceof TemplateError) throw badReference(key, `malformed template: ${e.message}`, e);
    throw e;
  }
}

const encoder = new TextEncoder();

function parseRefs(refs: unknown, ctx: RenderContext): Map<string, Reference> {
  if (!isObject(refs)) throw badReference("refs", "refs must be an object");
  const out = new Map<string, Reference>();
  for (const [key, value] of Object.entries(refs)) {
    if (key === "version") continue;
    checkReferenceKey(key);
    out.set(key, valueReference(key, value, ctx));
  }
  return out;
}

function valueReference(key: string, value: unknown, ctx: RenderContext): Reference {
  if (typeof value === "string") return { kind: "inline", bytes: inlineBytes(key, value) };
  if (Array.isArray(value)) {
    const url = value[0];
    if (typeof url === "string" && isTemplated(url)) {
      return listReference(key, [render(key, url, {}, ctx), ...value.slice(1)]);
    }
    return listReference(key, value);
  }
  // A JSON object in place of a metadata document's text: its JSON encoding.
  if (isObject(value)) return { kind: "inline", bytes: encoder.encode(documentText(key, value)) };
  throw badReference(key, `a reference is a string or a list, got ${JSON.stringify(value)}`);
}

type Dimension = readonly TemplateValue[] | { start: number; stop: number; step: number };

function dimensionOf(where: string, name: string, spec: unknown): Dimension {
  if (Array.isArray(spec)) {
    for (const v of spec) {
      if (typeof v !== "string" && !(typeof v === "number" && Number.isSafeInteger(v))) {
        throw badReference(where, `dimension ${name}: values must be integers or strings`);
      }
    }
    return spec as TemplateValue[];
  }
  if (!isObject(spec))
    throw badReference(where, `dimension ${name} must be a list or {start, stop, step}`);
  const int = (v: unknown, fallback: number | undefined, what: string): number => {
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v !== "number" || !Number.isSafeInteger(v)) {
      throw badReference(where, `dimension ${name}: ${what} must be an integer`);
    }
    return v;
  };
  const start = int(spec.start, 0, "start");
  const stop = int(spec.stop, undefined, "stop");
  const step = int(spec.step, 1, "step");
  if (step === 0) throw badReference(where, `dimension ${name}: step must not be 0`);
  return { start, stop, step };
}

/** Python's `range(start, stop, step)` as a list. */
function rangeValues(d: { start: number; stop: number; step: number }): number[] {
  return Array.from({ length: rangeLength(d) }, (_, i) => d.start + i * d.step);
}

function rangeLength(d: Dimension): number {
  if (Array.isArray(d)) return d.length;
  const { start, stop, step } = d as { start: number; stop: number; step: number };
  return Math.max(0, Math.ceil((stop - start) / step));
}

function expandGen(
  gen: unknown,
  ctx: RenderContext,
  out: Map<string, Reference>,
  maxGenerated: number,
): void {
  if (!Array.isArray(gen)) throw badReference("gen", "gen must be a list");
  let total = 0;
  gen.forEach((entry, n) => {
    const where = `gen[${n}]`;
    if (!isObject(entry)) throw badReference(where, "a gen entry must be an object");
    const { key, url, offset, length, dimensions } = entry;
    if (typeof key !== "string" || typeof url !== "string") {
      throw badReference(where, "a gen entry needs string 'key' and 'url'");
    }
    if ((offset === undefined) !== (length === undefined)) {
      throw badReference(where, "a gen entry has both 'offset' and 'length' or neither");
    }
    if (!isObject(dimensions)) throw badReference(where, "a gen entry needs 'dimensions'");
    const names = Object.keys(dimensions);
    const dims = names.map((name) => dimensionOf(where, name, dimensions[name]));
    const count = dims.reduce((p, d) => p * rangeLength(d), 1);
    total += count;
    if (total > maxGenerated) {
      throw badReference(
        where,
        `gen expands to more than ${maxGenerated} references (option maxGenerated)`,
      );
    }
    if (count === 0) return;
    const lists = dims.map((d) =>
      Array.isArray(d) ? d : rangeValues(d as { start: number; stop: number; step: number }),
    );
    const index = new Array<number>(names.length).fill(0);
    for (let i = 0; i < count; i++) {
      const values: Record<string, TemplateValue> = {};
      names.forEach((name, d) => {
        values[name] = lists[d][index[d]];
      });
      const k = render(where, key, values, ctx);
      checkReferenceKey(k);
      const u = render(k, url, values, ctx);
      if (offset === undefined) {
        out.set(k, listReference(k, [u]));
      } else {
        out.set(
          k,
          listReference(k, [
            u,
            genInteger(k, "offset", offset, values, ctx),
            genInteger(k, "length", length, values, ctx),
          ]),
        );
      }
      // Odometer over the dimensions, last fastest (itertools.product order).
      for (let d = names.length - 1; d >= 0; d--) {
        if (++index[d] < lists[d].length) break;
        index[d] = 0;
      }
    }
  });
}

function genInteger(
  key: string,
  what: string,
  spec: unknown,
  values: Record<string, TemplateValue>,
  ctx: RenderContext,
): number {
  if (typeof spec === "number") return referenceCount(key, what, spec);
  if (typeof spec !== "string")
    throw badReference(key, `${what} must be a template string or integer`);
  const text = render(key, spec, values, ctx).trim();
  if (!/^[+-]?\d+$/.test(text))
    throw badReference(key, `${what} renders to ${JSON.stringify(text)}, not an integer`);
  return referenceCount(key, what, Number(text));
}

/**
 * A metadata value given as a JSON object, as text. `JSON.parse` accepts
 * nesting that `JSON.stringify` cannot write back (a stack overflow): that is a
 * `StoreError` naming the key.
 */
export function documentText(key: string, value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (cause) {
    throw badReference(key, "is a JSON document nested too deeply to use", cause);
  }
}
