# An independent Zarr v3 reader, written from the core specification
# (shared/specs/zarr-v3-core-spec.txt) and the codec notes
# (shared/notes/v3-extensions.md) without looking at the TypeScript
# implementation. It reads a directory store: the regular chunk grid, the
# "default" and "v2" chunk key encodings, fill values in every JSON form, and
# the codecs bytes, transpose, gzip, zstd, blosc, crc32c, sharding_indexed
# (index at the start or the end, any index codecs), vlen-utf8 and vlen-bytes.
#
#   from v3reader import read_array
#   meta, values = read_array("/path/store", "group/array")
#
# values is a numpy array in C order: the spec's data types map to numpy dtypes
# in native (little-endian) order; "string" and "bytes" give object arrays of
# str / bytes; r<N> gives |V<N/8>.
import base64
import json
import math
import os
import struct
import zlib

import numpy as np

__all__ = ["read_array", "read_metadata", "parse_fill_value", "dtype_of", "Unsupported"]


class Unsupported(Exception):
    """A feature outside what this reader implements."""


class Corrupt(Exception):
    """Stored bytes that contradict the metadata (a failed checksum, a short chunk)."""


_NUMERIC = {
    "bool": "|b1",
    "int8": "|i1",
    "int16": "<i2",
    "int32": "<i4",
    "int64": "<i8",
    "uint8": "|u1",
    "uint16": "<u2",
    "uint32": "<u4",
    "uint64": "<u8",
    "float16": "<f2",
    "float32": "<f4",
    "float64": "<f8",
    "complex64": "<c8",
    "complex128": "<c16",
}


def dtype_of(data_type):
    """The numpy dtype of a v3 data_type (object dtype for string/bytes)."""
    name = data_type["name"] if isinstance(data_type, dict) else data_type
    if isinstance(data_type, dict) and data_type.get("configuration"):
        raise Unsupported(f"data type {name} with a configuration")
    if name in _NUMERIC:
        return np.dtype(_NUMERIC[name])
    if name in ("string", "bytes"):
        return np.dtype(object)
    if isinstance(name, str) and name.startswith("r") and name[1:].isdigit():
        bits = int(name[1:])
        if bits % 8 != 0 or bits == 0:
            raise Corrupt(f"raw type {name}: bits must be a positive multiple of 8")
        return np.dtype(f"V{bits // 8}")
    raise Unsupported(f"data type {name!r}")


def _float_from_json(v, dt):
    """A float component per the spec: a number, "NaN", "Infinity", "-Infinity" or "0x<hex bits>"."""
    dt = np.dtype(dt)
    if isinstance(v, bool):
        raise Corrupt(f"boolean {v!r} as a float fill value")
    if isinstance(v, (int, float)):
        return np.array(v, dtype=np.float64).astype(dt)
    if isinstance(v, str):
        if v == "NaN":
            # sign 0, mantissa MSB 1, other mantissa bits 0
            bits = {2: 0x7E00, 4: 0x7FC00000, 8: 0x7FF8000000000000}[dt.itemsize]
            return np.array(bits, dtype=f"<u{dt.itemsize}").view(dt.newbyteorder("<")).astype(dt)
        if v == "Infinity":
            return np.array(np.inf, dtype=dt)
        if v == "-Infinity":
            return np.array(-np.inf, dtype=dt)
        if v.startswith("0x") or v.startswith("0X"):
            bits = int(v[2:], 16)
            if bits >= 1 << (8 * dt.itemsize):
                raise Corrupt(f"hex fill value {v} wider than {dt}")
            return np.array(bits, dtype=f"<u{dt.itemsize}").view(dt.newbyteorder("<")).astype(dt)
    raise Corrupt(f"bad float fill value {v!r}")


