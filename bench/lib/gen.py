"""Writes the benchmark arrays with zarr-python 2.x (Zarr v2, numcodecs C codecs).

usage: gen.py OUT_DIR N ROWS_JSON
Each row is written to OUT_DIR/<id>.zarr as float32 N×N in 512×512 chunks,
unless the row names its own `path` (relative to OUT_DIR), `shape`, `chunks`
and `dtype`. 2-D arrays hold the field of rows.mjs `fillField`; 1-D arrays hold
`lineValue` (rows.mjs) of the element index.
"""
import json
import sys

import numcodecs
import numpy as np
import zarr

out, n, rows = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])


def field(rows_, cols):
    i = np.arange(rows_, dtype=np.float64)[:, None]
    j = np.arange(cols, dtype=np.float64)[None, :]
    return np.sin(i / 37) * 100 * np.cos(j / 23) + i * 0.01 + ((i * 7 + j * 13) % 17) * 0.001


def line(length):
    k = np.arange(length, dtype=np.float64)
    return np.sin(k / 1000) * 100 + k * 1e-6


for row in rows:
    shape = tuple(row.get("shape", (n, n)))
    chunks = tuple(row.get("chunks", (512, 512)))
    dtype = row.get("dtype", "<f4")
    data = (field(*shape) if len(shape) == 2 else line(shape[0])).astype(dtype)
    compressor = numcodecs.get_codec(row["v2"]) if row["v2"] else None
    z = zarr.open_array(f"{out}/{row.get('path', row['id'] + '.zarr')}", mode="w", shape=shape,
                        chunks=chunks, dtype=dtype, compressor=compressor, fill_value=0.0)
    z[:] = data
print(json.dumps({"ok": True}))
