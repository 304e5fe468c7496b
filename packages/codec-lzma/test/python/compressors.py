# numcodecs LZMA interop cases, both directions. Usage:
#   compressors.py write DIR        -> zarr-python writes every case under DIR, prints {name: case} JSON
#   compressors.py check DIR SPEC   -> reads DIR (written by @zarr/v2-compat), prints {"bad": {...}} JSON
import json, lzma, sys
import numpy as np
import zarr
from numcodecs import LZMA

def data(dtype, n, seed):
    rng = np.random.default_rng(seed)
    # Half smooth (compressible, long matches and runs), half noise.
    smooth = (np.arange(n // 2) // 7 * 3).astype(dtype)
    noise = rng.integers(0, 100, n - n // 2).astype(dtype) if np.dtype(dtype).kind in "iu" else rng.standard_normal(n - n // 2).astype(dtype)
    return np.concatenate([smooth, noise])

CASES = {
    "lzma_default": ("<i2", 6000, 1500, LZMA()),
    "lzma_crc32": ("<i4", 5000, 1024, LZMA(check=lzma.CHECK_CRC32, preset=1)),
    "lzma_none": ("<u2", 5000, 1024, LZMA(check=lzma.CHECK_NONE, preset=9)),
    "lzma_sha256": ("<f4", 5000, 1024, LZMA(check=lzma.CHECK_SHA256)),
    "lzma_extreme": ("<i8", 4000, 4000, LZMA(preset=9 | lzma.PRESET_EXTREME)),
    "lzma_alone": ("<i4", 5000, 1024, LZMA(format=lzma.FORMAT_ALONE, preset=6)),
    "lzma_alone_l0": ("<f8", 3000, 1024, LZMA(format=lzma.FORMAT_ALONE, preset=0)),
    "lzma_xz_delta": ("<i4", 5000, 1024, LZMA(filters=[{"id": lzma.FILTER_DELTA, "dist": 4}, {"id": lzma.FILTER_LZMA2, "preset": 1}])),
    "lzma_raw_lzma2": ("<i4", 5000, 1024, LZMA(format=lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_LZMA2, "preset": 1}])),
    "lzma_raw_delta": ("<u2", 5000, 1024, LZMA(format=lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_DELTA, "dist": 2}, {"id": lzma.FILTER_LZMA2, "preset": 3}])),
    "lzma_raw_lzma1": ("<f4", 5000, 1024, LZMA(format=lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_LZMA1, "preset": 6, "lc": 0, "lp": 2, "pb": 2}])),
    "lzma_big": ("|u1", 300000, 300000, LZMA(preset=1)),
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
            if name == "lzma_xz_delta":
                # numcodecs 0.11 passes `filters` to lzma.decompress even for FORMAT_XZ, which
                # Python rejects: zarr-python cannot read these arrays, its own included.
                # Decode the chunks with lzma.decompress (the filters are in the xz block headers).
                raw = b"".join(lzma.decompress(open(f"{root}/{name}/{i}", "rb").read()) for i in range(a.nchunks))
                got = tolist(np.frombuffer(raw, dtype=a.dtype)[: a.shape[0]])
            else:
                got = tolist(a[:])
            if got != c["expected"]: bad[name] = "values differ"
            elif a.compressor.get_config() != CASES[name][3].get_config(): bad[name] = f"compressor {a.compressor!r}"
        except Exception as e:
            bad[name] = repr(e)
    print(json.dumps({"bad": bad}))

if __name__ == "__main__":
    if sys.argv[1] == "write": write(sys.argv[2])
    else: check(sys.argv[2], sys.argv[3])
