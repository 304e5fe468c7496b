# The interop matrix, shared by both directions. Usage:
#   matrix.py write DIR   -> zarr-python writes every case under DIR, prints the spec JSON
#   matrix.py check DIR   -> reads DIR (written by @zarr/v2-compat), prints mismatches as JSON
import json, sys
import numpy as np
import zarr, numcodecs
from numcodecs import Blosc, Zlib, GZip, Zstd, Delta, FixedScaleOffset, Quantize, BitRound, AsType, PackBits, Categorize, Shuffle, VLenUTF8, VLenBytes, JSON as Json2

SHAPE, CHUNKS = (5, 4), (2, 3)
N = 20
COMPRESSORS = {
    "none": None, "zlib": Zlib(level=1), "gzip": GZip(level=5),
    "blosc": Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE), "bitblosc": Blosc(cname="zstd", clevel=3, shuffle=Blosc.BITSHUFFLE),
    "zstd": Zstd(level=1),
}
STRUCT = [("a", "<i4"), ("b", ">f8", (2,)), ("c", [("x", "|u1"), ("y", "<U2")])]

def values(dtype):
    dt = np.dtype(dtype)
    k = dt.kind
    if k == "b": return np.arange(N) % 3 == 0
    if k in "iu":
        v = (np.arange(N) * 7 - (30 if k == "i" else 0))
        return v.astype(dt)
    if k == "f":
        v = (np.arange(N) * 1.25 - 3).astype(dt)
        v[3] = np.nan; v[4] = np.inf; v[5] = -np.inf
        return v
    if k == "c": return (np.arange(N) + 1j * (np.arange(N) - 2.5)).astype(dt)
    if k in "mM": return (np.arange(N) * 1000 - 50).astype("i8").view(dt)
    if k == "S": return np.array([b"ab\x00c"[: i % 5] + b"z" * (i % 2) for i in range(N)], dtype=dt)
    if k == "U": return np.array(["h\u00e9\u4e16\U0001F600"[: i % 4] for i in range(N)], dtype=dt)
    if k == "V" and dt.names is None: return np.array([bytes([i, 0, 255 - i])[: dt.itemsize] for i in range(N)], dtype=dt)
    if dt.names is not None:
        return np.array([(i - 5, (i * 0.5, -i), (i, "q" * (i % 3))) for i in range(N)], dtype=dt)
    raise ValueError(dtype)

def cases():
    out = []
    simple = ["|b1", "|i1", "<i2", ">i4", "<i8", "|u1", "<u2", ">u4", "<u8", "<f2", "<f4", ">f8", "<c8", ">c16",
              "<M8[ns]", ">m8[s]", "<M8[D]", "|S5", "<U4", ">U3", "|V3"]
    comps = list(COMPRESSORS)
    for i, dt in enumerate(simple):
        out.append(dict(name=f"dt/{dt.replace('|','p').replace('<','l').replace('>','b').replace('[','_').replace(']','')}", dtype=dt, compressor=comps[i % len(comps)], order="C" if i % 3 else "F", sep="." if i % 2 else "/", fill=None if i % 4 == 3 else "default"))
    out.append(dict(name="dt/struct", dtype=STRUCT, compressor="zlib", order="C", sep=".", fill="default"))
    out.append(dict(name="obj/vlen-utf8", dtype="O", object="vlen-utf8", compressor="blosc", order="C", sep=".", fill="default"))
    out.append(dict(name="obj/vlen-bytes", dtype="O", object="vlen-bytes", compressor="zstd", order="F", sep="/", fill="default"))
    out.append(dict(name="obj/json2", dtype="O", object="json2", compressor="none", order="C", sep=".", fill="default"))
    out.append(dict(name="f/delta", dtype="<i4", filters=[dict(id="delta", dtype="<i4", astype="<i2")], compressor="zlib", order="F", sep=".", fill="default"))
    out.append(dict(name="f/fso", dtype="<f8", filters=[dict(id="fixedscaleoffset", offset=10, scale=100, dtype="<f8", astype="<i4")], compressor="blosc", order="C", sep=".", fill="default"))
    out.append(dict(name="f/quantize", dtype="<f4", filters=[dict(id="quantize", digits=2, dtype="<f4")], compressor="none", order="C", sep=".", fill="default"))
    out.append(dict(name="f/bitround", dtype="<f8", filters=[dict(id="bitround", keepbits=7)], compressor="zstd", order="C", sep=".", fill="default"))
    out.append(dict(name="f/astype", dtype="<f8", filters=[dict(id="astype", encode_dtype="<f4", decode_dtype="<f8")], compressor="bitblosc", order="C", sep=".", fill="default"))
    out.append(dict(name="f/packbits", dtype="|b1", filters=[dict(id="packbits")], compressor="none", order="C", sep=".", fill="default"))
    out.append(dict(name="f/categorize", dtype="<U5", filters=[dict(id="categorize", labels=["", "h", "h\u00e9", "h\u00e9\u4e16"], dtype="<U5", astype="|u1")], compressor="zlib", order="C", sep=".", fill="default"))
    out.append(dict(name="f/delta-shuffle", dtype=">i8", filters=[dict(id="delta", dtype=">i8"), dict(id="shuffle", elementsize=8)], compressor="gzip", order="C", sep="/", fill="default"))
    return out

