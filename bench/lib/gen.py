"""Writes the benchmark arrays with zarr-python 2.x (Zarr v2, numcodecs C codecs).

usage: gen.py OUT_DIR N ROWS_JSON
"""
import json
import sys

import numcodecs
import numpy as np
import zarr

out, n, rows = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
i = np.arange(n, dtype=np.float64)[:, None]
j = np.arange(n, dtype=np.float64)[None, :]
data = (np.sin(i / 37) * 100 * np.cos(j / 23) + i * 0.01 + ((i * 7 + j * 13) % 17) * 0.001).astype("<f4")
for row in rows:
    compressor = numcodecs.get_codec(row["v2"]) if row["v2"] else None
    z = zarr.open_array(f"{out}/{row['id']}.zarr", mode="w", shape=(n, n), chunks=(512, 512),
                        dtype="<f4", compressor=compressor, fill_value=0.0)
    z[:] = data
print(json.dumps({"ok": True}))
