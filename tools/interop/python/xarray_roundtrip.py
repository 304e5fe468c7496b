# xarray (Debian python3-xarray) as a peer of `zarr copy`.
#
#   xarray_roundtrip.py make DIR/src.zarr      writes the dataset (zarr v2, consolidated)
#   xarray_roundtrip.py compare SRC DST...     opens every DST with xarray.open_zarr and
#                                              compares it with SRC: decoded (identical)
#                                              and raw (decode_cf=False: identical, so
#                                              _FillValue / scale_factor / add_offset /
#                                              units / dtypes match)
# Prints JSON.
import json
import sys
import warnings

import numpy as np
import pandas as pd
import xarray as xr

warnings.simplefilter("ignore")


def dataset():
    nt, nx = 7, 5
    time = pd.date_range("2001-02-03", periods=nt, freq="6H").values.copy()
    time[3] = np.datetime64("NaT")
    x = np.arange(nx, dtype="int32") * 10
    rng = np.random.default_rng(16)
    temp = rng.normal(12.0, 8.0, (nt, nx)).round(1)
    temp[1, 2] = np.nan
    temp[4, :] = np.nan
    prec = rng.gamma(0.5, 2.0, (nt, nx)).astype("float32")
    prec[0, 0] = np.nan
    prec[2, 3] = -0.0
    mask = (rng.random((nt, nx)) > 0.3).astype("int8")
    land = rng.random(nx) > 0.5
    names = np.array(["alpha", "", "h\u00e9llo", "\u4e16\u754c", "\U0001F600"], dtype=object)
    codes = np.array([b"AB", b"", b"C\x00D", b"xyz", b"q"], dtype="S3")
    ds = xr.Dataset(
        {
            "temp": (("time", "x"), temp, {"units": "degC", "long_name": "temperature"}),
            "prec": (("time", "x"), prec, {"units": "mm"}),
            "mask": (("time", "x"), mask, {"flag_values": [0, 1], "flag_meanings": "sea land"}),
            "land": (("x",), land),
            "name": (("x",), names),
            "code": (("x",), codes),
            "scalar": ((), np.float64(273.15), {"units": "K"}),
        },
        coords={"time": time, "x": ("x", x, {"units": "km"})},
        attrs={"title": "write interop", "history": "made by xarray_roundtrip.py", "n": 3},
    )
    encoding = {
        # CF packing: int16 with scale/offset and a _FillValue for the NaNs
        "temp": {"dtype": "int16", "scale_factor": 0.1, "add_offset": 10.0, "_FillValue": -32768, "chunks": (3, 2)},
        "prec": {"_FillValue": np.float32(np.nan), "chunks": (4, 5)},
        "mask": {"_FillValue": -1, "chunks": (7, 2)},
        "time": {"units": "hours since 2001-01-01", "dtype": "int64", "_FillValue": -9999},
    }
    return ds, encoding


def make(path):
    ds, enc = dataset()
    ds.to_zarr(path, mode="w", consolidated=True, encoding=enc)
    print(json.dumps({"ok": True}))


def describe(a, b):
    out = []
    for name in sorted(set(a.variables) | set(b.variables)):
        if name not in a.variables or name not in b.variables:
            out.append(f"{name}: only in {'source' if name in a.variables else 'copy'}")
            continue
        va, vb = a.variables[name], b.variables[name]
        if va.dtype != vb.dtype:
            out.append(f"{name}: dtype {va.dtype} != {vb.dtype}")
        if va.dims != vb.dims:
            out.append(f"{name}: dims {va.dims} != {vb.dims}")
        if va.attrs != vb.attrs:
            out.append(f"{name}: attrs {va.attrs} != {vb.attrs}")
        if not va.equals(vb):
            out.append(f"{name}: values {va.values.tolist()!r} != {vb.values.tolist()!r}")
    if a.attrs != b.attrs:
        out.append(f"attrs {a.attrs} != {b.attrs}")
    return "; ".join(out) or "not identical (no variable differs)"


def same_encoding(a, b):
    """Equal as values (JSON numbers have no int/float kind: 10.0 and 10 are one number), NaN equal to NaN."""
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        both_nan = isinstance(x, (float, np.floating)) and isinstance(y, (float, np.floating)) and np.isnan(x) and np.isnan(y)
        if not (both_nan or x == y):
            return False
    return True


def compare(src, dsts):
    results = {}
    a_dec = xr.open_zarr(src, consolidated=True).load()
    a_raw = xr.open_zarr(src, consolidated=True, decode_cf=False).load()
    for dst in dsts:
        try:
            b_dec = xr.open_zarr(dst, consolidated=True).load()
            b_raw = xr.open_zarr(dst, consolidated=True, decode_cf=False).load()
            problems = []
            if not a_dec.identical(b_dec):
                problems.append("decoded: " + describe(a_dec, b_dec))
            if not a_raw.identical(b_raw):
                problems.append("raw (decode_cf=False): " + describe(a_raw, b_raw))
            # the encodings xarray reads back (dtype, _FillValue, scale/offset, units)
            for name in a_dec.variables:
                ea = {k: v for k, v in a_dec[name].encoding.items() if k in ("dtype", "_FillValue", "scale_factor", "add_offset", "units", "calendar")}
                eb = {k: v for k, v in b_dec[name].encoding.items() if k in ("dtype", "_FillValue", "scale_factor", "add_offset", "units", "calendar")}
                if not same_encoding(ea, eb):
                    problems.append(f"{name}: encoding {ea!r} != {eb!r}")
            results[dst] = problems
        except Exception as ex:
            results[dst] = [repr(ex)]
    print(json.dumps(results))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        compare(sys.argv[2], sys.argv[3:])