def data_of(c):
    if c.get("object") == "vlen-utf8": return np.array(["", "a", "h\u00e9", "\U0001F600x"] * 5, dtype=object)
    if c.get("object") == "vlen-bytes": return np.array([b"", b"\x00\xff", b"abc", b"z"] * 5, dtype=object)
    if c.get("object") == "json2": return np.array([1, "two", [3, None], {"k": 2.5}, True] * 4, dtype=object)
    if c["name"] == "f/categorize": return np.array(["", "h", "h\u00e9", "h\u00e9\u4e16", "zz"] * 4, dtype="<U5")
    if c["name"] == "f/fso": return np.arange(N) * 0.01 - 0.05
    return values(c["dtype"])

def tojson(v, dt):
    dt = np.dtype(dt)
    if dt.names is not None:
        return {n: tojson(v[n], dt.fields[n][0]) for n in dt.names}
    if dt.subdtype is not None:
        return [tojson(x, dt.subdtype[0]) for x in v]
    k = dt.kind
    if k == "O":
        if isinstance(v, bytes): return v.decode("latin-1")
        return v
    if k == "b": return bool(v)
    if k in "iu": return int(v)
    if k == "f":
        v = float(v)
        return "NaN" if v != v else "Infinity" if v == float("inf") else "-Infinity" if v == float("-inf") else v
    if k == "c": return [tojson(v.real, dt.type(0).real.dtype), tojson(v.imag, dt.type(0).real.dtype)]
    if k in "mM": return str(int(np.array(v).view("i8")))
    if k == "S": return bytes(v).rstrip(b"\x00").decode("latin-1")
    if k == "V": return bytes(v).rstrip(b"\x00").decode("latin-1")
    if k == "U": return str(v)
    raise ValueError(dt)

def expected(c):
    d = data_of(c).reshape(SHAPE)
    exp = [tojson(x, d.dtype if c.get("object") is None else "O") for x in d.reshape(-1)]
    return exp

def open_kwargs(c):
    filters = [numcodecs.get_codec(dict(f)) for f in c.get("filters", [])]
    obj = {"vlen-utf8": VLenUTF8(), "vlen-bytes": VLenBytes(), "json2": Json2()}.get(c.get("object"))
    return filters, obj

def write(root):
    st = zarr.DirectoryStore(root)
    g = zarr.group(store=st, overwrite=True)
    g.attrs["title"] = "interop"
    all_cases = cases()
    for c in all_cases:
        filters, obj = open_kwargs(c)
        dt = np.dtype(c["dtype"]) if c["dtype"] != "O" else object
        kw = dict(shape=SHAPE, chunks=CHUNKS, dtype=dt, compressor=COMPRESSORS[c["compressor"]], order=c["order"],
                  dimension_separator=c["sep"], filters=filters or None, object_codec=obj, overwrite=True)
        if c["fill"] is None: kw["fill_value"] = None
        elif c["dtype"] != "O" and np.dtype(dt).kind == "f": kw["fill_value"] = np.nan
        z = g.create_dataset(c["name"], **kw)
        z[...] = data_of(c).reshape(SHAPE)
        z.attrs["case"] = c["name"]
        c["readback"] = [tojson(x, z.dtype) for x in z[...].reshape(-1)]
    # An array with missing chunks: only the first row of chunks is written.
    z = g.create_dataset("sparse", shape=SHAPE, chunks=CHUNKS, dtype="<f4", fill_value=-1.5, compressor=Zlib(1))
    z[0:2, :] = 7
    zarr.consolidate_metadata(st)
    spec = {}
    for c in all_cases:
        rb = c.pop("readback")
        spec[c["name"]] = dict(c, expected=rb)
    spec["sparse"] = dict(expected=[7.0] * 8 + [-1.5] * 12)
    print(json.dumps(spec))

def check(root, spec_path):
    spec = json.load(open(spec_path))
    st = zarr.DirectoryStore(root)
    bad = {}
    for name, c in spec.items():
        try:
            z = zarr.open_array(store=st, path=name, mode="r")
            d = z[...]
            got = [tojson(x, d.dtype) for x in d.reshape(-1)]
            if got != c["expected"]:
                i = next(i for i, (a, b) in enumerate(zip(got, c["expected"])) if a != b)
                bad[name] = f"element {i}: got {json.dumps(got[i])} want {json.dumps(c['expected'][i])}"
        except Exception as e:
            bad[name] = repr(e)
    g = zarr.open_consolidated(st, mode="r")
    names = sorted(g.array_keys()) + sorted(g.group_keys())
    print(json.dumps(dict(bad=bad, top=names, attrs=dict(g.attrs))))

if __name__ == "__main__":
    if sys.argv[1] == "write": write(sys.argv[2])
    else: check(sys.argv[2], sys.argv[3])
