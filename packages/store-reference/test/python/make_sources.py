"""Writes a NetCDF3 and an HDF5 file into sys.argv[1] and prints, as JSON, where
each variable's chunks are (byte offset and size) and its values as read back
by netCDF4 / h5py. The reference tests build kerchunk references from this by
hand and compare what the reference store reads with these values."""
import json
import os
import sys

import h5py
import netCDF4
import numpy as np
import scipy.io

out = sys.argv[1]
rng = np.random.default_rng(7)
nc_path = os.path.join(out, "source.nc")
h5_path = os.path.join(out, "source.h5")

# NetCDF3 classic (CDF-1): two fixed-size variables (big-endian, contiguous)
# and one record variable along an unlimited dimension.
with scipy.io.netcdf_file(nc_path, "w", version=1) as f:
    f.createDimension("time", None)
    f.createDimension("y", 5)
    f.createDimension("x", 6)
    f.createDimension("n", 7)
    temp = f.createVariable("temp", "f4", ("y", "x"))
    temp[:] = rng.standard_normal((5, 6)).astype("f4")
    count = f.createVariable("count", "i2", ("n",))
    count[:] = rng.integers(-1000, 1000, 7).astype("i2")
    rec = f.createVariable("rec", "f8", ("time", "x"))
    rec[:] = rng.standard_normal((3, 6))

data = open(nc_path, "rb").read()
result = {"nc": {}, "h5": {}}
with netCDF4.Dataset(nc_path) as ds:
    for name in ("temp", "count", "rec"):
        v = ds.variables[name]
        values = v[:].data
        be = values.astype(values.dtype.newbyteorder(">"))
        entry = {"shape": list(values.shape), "dtype": be.dtype.str, "values": values.ravel().tolist()}
        if name == "rec":
            # One chunk per record: find each record's bytes in the file.
            offs = [data.find(be[i].tobytes()) for i in range(values.shape[0])]
            entry["records"] = offs
            entry["record_bytes"] = be[0].nbytes
        else:
            entry["offset"] = data.find(be.tobytes())
            entry["size"] = be.nbytes
        assert all(o > 0 for o in entry.get("records", [entry.get("offset", 1)]))
        result["nc"][name] = entry
    result["nc"]["file_size"] = len(data)

with h5py.File(h5_path, "w") as f:
    f.create_dataset("chunked", data=rng.standard_normal((10, 7)), chunks=(4, 3), compression="gzip", compression_opts=4)
    f.create_dataset("plain", data=rng.integers(-(2**31), 2**31 - 1, (6, 5)).astype("<i4"))
    sparse = f.create_dataset("sparse", shape=(8,), dtype="<f4", chunks=(2,), fillvalue=-1)
    sparse[2:4] = [1.5, 2.5]
    sparse[6] = 9.25

with h5py.File(h5_path, "r") as f:
    for name in ("chunked", "plain", "sparse"):
        d = f[name]
        entry = {"shape": list(d.shape), "dtype": d.dtype.str, "values": d[...].ravel().tolist(),
                 "fill": float(d.fillvalue)}
        if d.chunks is None:
            entry["offset"] = d.id.get_offset()
            entry["size"] = d.id.get_storage_size()
        else:
            entry["chunks"] = list(d.chunks)
            entry["compressed"] = d.compression == "gzip"
            entry["chunk_refs"] = []
            for i in range(d.id.get_num_chunks()):
                info = d.id.get_chunk_info(i)
                assert info.filter_mask == 0
                index = [o // c for o, c in zip(info.chunk_offset, d.chunks)]
                entry["chunk_refs"].append({"index": index, "offset": info.byte_offset, "size": info.size})
        result["h5"][name] = entry
    result["h5"]["file_size"] = os.path.getsize(h5_path)

json.dump(result, sys.stdout)