def parse_fill_value(data_type, fill):
    """The fill value as a 0-d numpy array of dtype_of(data_type) (a Python object for string/bytes)."""
    name = data_type["name"] if isinstance(data_type, dict) else data_type
    dt = dtype_of(data_type)
    if name == "bool":
        if not isinstance(fill, bool):
            raise Corrupt(f"bool fill value must be true/false, got {fill!r}")
        return np.array(fill, dtype=dt)
    if dt.kind in "iu":
        if isinstance(fill, bool) or not isinstance(fill, int):
            raise Corrupt(f"integer fill value must be an integer, got {fill!r}")
        info = np.iinfo(dt)
        if not info.min <= fill <= info.max:
            raise Corrupt(f"fill value {fill} out of range for {name}")
        return np.array(fill, dtype=dt)
    if dt.kind == "f":
        return _float_from_json(fill, dt)
    if dt.kind == "c":
        if not isinstance(fill, list) or len(fill) != 2:
            raise Corrupt(f"complex fill value must be [re, im], got {fill!r}")
        part = np.dtype(f"<f{dt.itemsize // 2}")
        out = np.zeros((), dtype=dt)
        pair = out.reshape(1).view(part)
        pair[0] = _float_from_json(fill[0], part)
        pair[1] = _float_from_json(fill[1], part)
        return out
    if dt.kind == "V":
        if not isinstance(fill, list) or len(fill) != dt.itemsize or not all(
            isinstance(b, int) and 0 <= b <= 255 for b in fill
        ):
            raise Corrupt(f"raw fill value must be {dt.itemsize} integers in [0, 255], got {fill!r}")
        return np.frombuffer(bytes(fill), dtype=dt).reshape(())
    if name == "string":
        if not isinstance(fill, str):
            raise Corrupt(f"string fill value must be a string, got {fill!r}")
        out = np.empty((), dtype=object)
        out[()] = fill
        return out
    if name == "bytes":
        # The bytes extension: an array of byte values (or base64 text, as some writers use).
        if isinstance(fill, list) and all(isinstance(b, int) and 0 <= b <= 255 for b in fill):
            value = bytes(fill)
        elif isinstance(fill, str):
            value = base64.b64decode(fill, validate=True)
        else:
            raise Corrupt(f"bytes fill value must be a list of byte values, got {fill!r}")
        out = np.empty((), dtype=object)
        out[()] = value
        return out
    raise Unsupported(f"fill value for {name}")


# ---------------------------------------------------------------- bytes -> bytes


def _crc32c(data):
    import crc32c  # python3-crc32c

    return crc32c.crc32c(data) & 0xFFFFFFFF


def _decode_gzip(data, config):
    return zlib.decompress(data, 31)


def _decode_zstd(data, config):
    try:
        import zstd  # python3-zstd

        return zstd.decompress(data)
    except ImportError:
        from numcodecs import Zstd

        return bytes(Zstd().decode(data))


def _decode_blosc(data, config):
    from numcodecs import blosc

    return bytes(blosc.decompress(bytes(data)))


def _decode_crc32c(data, config):
    if len(data) < 4:
        raise Corrupt("crc32c: fewer than 4 bytes")
    payload, stored = data[:-4], struct.unpack("<I", data[-4:])[0]
    if _crc32c(payload) != stored:
        raise Corrupt(f"crc32c mismatch: stored {stored:#010x}, computed {_crc32c(payload):#010x}")
    return payload


_BYTES_TO_BYTES = {
    "gzip": _decode_gzip,
    "zstd": _decode_zstd,
    "blosc": _decode_blosc,
    "crc32c": _decode_crc32c,
}

# ---------------------------------------------------------------- array <-> bytes


def _check_config(name, config, allowed):
    extra = set(config) - set(allowed)
    if extra:
        raise Unsupported(f"codec {name}: unknown configuration keys {sorted(extra)}")


def _vlen_items(data, count):
    """u32le element count, then per element u32le length + bytes."""
    data = bytes(data)
    if len(data) < 4:
        raise Corrupt("vlen: no count")
    n = struct.unpack_from("<I", data, 0)[0]
    if n != count:
        raise Corrupt(f"vlen: {n} elements, expected {count}")
    off, out = 4, []
    for _ in range(n):
        if off + 4 > len(data):
            raise Corrupt("vlen: truncated length")
        ln = struct.unpack_from("<I", data, off)[0]
        off += 4
        if off + ln > len(data):
            raise Corrupt("vlen: truncated item")
        out.append(data[off : off + ln])
        off += ln
    return out


