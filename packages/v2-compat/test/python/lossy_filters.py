"""Encodings of numcodecs 0.11's lossy filters over hostile inputs (NaN, infinities,
halves, values past every integer range), for packages/v2-compat/test/filters-interop.test.ts.

Prints a JSON list: for each case, its filter config, the input dtype and values
(as strings), and the hex of numcodecs' encode and of decode(encode)."""
import json
import warnings

import numcodecs
import numpy as np

warnings.simplefilter("ignore")

SPECIAL = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5,
           127.5, 128.0, -129.0, 255.5, 256.0, 32767.5, 32768.0, 65536.0, 2.0**31 - 1, 2.0**31,
           -2.0**31 - 1, 2.0**32, 3e9, -3e9, 1e10, -1e10, 2.0**53 + 2, 2.0**63, -2.0**63 - 4096,
           2.0**64, 1e30, -1e30, 1e-300, 70000.7, -70000.7, 3.14159, -2.71828, 1e-3, 123456.789]
INTS = [0, 1, -1, 127, 128, -129, 255, 256, 32767, 32768, -32769, 2**31 - 1, -2**31, 70000,
        -70000, 12345678]
BIG = [0, 1, -1, 2**53 + 1, 2**53 + 3, 2**62 + 2**38 + 1, -(2**62) - 12345, 2**63 - 1, -(2**63),
       16777217, 33554435, 9007199791611905]

cases = []


def add(codec, dtype, values):
    floating = np.dtype(dtype).kind == "f"
    arr = np.array(values, dtype="f8" if floating else "O").astype(dtype)
    enc = np.asarray(codec.encode(arr))
    dec = np.asarray(codec.decode(enc))
    cases.append({
        "config": codec.get_config(),
        "dtype": dtype,
        "values": [repr(float(v)) if floating else str(int(v)) for v in arr.tolist()],
        "encoded": enc.tobytes().hex(),
        "encoded_dtype": enc.dtype.str,
        "decoded": [repr(float(v)) if floating else str(int(v)) for v in dec.astype(arr.dtype).tolist()],
    })


for src in ["<f8", "<f4", "<f2"]:
    for astype in ["|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f2"]:
        for offset, scale in [(0, 1), (1.5, 10), (-1000, 0.5), (0.1, 3)]:
            add(numcodecs.FixedScaleOffset(offset=offset, scale=scale, dtype=src, astype=astype), src, SPECIAL)
for src in ["<i4", "<u2", "|i1"]:
    for astype in ["|u1", "<i2", "<f4"]:
        add(numcodecs.FixedScaleOffset(offset=3, scale=2.5, dtype=src, astype=astype), src,
            [v for v in INTS if np.can_cast(np.min_scalar_type(v), src)])
for src in ["<f8", "<f4", "<f2"]:
    for astype in ["<f8", "<f4", "<f2"]:
        if np.dtype(astype).itemsize > np.dtype(src).itemsize:
            continue
        for digits in [0, 1, 3, 6, -2]:
            add(numcodecs.Quantize(digits=digits, dtype=src, astype=astype), src, SPECIAL)
for src, maxbits in [("<f4", 23), ("<f8", 52)]:
    for keep in [0, 1, 3, 10, maxbits - 1, maxbits]:
        add(numcodecs.BitRound(keepbits=keep), src, SPECIAL)
for dec in ["<f8", "<f4", "<f2"]:
    for enc in ["|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f2", "|b1"]:
        add(numcodecs.AsType(encode_dtype=enc, decode_dtype=dec), dec, SPECIAL)
for dec, values in [("<i8", BIG), ("<u8", [v for v in BIG if v >= 0]), ("<i4", INTS)]:
    for enc in ["<f4", "<f8", "|i1", "<u4", "<f2"]:
        add(numcodecs.AsType(encode_dtype=enc, decode_dtype=dec), dec, values)
for dtype, astype, values in [("|i1", "|i1", [127, -128, 5, -7, 100, -100]),
                              ("<f4", "<f4", SPECIAL), ("<f8", "<f2", SPECIAL),
                              ("<i4", "<i2", INTS)]:
    add(numcodecs.Delta(dtype=dtype, astype=astype), dtype, values)

print(json.dumps(cases))
