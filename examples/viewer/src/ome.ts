/**
 * OME-Zarr (NGFF) image metadata: the `multiscales` pyramid description and
 * the `omero` rendering settings, from version 0.4 (v2 `.zattrs`, top-level
 * keys) and 0.5 (v3 `zarr.json` attributes, under the `ome` key).
 *
 * References: NGFF 0.4 "multiscales metadata", "axes metadata",
 * "coordinateTransformations metadata" and "omero metadata"
 * (https://ngff.openmicroscopy.org/0.4/); NGFF 0.5 moves the same fields under
 * `attributes.ome` with `ome.version` (https://ngff.openmicroscopy.org/0.5/).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "@zarr/core";

/** An axis of an OME image: `type` is "time", "channel", "space" or absent. */
export interface OmeAxis {
  name: string;
  type?: string;
  unit?: string;
}

/** One pyramid level: the array's path (relative to the image group) and its transform. */
export interface OmeLevel {
  path: string;
  /** Physical size of one element along each axis (1 when absent). */
  scale: number[];
  /** Physical position of element 0 along each axis (0 when absent). */
  translation: number[];
}

/** One channel's rendering settings from `omero.channels`. */
export interface OmeChannel {
  label: string;
  /** RGB, each 0..255. */
  color: [number, number, number];
  /** Contrast limits (`window.start`, `window.end`) when present. */
  window?: [number, number];
  active: boolean;
}

/** The image description the viewer uses. */
export interface OmeImage {
  version: string;
  name?: string;
  axes: OmeAxis[];
  /** Levels from the finest (index 0) to the coarsest, as listed in `datasets`. */
  levels: OmeLevel[];
  channels?: OmeChannel[];
  /** `omero.rdefs.defaultT` / `defaultZ` when present. */
  defaultT?: number;
  defaultZ?: number;
}

