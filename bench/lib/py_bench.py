"""zarr-python side of the benchmark: full reads, full writes, random small regions.

usage: py_bench.py JOB_JSON   (prints one JSON line of results)
Timings are taken in this process (time.perf_counter) around open + read/write.
"""
import json
import random
import resource
import shutil
import statistics
import sys
import time

import numcodecs
import numpy as np
import zarr

job = json.loads(sys.argv[1])
result = {}
if job["op"] == "read":
    times = []
    check = None
    for _ in range(job["reps"]):
        t = time.perf_counter()
        a = zarr.open_array(job["path"], mode="r")[:]
        times.append(time.perf_counter() - t)
        flat = a.reshape(-1)
        check = float(flat[:: 4099].astype(np.float64).sum())
        del a, flat
    result = {"times": times, "check": check}
elif job["op"] == "write":
    n = job["n"]
    i = np.arange(n, dtype=np.float64)[:, None]
    j = np.arange(n, dtype=np.float64)[None, :]
    data = (np.sin(i / 37) * 100 * np.cos(j / 23) + i * 0.01 + ((i * 7 + j * 13) % 17) * 0.001).astype("<f4")
    times = []
    for _ in range(job["reps"]):
        shutil.rmtree(job["path"], ignore_errors=True)
        t = time.perf_counter()
        v2 = job["row"]["v2"]
        z = zarr.open_array(job["path"], mode="w", shape=(n, n), chunks=(512, 512), dtype="<f4",
                            compressor=numcodecs.get_codec(v2) if v2 else None, fill_value=0.0)
        z[:] = data
        times.append(time.perf_counter() - t)
    result = {"times": times}
elif job["op"] == "regions":
    z = zarr.open_array(job["path"], mode="r")
    times = []
    for (r, c, h, w) in job["regions"]:
        t = time.perf_counter()
        z[r:r + h, c:c + w]
        times.append(time.perf_counter() - t)
    result = {"times": times}
elif job["op"] == "slices":
    z = zarr.open_array(job["path"], mode="r")
    z[tuple(slice(a, b) for a, b in job["slices"][0])]  # warm-up, as the JS side does
    times = []
    data = None
    for sel in job["slices"]:
        t = time.perf_counter()
        data = z[tuple(slice(a, b) for a, b in sel)]
        times.append(time.perf_counter() - t)
    flat = data.reshape(-1)
    result = {"times": times, "check": float(flat[:: 4099].astype(np.float64).sum())}
result["maxRssKiB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(result))