class _Chain:
    """A parsed codec list for chunks of `shape` and data type `data_type`."""

    def __init__(self, codecs, data_type, shape, fill):
        self.data_type = data_type
        self.dtype = dtype_of(data_type)
        self.shape = tuple(shape)
        self.fill = fill
        self.array_array = []  # (name, config, shape before)
        self.array_bytes = None
        self.bytes_bytes = []
        cur = self.shape
        for c in codecs:
            if isinstance(c, str):
                c = {"name": c}
            name, config = c["name"], c.get("configuration", {}) or {}
            if name == "transpose":
                _check_config(name, config, ["order"])
                order = list(config["order"])
                if sorted(order) != list(range(len(cur))):
                    raise Corrupt(f"transpose order {order} is not a permutation of {len(cur)} axes")
                if self.array_bytes is not None:
                    raise Corrupt("transpose after the array -> bytes codec")
                self.array_array.append((order, cur))
                cur = tuple(cur[i] for i in order)
            elif name in ("bytes", "vlen-utf8", "vlen-bytes", "sharding_indexed"):
                if self.array_bytes is not None:
                    raise Corrupt("two array -> bytes codecs")
                self.array_bytes = (name, config, cur)
            elif name in _BYTES_TO_BYTES:
                if self.array_bytes is None:
                    raise Corrupt(f"{name} before the array -> bytes codec")
                self.bytes_bytes.append((name, config))
            else:
                raise Unsupported(f"codec {name!r}")
        if self.array_bytes is None:
            raise Corrupt("no array -> bytes codec")
        self.inner_shape = cur

    def decode(self, data, read_range=None):
        """Decodes one stored chunk to an array of self.shape."""
        name, config, shape = self.array_bytes
        if name == "sharding_indexed" and not self.bytes_bytes:
            arr = _decode_shard(data, config, self.data_type, shape, self.fill)
        else:
            for bname, bconfig in reversed(self.bytes_bytes):
                data = _BYTES_TO_BYTES[bname](data, bconfig)
            arr = self._array_from_bytes(name, config, shape, data)
        for order, before in reversed(self.array_array):
            inverse = [0] * len(order)
            for i, o in enumerate(order):
                inverse[o] = i
            arr = np.transpose(arr, inverse)
        # (not np.ascontiguousarray, which makes a 0-d array 1-d)
        return np.array(arr, order="C", copy=True)

    def _array_from_bytes(self, name, config, shape, data):
        n = math.prod(shape)
        dname = self.data_type["name"] if isinstance(self.data_type, dict) else self.data_type
        if name == "bytes":
            _check_config(name, config, ["endian"])
            if self.dtype.kind == "O":
                raise Corrupt(f"bytes codec on {dname}")
            endian = config.get("endian")
            if self.dtype.itemsize > 1 and self.dtype.kind != "V" and endian not in ("little", "big"):
                raise Corrupt(f"bytes codec: endian required for {dname}, got {endian!r}")
            dt = self.dtype.newbyteorder(">" if endian == "big" else "<") if self.dtype.kind not in "bV" else self.dtype
            if len(data) != n * dt.itemsize:
                raise Corrupt(f"bytes codec: {len(data)} bytes for {n} x {dt.itemsize}")
            return np.frombuffer(bytes(data), dtype=dt).astype(self.dtype).reshape(shape)
        if name in ("vlen-utf8", "vlen-bytes"):
            _check_config(name, config, [])
            items = _vlen_items(data, n)
            out = np.empty(n, dtype=object)
            for i, b in enumerate(items):
                out[i] = b.decode("utf-8") if name == "vlen-utf8" else b
            return out.reshape(shape)
        if name == "sharding_indexed":
            return _decode_shard(data, config, self.data_type, shape, self.fill)
        raise Unsupported(name)