/** Thrown for attributes that claim to be OME-Zarr but are malformed. */
export class OmeMetadataError extends Error {
  override name = "OmeMetadataError";
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function numbers(v: unknown, n: number, what: string): number[] {
  if (!Array.isArray(v) || v.length !== n || !v.every((x) => typeof x === "number")) {
    throw new OmeMetadataError(`${what} must be ${n} numbers, got ${JSON.stringify(v)}`);
  }
  return v as number[];
}

/** NGFF 0.4 "axes metadata": objects with name/type/unit (0.3's bare names accepted). */
function parseAxes(v: unknown): OmeAxis[] {
  if (!Array.isArray(v) || v.length < 2 || v.length > 5) {
    throw new OmeMetadataError(`multiscales axes must list 2 to 5 axes, got ${JSON.stringify(v)}`);
  }
  return v.map((a) => {
    if (typeof a === "string") return { name: a, type: defaultAxisType(a) };
    if (!isObject(a) || typeof a.name !== "string") {
      throw new OmeMetadataError(`an axis must have a name, got ${JSON.stringify(a)}`);
    }
    const axis: OmeAxis = { name: a.name };
    if (typeof a.type === "string") axis.type = a.type;
    else axis.type = defaultAxisType(a.name);
    if (typeof a.unit === "string") axis.unit = a.unit;
    return axis;
  });
}

function defaultAxisType(name: string): string | undefined {
  if (name === "t") return "time";
  if (name === "c") return "channel";
  if (name === "z" || name === "y" || name === "x") return "space";
  return undefined;
}

/** Folds a list of `scale`/`translation` transforms into one of each (NGFF 0.4 §coordinateTransformations). */
function transforms(
  v: unknown,
  n: number,
  what: string,
): { scale: number[]; translation: number[] } {
  const scale = new Array<number>(n).fill(1);
  const translation = new Array<number>(n).fill(0);
  if (v === undefined) return { scale, translation };
  if (!Array.isArray(v))
    throw new OmeMetadataError(`${what} coordinateTransformations must be a list`);
  for (const t of v) {
    if (!isObject(t)) throw new OmeMetadataError(`${what}: a transform must be an object`);
    if (t.type === "scale") {
      const s = numbers(t.scale, n, `${what} scale`);
      for (let i = 0; i < n; i++) {
        scale[i]! *= s[i]!;
        translation[i]! *= s[i]!;
      }
    } else if (t.type === "translation") {
      const d = numbers(t.translation, n, `${what} translation`);
      for (let i = 0; i < n; i++) translation[i]! += d[i]!;
    } else if (t.type !== "identity") {
      throw new OmeMetadataError(`${what}: unsupported transform type ${JSON.stringify(t.type)}`);
    }
  }
  return { scale, translation };
}

/** "FF8000" -> [255, 128, 0]; anything else -> white. */
export function parseColor(hex: unknown): [number, number, number] {
  if (typeof hex === "string" && /^[0-9a-f]{6}$/i.test(hex)) {
    const n = Number.parseInt(hex, 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  }
  return [255, 255, 255];
}

function parseOmero(v: unknown): Pick<OmeImage, "channels" | "defaultT" | "defaultZ"> {
  if (!isObject(v)) return {};
  const out: Pick<OmeImage, "channels" | "defaultT" | "defaultZ"> = {};
  if (Array.isArray(v.channels)) {
    out.channels = v.channels.map((c, i): OmeChannel => {
      const ch = isObject(c) ? c : {};
      const w = isObject(ch.window) ? ch.window : undefined;
      const channel: OmeChannel = {
        label: typeof ch.label === "string" ? ch.label : `channel ${i}`,
        color: parseColor(ch.color),
        active: ch.active !== false,
      };
      if (w && typeof w.start === "number" && typeof w.end === "number")
        channel.window = [w.start, w.end];
      return channel;
    });
  }
  const rdefs = isObject(v.rdefs) ? v.rdefs : {};
  if (typeof rdefs.defaultT === "number") out.defaultT = rdefs.defaultT;
  if (typeof rdefs.defaultZ === "number") out.defaultZ = rdefs.defaultZ;
  return out;
}

/**
 * The OME image described by a group's attributes, or `undefined` when they
 * hold no `multiscales` (a plain group). The first multiscale is used.
 *
 * @example
 * ```ts
 * const image = parseOme(group.attrs); // 0.4 or 0.5 attributes
 * if (image) console.log(image.levels.map((l) => l.path));
 * ```
 */
export function parseOme(attrs: JsonObject): OmeImage | undefined {
  // 0.5: everything under `ome`; 0.4: top-level keys.
  const root: JsonObject = isObject(attrs.ome) ? attrs.ome : attrs;
  const list = root.multiscales;
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.length === 0 || !isObject(list[0])) {
    throw new OmeMetadataError("multiscales must be a non-empty list of objects");
  }
  const ms = list[0] as JsonObject;
  const given = root === attrs ? ms.version : root.version;
  if (given !== undefined && typeof given !== "string" && typeof given !== "number") {
    throw new OmeMetadataError("version must be a string");
  }
  const version = String(given ?? (root === attrs ? "0.4" : "0.5"));
  const axes = parseAxes(ms.axes);
  const n = axes.length;
  if (!Array.isArray(ms.datasets) || ms.datasets.length === 0) {
    throw new OmeMetadataError("multiscales datasets must be a non-empty list");
  }
  // A transform on the whole multiscale applies after each dataset's own.
  const outer = transforms(ms.coordinateTransformations, n, "multiscales");
  const levels = ms.datasets.map((d: JsonValue, i): OmeLevel => {
    if (!isObject(d) || typeof d.path !== "string") {
      throw new OmeMetadataError(`dataset ${i} must have a path`);
    }
    const own = transforms(d.coordinateTransformations, n, `dataset "${d.path}"`);
    return {
      path: d.path,
      scale: own.scale.map((s, k) => s * outer.scale[k]!),
      translation: own.translation.map((t, k) => t * outer.scale[k]! + outer.translation[k]!),
    };
  });
  const image: OmeImage = { version, axes, levels, ...parseOmero(root.omero) };
  if (typeof ms.name === "string") image.name = ms.name;
  return image;
}

/** Index of the axis named `name` (t, c, z, y, x), or -1. */
export function axisIndex(image: { axes: OmeAxis[] }, name: string): number {
  return image.axes.findIndex((a) => a.name === name);
}
