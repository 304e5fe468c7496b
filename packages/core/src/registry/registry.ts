/**
 * Extension registries: one per extension point (codecs, data types, chunk
 * grids, chunk key encodings, store URL schemes, node formats). Entries are
 * registered explicitly by the package that provides them, either as the object
 * itself or as a lazy loader (`() => import(...)`), so bundlers only include
 * what an application imports.
 *
 * @module
 */

import { NotRegisteredError, ZarrError, type ZarrErrorOptions } from "../errors.js";

/** A registered entry: the extension object, or a function that loads it. */
export type Registration<T> = T | { readonly load: () => Promise<T> };

/**
 * A name -> extension map. Names are v3 names, v2 numcodecs ids or URLs.
 * Lookups of unknown names throw a {@link NotRegisteredError} that names the
 * package to install (from `packageHints`).
 */
export class Registry<T> {
  readonly #entries = new Map<string, Registration<T>>();
  readonly #loaded = new Map<string, Promise<T>>();
  readonly #hints: Readonly<Record<string, string>>;
  readonly #loadError: (message: string, options: ZarrErrorOptions) => ZarrError;

  /**
   * @param kind - the extension point, used in error messages (e.g. `"codec"`).
   * @param packageHints - known names and the package that provides each.
   * @param loadError - the error for a lazy entry whose loader fails (default `ZarrError`).
   */
  constructor(
    readonly kind: string,
    packageHints: Readonly<Record<string, string>> = {},
    loadError: (message: string, options: ZarrErrorOptions) => ZarrError = (message, options) =>
      new ZarrError(message, options),
  ) {
    this.#hints = packageHints;
    this.#loadError = loadError;
  }

  /** Registers `entry` under `name`, replacing any previous registration. */
  register(name: string, entry: Registration<T>): void {
    this.#entries.set(name, entry);
    this.#loaded.delete(name);
  }

  /** Removes a registration (mainly for tests). */
  unregister(name: string): void {
    this.#entries.delete(name);
    this.#loaded.delete(name);
  }

  /** True when `name` is registered. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** Registered names. */
  names(): string[] {
    return [...this.#entries.keys()];
  }

  /** The entry if registered and not lazy; `undefined` otherwise. */
  getSync(name: string): T | undefined {
    const entry = this.#entries.get(name);
    if (entry === undefined || isLazy(entry)) return undefined;
    return entry;
  }

  /** Resolves `name`, loading lazy entries once. Throws {@link NotRegisteredError}. */
  get(name: string, path?: string): Promise<T> {
    const entry = this.#entries.get(name);
    if (entry === undefined) return Promise.reject(this.notRegistered(name, path));
    if (!isLazy(entry)) return Promise.resolve(entry);
    let loaded = this.#loaded.get(name);
    if (!loaded) {
      // A loader that throws instead of rejecting fails the same way.
      loaded = callLoader(entry.load).catch((cause: unknown) => {
        const why = cause instanceof Error ? cause.message : String(cause);
        throw this.#loadError(`${this.kind} "${name}" could not be loaded: ${why}`, {
          path,
          cause,
        });
      });
      this.#loaded.set(name, loaded);
      loaded.catch(() => this.#loaded.delete(name));
    }
    return loaded;
  }

  /** The error for an unknown name, with an install hint. */
  notRegistered(name: string, path?: string): NotRegisteredError {
    const pkg = this.#hints[name];
    const hint = pkg
      ? `install ${pkg} and import "${pkg}/register"`
      : `no known package provides it; register one with register${capitalize(this.kind)}()`;
    return new NotRegisteredError(this.kind, name, hint, { path });
  }
}

/** `load()`, with a synchronous throw turned into a rejection. */
function callLoader<T>(load: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(load());
  } catch (error) {
    return Promise.reject(error);
  }
}

function isLazy<T>(entry: Registration<T>): entry is { readonly load: () => Promise<T> } {
  return (
    typeof entry === "object" &&
    entry !== null &&
    "load" in entry &&
    typeof (entry as { load?: unknown }).load === "function" &&
    Object.keys(entry).length === 1
  );
}

function capitalize(s: string): string {
  return s
    .split(/[\s_-]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
}