def _decode_shard(data, config, data_type, shape, fill):
    _check_config("sharding_indexed", config, ["chunk_shape", "codecs", "index_codecs", "index_location"])
    inner = list(config["chunk_shape"])
    if len(inner) != len(shape) or any(s % c for s, c in zip(shape, inner)):
        raise Corrupt(f"shard shape {shape} not divisible by inner chunk shape {inner}")
    per = [s // c for s, c in zip(shape, inner)]
    location = config.get("index_location", "end")
    index_chain = _Chain(config["index_codecs"], "uint64", per + [2], None)
    # The index size: decode-independent for fixed-size index codecs; find it
    # by encoding nothing: bytes(8*2*n) plus 4 per crc32c. Compressing index codecs
    # have no fixed size, which the sharding spec forbids.
    size = 16 * math.prod(per)
    for bname, _ in index_chain.bytes_bytes:
        if bname != "crc32c":
            raise Unsupported(f"index codec {bname} (not fixed-size)")
        size += 4
    data = bytes(data)
    if len(data) < size:
        raise Corrupt("shard shorter than its index")
    if location == "end":
        raw_index = data[len(data) - size :]
    elif location == "start":
        raw_index = data[:size]
    else:
        raise Corrupt(f"index_location {location!r}")
    index = index_chain.decode(raw_index).astype(np.uint64)
    chain = _Chain(config["codecs"], data_type, inner, fill)
    out = np.empty(shape, dtype=dtype_of(data_type))
    out[...] = fill
    empty = np.uint64(0xFFFFFFFFFFFFFFFF)
    for pos in np.ndindex(*per):
        off, nb = index[pos]
        if off == empty and nb == empty:
            continue
        off, nb = int(off), int(nb)
        if off + nb > len(data):
            raise Corrupt(f"inner chunk {pos} beyond the shard end")
        sl = tuple(slice(p * c, (p + 1) * c) for p, c in zip(pos, inner))
        out[sl] = chain.decode(data[off : off + nb])
    return out


# ---------------------------------------------------------------- the array


def read_metadata(root, path):
    key = os.path.join(root, *[p for p in path.split("/") if p], "zarr.json")
    with open(key, "rb") as f:
        meta = json.loads(f.read().decode("utf-8"))
    if meta.get("zarr_format") != 3 or meta.get("node_type") != "array":
        raise Corrupt(f"{key}: not a v3 array")
    known = {
        "zarr_format", "node_type", "shape", "data_type", "chunk_grid", "chunk_key_encoding",
        "fill_value", "codecs", "attributes", "storage_transformers", "dimension_names",
    }
    for k, v in meta.items():
        if k not in known and not (isinstance(v, dict) and v.get("must_understand") is False):
            raise Unsupported(f"metadata member {k!r}")
    if meta.get("storage_transformers"):
        raise Unsupported("storage transformers")
    return meta


def _chunk_key(meta, coords):
    enc = meta["chunk_key_encoding"]
    name = enc["name"]
    cfg = enc.get("configuration", {}) or {}
    if name == "default":
        sep = cfg.get("separator", "/")
        return sep.join(["c"] + [str(i) for i in coords])
    if name == "v2":
        sep = cfg.get("separator", ".")
        return sep.join(str(i) for i in coords) if coords else "0"
    raise Unsupported(f"chunk key encoding {name!r}")


def read_array(root, path):
    """(metadata, numpy array of every element) for the v3 array at `path` under `root`."""
    meta = read_metadata(root, path)
    shape = tuple(meta["shape"])
    grid = meta["chunk_grid"]
    if grid.get("name") != "regular":
        raise Unsupported(f"chunk grid {grid.get('name')!r}")
    chunk = tuple(grid["configuration"]["chunk_shape"])
    if len(chunk) != len(shape):
        raise Corrupt("chunk_shape rank differs from shape")
    dt = dtype_of(meta["data_type"])
    fill = parse_fill_value(meta["data_type"], meta["fill_value"])
    chain = _Chain(meta["codecs"], meta["data_type"], chunk, fill)
    out = np.empty(shape, dtype=dt)
    out[...] = fill
    if 0 in shape:
        return meta, out
    grid_shape = [math.ceil(s / c) for s, c in zip(shape, chunk)]
    base = os.path.join(root, *[p for p in path.split("/") if p])
    for coords in np.ndindex(*grid_shape):
        key = os.path.join(base, *_chunk_key(meta, coords).split("/"))
        try:
            with open(key, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            continue
        decoded = chain.decode(data)
        if decoded.shape != chunk:
            raise Corrupt(f"chunk {coords}: decoded shape {decoded.shape}, expected {chunk}")
        dst = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(coords, chunk, shape))
        src = tuple(slice(0, d.stop - d.start) for d in dst)
        out[dst] = decoded[src]
    return meta, out
