/**
 * Loading the parts of core that come behind `import()` (the write path,
 * groups, built-in codecs, ...). A chunk a bundler emitted but the page cannot
 * fetch is a typed error naming the part, never a bare loader error.
 *
 * @module
 */

import { CodecError, ZarrError } from "../errors.js";

const ADVICE = "serve every file the bundler emitted beside the application";

/** Runs `load`; a failure becomes the error `fail` makes of its message and cause. */
async function loadOr<T>(
  load: () => Promise<T>,
  fail: (why: string, cause: unknown) => ZarrError,
): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    throw fail(`${cause instanceof Error ? cause.message : String(cause)} (${ADVICE})`, cause);
  }
}

/** Runs `load` (an `import()` of one of core's modules); a failure is a `ZarrError` naming `part`. */
export function loadPart<T>(part: string, load: () => Promise<T>): Promise<T> {
  return loadOr(
    load,
    (why, cause) => new ZarrError(`@zarr/core could not load its ${part}: ${why}`, { cause }),
  );
}

/** Like {@link loadPart}, for a built-in codec: a failure is a `CodecError` naming the codec. */
export function loadCodec<T>(name: string, path: string, load: () => Promise<T>): Promise<T> {
  return loadOr(
    load,
    (why, cause) =>
      new CodecError(`${path}: codec "${name}" could not be loaded: ${why}`, { path, cause }),
  );
}
