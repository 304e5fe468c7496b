/**
 * Reading a response body as a stream, bounded: it stops (cancelling the
 * stream and aborting the request) as soon as the body passes what the read
 * can accept, never buffering past it, and fails when the body stalls.
 *
 * The bound applies to the bytes read from `Response.body`, which `fetch` has
 * already decoded when the server sent `Content-Encoding: gzip`/`br`: a small
 * compressed body that inflates without end is cut at the bound like any other.
 *
 * @module
 */

import type { Attempt } from "./deadline.js";
import { raceAbort } from "./deadline.js";

/** What a body may be and which of its bytes to keep. */
export interface BodyPlan {
  /** Most bytes that may be read; one more is an error (`maxWhy` says whose limit it is). */
  max: number;
  maxWhy: string;
  /** The exact length the response announced, and the header that did (`"Content-Length"`). */
  exact?: number;
  exactWhy?: string;
  /** Keep bytes `[start, end)` of the body only, and stop reading at `end` (default: all). */
  start?: number;
  end?: number;
  /** Keep only the last `tail` bytes (the body is read to its end). */
  tail?: number;
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1 && parts[0].length === length) return parts[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Reads `res.body` under `plan`. Each read waits at most `idleMs` (armed on
 * `attempt`); `fail(reason, overMax)` makes the error for a body that breaks the
 * plan (`overMax`: it passed `plan.max`).
 * Other failures (network, abort) are thrown as they come: the caller maps them.
 */
export async function readBody(
  res: Response,
  attempt: Attempt,
  idleMs: number,
  plan: BodyPlan,
  fail: (reason: string, overMax?: boolean) => Error,
): Promise<Uint8Array> {
  const start = plan.start ?? 0;
  const end = plan.end ?? Number.POSITIVE_INFINITY;
  const { exact, max, tail } = plan;
  const body = res.body;
  if (body === null) {
    if (exact !== undefined && exact > 0) {
      throw fail(`body has 0 bytes, its ${plan.exactWhy} says ${exact}`);
    }
    return new Uint8Array(0);
  }
  // One buffer when the length is known (no copy at the end), pieces otherwise.
  const known = exact !== undefined && tail === undefined ? Math.min(exact, end) - start : -1;
  const out = known >= 0 ? new Uint8Array(known) : undefined;
  const parts: Uint8Array[] = [];
  let kept = 0;
  let read = 0;
  let finished = false;
  const reader = body.getReader();
  try {
    for (;;) {
      attempt.arm("idle", idleMs);
      const next = await raceAbort(reader.read(), attempt.signal);
      if (next.done) {
        finished = true;
        break;
      }
      const piece = next.value;
      if (exact !== undefined && read + piece.length > exact) {
        throw fail(`body is longer than the ${exact} bytes its ${plan.exactWhy} announces`);
      }
      if (read + piece.length > max) {
        throw fail(`body passes ${max} bytes, ${plan.maxWhy}`, true);
      }
      const from = Math.max(start - read, 0);
      const to = Math.min(end - read, piece.length);
      read += piece.length;
      if (to > from) {
        const part = piece.subarray(from, to);
        if (out) out.set(part, kept);
        else parts.push(part);
        kept += part.length;
        // Suffix of a whole value: drop pieces that cannot be part of the last `tail` bytes.
        while (tail !== undefined && parts.length > 1 && kept - parts[0].length >= tail) {
          kept -= parts[0].length;
          parts.shift();
        }
      }
      if (read >= end) break; // everything wanted has arrived: stop the transfer
    }
  } finally {
    attempt.disarm();
    if (!finished) {
      attempt.abort();
      reader.cancel().catch(() => {});
    }
  }
  if (finished && exact !== undefined && read !== exact) {
    throw fail(`body has ${read} bytes, its ${plan.exactWhy} says ${exact}`);
  }
  if (out) return kept === out.length ? out : out.subarray(0, kept);
  const whole = concat(parts, kept);
  return tail !== undefined && whole.length > tail ? whole.slice(whole.length - tail) : whole;
}
