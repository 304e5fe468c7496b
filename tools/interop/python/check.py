# The python peers of the write-direction interop suite, one process per batch.
#
#   check.py v2 ROOT MANIFEST BLOB   zarr-python 2.13 reads every v2 array element by
#                                     element; numcodecs.get_codec on every codec config;
#                                     zarr-python re-encodes the input of lossy filters
#                                     with our .zarray and must decode the same values;
#                                     zarr.open_consolidated + a visititems walk.
#   check.py v3 ROOT MANIFEST BLOB   the independent reader (v3reader.py) reads every v3 array.
#
# Prints one JSON object: counts and a list of failures.
import base64
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def np_dtype(d):
    """numpy dtype of a v2 dtype JSON (lists of lists -> list of tuples)."""
    if isinstance(d, list):
        return np.dtype([tuple(np_dtype(x) if i == 1 and isinstance(x, list) else (tuple(x) if i == 2 else x) for i, x in enumerate(f)) for f in d])
    return np.dtype(d)


def little(dt):
    """The dtype with every byte order little-endian (structured types keep their own)."""
    if dt.names is not None or dt.kind in "OV":
        return dt
    return dt.newbyteorder("<") if dt.byteorder == ">" else dt


def load_values(entry, ref, blob, dt, shape):
    if "json" in ref:
        vals = ref["json"]
        if entry["repr"] == "bytes":
            vals = [base64.b64decode(v) for v in vals]
        out = np.empty(len(vals), dtype=object)
        for i, v in enumerate(vals):
            out[i] = v
        return out.reshape(shape)
    raw = blob[ref["off"] : ref["off"] + ref["len"]]
    return np.frombuffer(raw, dtype=dt).reshape(shape)


