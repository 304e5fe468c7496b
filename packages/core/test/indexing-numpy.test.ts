/**
 * Property test against NumPy: random shapes, chunk shapes and selections are
 * evaluated by NumPy (orthogonal indexing applied axis by axis) and by our
 * normalize -> project -> strided-copy path over a chunked array; output shapes,
 * values and which selections are rejected must agree.
 */
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IndexError } from "../src/errors.js";
import { type Case, caseArb, gather } from "./indexing-helpers.js";

const MODULES = ["numpy"];
const python = findPython(MODULES);
if (python === null) console.warn(pythonSkipReason(MODULES));

// Orthogonal indexing in NumPy terms: expand the ellipsis, then index one axis
// at a time from the last, so earlier axis numbers stay valid and a single
// advanced index never moves its axis.
const SCRIPT = `
import json, sys
import numpy as np

def item(it):
    t = it["t"]
    if t == "int": return it["v"]
    if t == "slice": return slice(it["start"], it["stop"], it["step"])
    if t == "ell": return Ellipsis
    if t == "null": return slice(None)
    if t == "idx": return np.array(it["v"], dtype=np.intp)
    if t == "bool": return np.array(it["v"], dtype=bool)

def ortho(a, items):
    if sum(1 for x in items if x is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis")
    n = sum(1 for x in items if x is not Ellipsis)
    if n > a.ndim:
        raise IndexError("too many indices")
    if any(x is Ellipsis for x in items):
        i = next(k for k, x in enumerate(items) if x is Ellipsis)
        items = items[:i] + [slice(None)] * (a.ndim - n) + items[i + 1:]
    items = items + [slice(None)] * (a.ndim - len(items))
    for d in reversed(range(a.ndim)):
        a = a[(slice(None),) * d + (items[d],)]
    return np.asarray(a)

out = []
for c in json.load(sys.stdin):
    a = np.arange(int(np.prod(c["shape"])), dtype=np.int64).reshape(c["shape"])
    try:
        r = ortho(a, [item(it) for it in c["items"]])
        out.append({"ok": True, "shape": list(r.shape), "data": r.ravel().tolist()})
    except (IndexError, ValueError) as e:
        out.append({"ok": False, "err": type(e).__name__ + ": " + str(e)})
json.dump(out, sys.stdout)
`;

interface PyResult {
  ok: boolean;
  shape?: number[];
  data?: number[];
  err?: string;
}

const RUNS = 3000;

/** A bare top-level `null` means "everything" (NumPy's `a[()]`), not `a[:]`. */
function forNumpy(c: Case): Case {
  return c.bare && c.items.length === 1 && c.items[0].t === "null" ? { ...c, items: [] } : c;
}

describe.skipIf(python === null)("indexing vs NumPy (orthogonal indexing)", () => {
  it(`agrees on ${RUNS} random selections over random chunkings`, () => {
    const cases: Case[] = fc.sample(caseArb(), { seed: 42, numRuns: RUNS });
    const results = JSON.parse(
      runPython(
        python!,
        SCRIPT,
        new TextEncoder().encode(JSON.stringify(cases.map(forNumpy))),
      ).toString(),
    ) as PyResult[];
    expect(results).toHaveLength(cases.length);
    const failures: string[] = [];
    let accepted = 0;
    let rejected = 0;
    let strictEmpty = 0;
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i];
      const py = results[i];
      let ours: { shape: number[]; data: number[] } | { error: unknown };
      try {
        const g = gather(c);
        ours = { shape: g.shape, data: Array.from(g.data) };
      } catch (e) {
        ours = { error: e };
      }
      const label = JSON.stringify(c);
      if ("error" in ours) {
        if (!(ours.error instanceof IndexError)) {
          failures.push(`${label}: threw non-IndexError ${String(ours.error)}`);
        } else if (py.ok && py.data!.length === 0 && /index array entry/.test(ours.error.message)) {
          // NumPy skips bounds checks of index arrays when the result is empty
          // (here: some other dimension selects nothing); we always check.
          strictEmpty++;
        } else if (py.ok) {
          failures.push(`${label}: we reject (${ours.error.message}), NumPy accepts`);
        } else rejected++;
        continue;
      }
      if (!py.ok) {
        failures.push(`${label}: NumPy rejects (${py.err}), we accept`);
        continue;
      }
      accepted++;
      if (JSON.stringify(ours.shape) !== JSON.stringify(py.shape)) {
        failures.push(
          `${label}: shape ${JSON.stringify(ours.shape)} vs NumPy ${JSON.stringify(py.shape)}`,
        );
      } else if (JSON.stringify(ours.data) !== JSON.stringify(py.data)) {
        failures.push(
          `${label}: data ${JSON.stringify(ours.data)} vs NumPy ${JSON.stringify(py.data)}`,
        );
      }
    }
    expect(failures.slice(0, 5)).toEqual([]);
    // The generator must exercise both outcomes substantially.
    expect(accepted).toBeGreaterThan(RUNS / 3);
    expect(rejected).toBeGreaterThan(RUNS / 20);
    expect(strictEmpty).toBeLessThan(RUNS / 20);
  });
});
