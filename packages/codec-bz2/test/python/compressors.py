# numcodecs BZ2 interop cases, both directions. Usage:
#   compressors.py write DIR        -> zarr-python writes every case under DIR, prints {name: case} JSON
#   compressors.py check DIR SPEC   -> reads DIR (written by @zarr/v2-compat), prints {"bad": {...}} JSON
import json, sys
import numpy as np
import zarr
from numcodecs import BZ2

def data(dtype, n, seed):
    rng = np.random.default_rng(seed)
    # Half smooth (compressible, long matches and runs), half noise.
    smooth = (np.arange(n // 2) // 7 * 3).astype(dtype)
    noise = rng.integers(0, 100, n - n // 2).astype(dtype) if np.dtype(dtype).kind in "iu" else rng.standard_normal(n - n // 2).astype(dtype)
    return np.concatenate([smooth, noise])

CASES = {
    "bz2_1": ("<i4", 6000, 1500, BZ2(level=1)),
    "bz2_9": ("<f8", 5000, 2048, BZ2(level=9)),
    "bz2_u1_big": ("|u1", 300000, 250000, BZ2(level=1)),
}

def tolist(a):
    return [float(x) if isinstance(x, float) else x for x in a.tolist()]

def write(root):
    spec = {}
    for i, (name, (dtype, n, chunk, comp)) in enumerate(CASES.items()):
        a = zarr.open_array(f"{root}/{name}", mode="w", shape=(n,), chunks=(chunk,), dtype=dtype, compressor=comp)
        v = data(dtype, n, i)
        a[:] = v
        spec[name] = {"dtype": dtype, "n": n, "chunk": chunk, "compressor": json.loads(json.dumps(comp.get_config())), "expected": tolist(v)}
    print(json.dumps(spec))

def check(root, spec_path):
    spec = json.load(open(spec_path))
    bad = {}
    for name, c in spec.items():
        try:
            a = zarr.open_array(f"{root}/{name}", mode="r")
            got = tolist(a[:])
            if got != c["expected"]: bad[name] = "values differ"
            elif a.compressor.get_config() != CASES[name][3].get_config(): bad[name] = f"compressor {a.compressor!r}"
        except Exception as e:
            bad[name] = repr(e)
    print(json.dumps({"bad": bad}))

if __name__ == "__main__":
    if sys.argv[1] == "write": write(sys.argv[2])
    else: check(sys.argv[2], sys.argv[3])
