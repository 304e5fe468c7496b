# libzfp (zfpy) on the field scripts/bench.mjs wrote, best of 3 runs:
#   /usr/bin/python3 packages/codec-zfp/scripts/bench-zfpy.py [n]
import sys, time
import numpy as np, zfpy

n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
a = np.fromfile(f"/tmp/zfp-bench-{n}.f32", dtype="<f4").reshape(n, n, n)
mb = a.nbytes / 1e6
def best(f):
    t, out = float("inf"), None
    for _ in range(3):
        t0 = time.perf_counter(); out = f(); t = min(t, time.perf_counter() - t0)
    return t, out
for name, kw in [("tolerance=1e-3", dict(tolerance=1e-3)), ("rate=8", dict(rate=8)), ("precision=16", dict(precision=16)), ("reversible", {})]:
    enc, c = best(lambda: zfpy.compress_numpy(a, **kw))
    dec, _ = best(lambda: zfpy.decompress_numpy(c))
    print(f"{name}\t{len(c)} B\tencode {mb / enc:.0f} MB/s\tdecode {mb / dec:.0f} MB/s")
