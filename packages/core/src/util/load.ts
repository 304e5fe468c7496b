/**
 * Loading the parts of core that come behind `import()` (the write path,
 * groups, built-in codecs, ...). A chunk a bundler emitted but the page cannot
 * fetch is a typed error naming the part, never a bare loader error.
 *
 * @module
 */

import { CodecError, ZarrError } from "../errors.js";

function why(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

const ADVICE = "serve every file the bundler emitted beside the application";

/** Runs `load` (an `import()` of one of core's modules); a failure is a `ZarrError` naming `part`. */
export async function loadPart<T>(part: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    throw new ZarrError(`@zarr/core could not load its ${part}: ${why(cause)} (${ADVICE})`, {
      cause,
    });
  }
}

/** Like {@link loadPart}, for a built-in codec: a failure is a `CodecError` naming the codec. */
export async function loadCodec<T>(name: string, path: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    throw new CodecError(
      `${path}: codec "${name}" could not be loaded: ${why(cause)} (${ADVICE})`,
      {
        path,
        cause,
      },
    );
  }
}
