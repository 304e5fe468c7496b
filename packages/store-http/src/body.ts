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

import { type BodyFailure, type BodyPlan, PlannedBody } from "@zarr/remote-store";
import type { Attempt } from "./deadline.js";
import { raceAbort } from "./deadline.js";

export type { BodyPlan };

/**
 * Reads `res.body` under `plan` (see `PlannedBody` of @zarr/remote-store).
 * Each read waits at most `idleMs` (armed on `attempt`); `fail(reason, overMax)`
 * makes the error for a body that breaks the plan (`overMax`: it passed `plan.max`).
 * Other failures (network, abort) are thrown as they come: the caller maps them.
 */
export async function readBody(
  res: Response,
  attempt: Attempt,
  idleMs: number,
  plan: BodyPlan,
  fail: BodyFailure,
): Promise<Uint8Array> {
  const body = res.body;
  if (body === null) {
    if (plan.exact !== undefined && plan.exact > 0) {
      throw fail(`body has 0 bytes, its ${plan.exactWhy} says ${plan.exact}`);
    }
    return new Uint8Array(0);
  }
  const value = new PlannedBody(plan, fail);
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
      if (value.push(next.value)) break; // everything wanted has arrived: stop the transfer
    }
  } finally {
    attempt.disarm();
    if (!finished) {
      attempt.abort();
      reader.cancel().catch(() => {});
    }
  }
  return finished ? value.end() : value.bytes();
}