def nan_equivalent(a, b):
    """Both the same float/complex value with every NaN component matching any NaN."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "c":
        return nan_equivalent(a.real, b.real) and nan_equivalent(a.imag, b.imag)
    if a.dtype.kind != "f":
        return False
    return bool((np.isnan(a) & np.isnan(b)) | ((a.tobytes() == b.tobytes()) & ~np.isnan(a) & ~np.isnan(b)))


def first_difference(got, want, nan_fill=None):
    """None when equal (bit for bit for fixed types), else a description.

    nan_fill: v2 only, the fill value's stored bytes when it holds a NaN. v2
    writes every NaN fill as "NaN", so a missing chunk reads as whatever NaN the
    reader makes of it (zarr-python 2.13 makes ["NaN", x] complex fill values
    arithmetically, which sets the real part's sign bit): an element whose
    expected bytes are the fill's may differ in NaN sign and payload only.
    """
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if want.dtype.kind == "O":
        g, w = got.reshape(-1), want.reshape(-1)
        for i in range(len(w)):
            a, b = g[i], w[i]
            if type(a) is not type(b) or a != b:
                if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
                    continue
                return f"element {i}: got {a!r} want {b!r}"
        return None
    g = np.ascontiguousarray(got).astype(want.dtype, copy=False)
    gb, wb = g.tobytes(), np.ascontiguousarray(want).tobytes()
    if gb == wb:
        return None
    size = want.dtype.itemsize
    gf, wf = g.reshape(-1), np.ascontiguousarray(want).reshape(-1)
    for i in range(len(wb) // size):
        if gb[i * size : (i + 1) * size] != wb[i * size : (i + 1) * size]:
            if nan_fill is not None and wb[i * size : (i + 1) * size].hex() == nan_fill and nan_equivalent(gf[i], wf[i]):
                continue
            return (
                f"element {i} (flat): got {g.reshape(-1)[i]!r} bytes {gb[i*size:(i+1)*size].hex()} "
                f"want {want.reshape(-1)[i]!r} bytes {wb[i*size:(i+1)*size].hex()}"
            )
    return None


def same_fill(got, entry, dt, nan_aware=False):
    want = entry["fill"]
    if want is None:
        return got is None, f"fill_value {got!r}, expected None"
    if got is None:
        return False, f"fill_value None, expected {want!r}"
    if entry["repr"] == "fixed":
        g = np.array(got, dtype=dt) if dt.names is None else np.array(got, dtype=dt)
        ok = g.tobytes().hex() == want
        if not ok and nan_aware and dt.kind in "fc":
            ok = nan_equivalent(g, np.frombuffer(bytes.fromhex(want), dtype=dt).reshape(()))
        return ok, f"fill_value {got!r} ({g.tobytes().hex()}), expected bytes {want}"
    if entry["repr"] == "bytes":
        return got == base64.b64decode(want), f"fill_value {got!r}, expected {want!r}"
    return got == want and type(got) is type(want), f"fill_value {got!r}, expected {want!r}"


# ---------------------------------------------------------------- v2: zarr-python


def check_v2(root, manifest, blob):
    import numcodecs
    import zarr
    from zarr.storage import DirectoryStore, KVStore

    store = DirectoryStore(root)
    fails, counts = [], dict(arrays=0, identical=0, configs=0, configs_ok=0, lossy=0, lossy_ok=0, fill_null_all_chunks=0)
    for e in manifest:
        if e["format"] != 2:
            continue
        counts["arrays"] += 1
        name = e["path"]
        try:
            zarray = json.loads(open(os.path.join(root, name, ".zarray"), "rb").read())
            # numcodecs 0.11 instantiates every codec config we wrote.
            for cfg in ([zarray["compressor"]] if zarray["compressor"] else []) + (zarray["filters"] or []):
                counts["configs"] += 1
                try:
                    numcodecs.get_codec(dict(cfg))
                    counts["configs_ok"] += 1
                except Exception as ex:
                    fails.append(dict(key=f"2:{name}", peer="numcodecs", msg=f"numcodecs.get_codec({json.dumps(cfg)}): {ex!r}"))
            z = zarr.open_array(store=store, path=name, mode="r")
            obj = e["repr"] != "fixed"
            dt = np.dtype(object) if obj else little(np_dtype(e["dtype"]))
            problems = []
            if tuple(z.shape) != tuple(e["shape"]):
                problems.append(f"shape {z.shape} != {e['shape']}")
            if not obj and z.dtype != np_dtype(e["dtype"]):
                problems.append(f"dtype {z.dtype} != {np_dtype(e['dtype'])}")
            if obj and z.dtype != np.dtype(object):
                problems.append(f"dtype {z.dtype} != object")
            ok, why = same_fill(z.fill_value, e, dt, nan_aware=True)
            if not ok:
                problems.append(why)
            if e["fill"] is None:
                # No fill value: every chunk must be stored (a missing one reads as garbage).
                import itertools, math

                cshape = [math.ceil(s / c) for s, c in zip(z.shape, z.chunks)]
                sep = zarray.get("dimension_separator") or "."
                missing = [
                    k
                    for k in (sep.join(map(str, ix)) if ix else "0" for ix in itertools.product(*[range(n) for n in cshape]))
                    if not os.path.exists(os.path.join(root, name, *k.split("/")))
                ]
                if missing:
                    problems.append(f"fill_value null but chunks {missing[:4]} are not stored")
                else:
                    counts["fill_null_all_chunks"] += 1
            want = load_values(e, e["expected"], blob, dt, tuple(e["shape"]))
            got = z[...]
            if obj:
                got = np.asarray(got, dtype=object).reshape(want.shape)
                if e["repr"] == "string" and got.size and isinstance(got.reshape(-1)[0], np.str_):
                    got = got.astype(object)
            nan_fill = None
            if not obj and e["fill"] is not None and dt.kind in "fc":
                fv = np.frombuffer(bytes.fromhex(e["fill"]), dtype=dt)
                if np.isnan(fv.view(f"<f{dt.itemsize // (2 if dt.kind == 'c' else 1)}")).any():
                    nan_fill = e["fill"]
            diff = first_difference(got, want, nan_fill)
            if diff:
                problems.append(diff)
            if e.get("input") is not None:
                # Lossy filters: zarr-python encodes the same input with our metadata;
                # it must decode to the values it read from our chunks.
                counts["lossy"] += 1
                try:
                    kv = KVStore(dict())
                    kv[".zarray"] = json.dumps(zarray).encode()
                    # (write_empty_chunks=False: like ours, a chunk equal to the fill value
                    # is not stored, so it decodes as the fill value, not through the filters)
                    mine = zarr.open_array(store=kv, mode="r+", write_empty_chunks=False)
                    mine[...] = load_values(e, e["input"], blob, dt, tuple(e["shape"]))
                    d2 = first_difference(np.asarray(got), mine[...].astype(dt) if not obj else mine[...], nan_fill)
                except Exception as ex:
                    d2 = f"numcodecs cannot encode the input: {ex!r}"
                if d2:
                    fails.append(dict(key=f"2:{name}", peer="numcodecs re-encode", msg=d2))
                else:
                    counts["lossy_ok"] += 1
            if problems:
                fails.append(dict(key=f"2:{name}", peer="zarr-python", msg="; ".join(problems)))
            else:
                counts["identical"] += 1
        except Exception as ex:
            import traceback

            fails.append(dict(key=f"2:{name}", peer="zarr-python", msg=f"{ex!r} {traceback.format_exc().splitlines()[-3:]}"))
    return counts, fails


def check_consolidated(root, expected):
    """zarr.open_consolidated and a full visititems walk (every array read, group attributes compared)."""
    expected_nodes, expected_attrs = expected["nodes"], expected["attrs"]
    import zarr

    fails = []
    g = zarr.open_consolidated(zarr.DirectoryStore(root), mode="r")
    seen = {}

    def visit(name, node):
        if isinstance(node, zarr.Array):
            seen[name] = "array"
            try:
                node[...]
            except Exception as ex:
                fails.append(dict(key=f"2:{name}", peer="zarr-python consolidated", msg=f"{ex!r}"))
        else:
            seen[name] = "group"
        attrs = node.attrs.asdict()
        if name in expected_attrs and attrs != expected_attrs[name]:
            fails.append(dict(key=f"2:{name}", peer="zarr-python consolidated", msg=f"attrs {attrs!r} != {expected_attrs[name]!r}"))

    g.visititems(visit)
    if dict(g.attrs) != expected_attrs.get("", {}):
        fails.append(dict(key="2:", peer="zarr-python consolidated", msg=f"root attrs {dict(g.attrs)!r}"))
    want = {k: v for k, v in expected_nodes.items()}
    if seen != want:
        missing = sorted(set(want) - set(seen))[:5]
        extra = sorted(set(seen) - set(want))[:5]
        wrong = sorted(k for k in set(seen) & set(want) if seen[k] != want[k])[:5]
        fails.append(dict(key=f"2:{root}", peer="zarr-python consolidated", msg=f"walk: missing {missing} extra {extra} wrong kind {wrong}"))
    return len(seen), fails


# ---------------------------------------------------------------- v3: independent reader


def check_v3(root, manifest, blob):
    import v3reader

    fails, counts = [], dict(arrays=0, identical=0)
    for e in manifest:
        if e["format"] != 3:
            continue
        counts["arrays"] += 1
        name = e["path"]
        try:
            meta, got = v3reader.read_array(root, name)
            dt = v3reader.dtype_of(meta["data_type"])
            problems = []
            if list(got.shape) != list(e["shape"]):
                problems.append(f"shape {got.shape} != {e['shape']}")
            if meta["data_type"] != e["dtype"]:
                problems.append(f"data_type {meta['data_type']!r} != {e['dtype']!r}")
            fill = v3reader.parse_fill_value(meta["data_type"], meta["fill_value"])
            ok, why = same_fill(fill[()] if dt.kind == "O" else fill, e, dt)
            if not ok:
                problems.append(why)
            want = load_values(e, e["expected"], blob, dt, tuple(e["shape"]))
            diff = first_difference(got, want)
            if diff:
                problems.append(diff)
            if problems:
                fails.append(dict(key=f"3:{name}", peer="independent reader", msg="; ".join(problems)))
            else:
                counts["identical"] += 1
        except Exception as ex:
            import traceback

            fails.append(dict(key=f"3:{name}", peer="independent reader", msg=f"{ex!r} {traceback.format_exc().splitlines()[-3:]}"))
    return counts, fails


def check_v3_consolidated(root):
    """Every entry of the root's inline consolidated metadata equals the node's own zarr.json."""
    fails = []
    doc = json.load(open(os.path.join(root, "zarr.json")))
    cm = doc.get("consolidated_metadata")
    if not isinstance(cm, dict) or cm.get("kind") != "inline":
        return 0, [dict(key=f"3:{root}", peer="independent reader", msg="no inline consolidated_metadata")]
    n = 0
    for path, meta in cm["metadata"].items():
        n += 1
        own = json.load(open(os.path.join(root, *path.split("/"), "zarr.json")))
        own.pop("consolidated_metadata", None)
        m = dict(meta)
        m.pop("consolidated_metadata", None)
        if own != m:
            fails.append(dict(key=f"3:{path}", peer="independent reader", msg="consolidated entry differs from zarr.json"))
    return n, fails


if __name__ == "__main__":
    mode, root, manifest_path, blob_path = sys.argv[1:5]
    manifest = json.load(open(manifest_path))
    blob = open(blob_path, "rb").read()
    out = {}
    if mode == "v2":
        counts, fails = check_v2(root, manifest, blob)
        nodes = json.load(open(sys.argv[5])) if len(sys.argv) > 5 else None
        if nodes is not None:
            walked, f2 = check_consolidated(root, nodes)
            counts["consolidated_nodes"] = walked
            fails += f2
    else:
        counts, fails = check_v3(root, manifest, blob)
        if len(sys.argv) > 5 and sys.argv[5] == "consolidated":
            n, f2 = check_v3_consolidated(root)
            counts["consolidated_entries"] = n
            fails += f2
    print(json.dumps(dict(counts=counts, failures=fails)))
