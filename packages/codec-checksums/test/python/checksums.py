# numcodecs checksum codecs, reference side of test/interop.test.ts. Usage:
#   checksums.py blobs          stdin: {"blobs": [b64...], "ours": {case: [b64...]}}
#                               -> {"impl": {...}, "encoded": {case: [b64...]}, "decoded": {case: [ok|error]}}
#   checksums.py write DIR      zarr-python writes one array per case under DIR -> {name: case}
#   checksums.py check DIR SPEC zarr-python reads the arrays @zarr/v2-compat wrote -> {"bad": {...}}
#
# Each codec is numcodecs' own class when the installed numcodecs has it (0.11 has only
# crc32 and adler32, always at the start; `location` came in 0.14, crc32c in 0.14,
# fletcher32 and jenkins_lookup3 in 0.12). Otherwise it is a port of numcodecs' newer
# source below, registered under the same id so that zarr-python 2.13 writes and reads
# it; crc32c's checksum then comes from the `crc32c` module numcodecs itself uses.
import base64, json, struct, sys, zlib
import numpy as np
import numcodecs
from numcodecs.abc import Codec
from numcodecs.compat import ensure_contiguous_ndarray

IMPL = {}


class PortChecksum32(Codec):
    """numcodecs >= 0.14 Checksum32: 4-byte little-endian checksum at `location`."""
    location = "start"

    def __init__(self, location=None):
        if location is not None:
            self.location = location
        assert self.location in ("start", "end")

    def encode(self, buf):
        b = ensure_contiguous_ndarray(buf).view("u1").tobytes()
        c = struct.pack("<I", self.checksum(b) & 0xFFFFFFFF)
        return c + b if self.location == "start" else b + c

    def decode(self, buf, out=None):
        b = ensure_contiguous_ndarray(buf).view("u1").tobytes()
        if len(b) < 4:
            raise ValueError("too short")
        c, p = (b[:4], b[4:]) if self.location == "start" else (b[-4:], b[:-4])
        if struct.unpack("<I", c)[0] != self.checksum(p) & 0xFFFFFFFF:
            raise RuntimeError("checksum mismatch")
        return numcodecs.compat.ndarray_copy(np.frombuffer(p, "u1"), out)


class PortCRC32(PortChecksum32):
    codec_id = "crc32"
    checksum = staticmethod(zlib.crc32)


class PortAdler32(PortChecksum32):
    codec_id = "adler32"
    checksum = staticmethod(zlib.adler32)


class PortCRC32C(PortChecksum32):
    codec_id = "crc32c"
    location = "end"

    @staticmethod
    def checksum(data):
        import crc32c
        return crc32c.crc32c(data)


def fletcher32(data):
    """fletcher32.pyx's _fletcher32 (HDF5 H5_checksum_fletcher32)."""
    sum1 = sum2 = 0
    n = len(data) // 2
    p = 0
    while n:
        t = min(n, 360)
        n -= t
        for _ in range(t):
            sum1 = (sum1 + ((data[p] << 8) | data[p + 1])) & 0xFFFFFFFF
            sum2 = (sum2 + sum1) & 0xFFFFFFFF
            p += 2
        sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
        sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
    if len(data) % 2:
        sum1 += data[p] << 8
        sum2 += sum1
        sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
        sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
    sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
    sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
    return ((sum2 << 16) | sum1) & 0xFFFFFFFF


def jenkins_lookup3(k, initval=0):
    """jenkins.pyx's jenkins_lookup3 (lookup3.c hashlittle)."""
    M = 0xFFFFFFFF
    rot = lambda x, r: ((x << r) | (x >> (32 - r))) & M
    n = len(k)
    a = b = c = (0xDEADBEEF + n + initval) & M
    if n == 0:
        return c
    i = 0
    while n > 12:
        a = (a + int.from_bytes(k[i:i + 4], "little")) & M
        b = (b + int.from_bytes(k[i + 4:i + 8], "little")) & M
        c = (c + int.from_bytes(k[i + 8:i + 12], "little")) & M
        a = (a - c) & M; a ^= rot(c, 4); c = (c + b) & M
        b = (b - a) & M; b ^= rot(a, 6); a = (a + c) & M
        c = (c - b) & M; c ^= rot(b, 8); b = (b + a) & M
        a = (a - c) & M; a ^= rot(c, 16); c = (c + b) & M
        b = (b - a) & M; b ^= rot(a, 19); a = (a + c) & M
        c = (c - b) & M; c ^= rot(b, 4); b = (b + a) & M
        n -= 12
        i += 12
    tail = bytes(k[i:i + n]) + bytes(12 - n)
    a = (a + int.from_bytes(tail[0:4], "little")) & M
    b = (b + int.from_bytes(tail[4:8], "little")) & M
    c = (c + int.from_bytes(tail[8:12], "little")) & M
    c ^= b; c = (c - rot(b, 14)) & M
    a ^= c; a = (a - rot(c, 11)) & M
    b ^= a; b = (b - rot(a, 25)) & M
    c ^= b; c = (c - rot(b, 16)) & M
    a ^= c; a = (a - rot(c, 4)) & M
    b ^= a; b = (b - rot(a, 14)) & M
    c ^= b; c = (c - rot(b, 24)) & M
    return c


def fletcher32_nonempty(data):
    # numcodecs' Cython takes &data[0]: 0 bytes raise IndexError on encode and decode.
    if len(data) == 0:
        raise IndexError("Out of bounds on buffer access (axis 0)")
    return fletcher32(data)


class PortFletcher32(PortChecksum32):
    codec_id = "fletcher32"
    location = "end"
    checksum = staticmethod(fletcher32_nonempty)

    def __init__(self):
        pass


class PortJenkinsLookup3(PortChecksum32):
    codec_id = "jenkins_lookup3"
    location = "end"

    def __init__(self, initval=0, prefix=None):
        self.initval = initval
        self.prefix = prefix  # a list of byte values, as JSON can hold it

    def checksum(self, data):
        return jenkins_lookup3(bytes(self.prefix or b"") + data, self.initval)


PORTS = {"crc32": PortCRC32, "adler32": PortAdler32, "crc32c": PortCRC32C,
         "fletcher32": PortFletcher32, "jenkins_lookup3": PortJenkinsLookup3}
# numcodecs' own checks of the ports (tests/test_jenkins.py, tests/test_fletcher32.py)
assert jenkins_lookup3(b"Four score and seven years ago", 1) == 0xCD628161
assert fletcher32(np.array([1911, -2427, 1897, -2412, 2440, 873, -621, -829, 551, -2118], "<i8").tobytes()) == 0x648625FD


REAL = {cid: numcodecs.registry.codec_registry.get(cid) for cid in PORTS}


def real_codec(cid, kwargs):
    """numcodecs' own codec, or None when this numcodecs lacks the id or a keyword (location)."""
    if REAL[cid] is None:
        return None
    if kwargs.get("prefix") is not None:
        kwargs = {**kwargs, "prefix": bytes(kwargs["prefix"])}  # numcodecs takes a bytes-like prefix
    try:
        return REAL[cid](**kwargs)
    except TypeError:
        return None


def register_port(cid):
    """Registers the port under `cid`; configurations numcodecs itself takes still get its class."""
    port = PORTS[cid]

    class Registered(port):
        def __new__(cls, **kwargs):
            real = real_codec(cid, kwargs)
            return real if real is not None else super().__new__(cls)

    Registered.codec_id = cid
    numcodecs.register_codec(Registered)


def codec(config, case=None):
    """The codec for `config`: numcodecs' own where it has it, else the port (registered)."""
    cid = config["id"]
    if cid not in PORTS:
        return numcodecs.get_codec(dict(config))
    kwargs = {k: v for k, v in config.items() if k != "id"}
    real = real_codec(cid, kwargs)
    if real is not None:
        IMPL[case or cid] = "numcodecs " + numcodecs.__version__
        return real
    IMPL[case or cid] = "port"
    register_port(cid)
    return PORTS[cid](**kwargs)


CASES = {
    "adler32": {"id": "adler32"},
    "crc32": {"id": "crc32"},
    "adler32_end": {"id": "adler32", "location": "end"},
    "crc32_end": {"id": "crc32", "location": "end"},
    "crc32c": {"id": "crc32c"},
    "crc32c_start": {"id": "crc32c", "location": "start"},
    "fletcher32": {"id": "fletcher32"},
    "jenkins_lookup3": {"id": "jenkins_lookup3"},
    "jenkins_lookup3_seeded": {"id": "jenkins_lookup3", "initval": 1230, "prefix": [70, 65, 68, 66]},
}
# Arrays: numcodecs' JenkinsLookup3 keeps `prefix` as a numpy array, which no JSON writer
# serializes, so .zarray never holds one; the arrays use initval only.
ARRAY_CASES = {**CASES, "jenkins_lookup3_seeded": {"id": "jenkins_lookup3", "initval": 1230, "prefix": None}}

def as_bytes(x):
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x)
    return np.ascontiguousarray(x).view("u1").tobytes()


b64 = lambda b: base64.b64encode(as_bytes(b)).decode()
unb64 = lambda s: base64.b64decode(s)


def blobs():
    req = json.load(sys.stdin)
    raw = [unb64(s) for s in req["blobs"]]
    encoded, decoded = {}, {}
    for name, cfg in CASES.items():
        c = codec(cfg, name)
        # numcodecs' fletcher32 cannot encode 0 bytes (IndexError in its Cython): null.
        out = []
        for r in raw:
            try:
                out.append(b64(c.encode(r)))
            except IndexError:
                out.append(None)
        encoded[name] = out
        res = []
        for r, s in zip(raw, req["ours"][name]):
            try:
                got = as_bytes(c.decode(unb64(s)))
                res.append("ok" if got == r else "differs")
            except Exception as e:
                res.append(type(e).__name__)
        decoded[name] = res
    print(json.dumps({"version": numcodecs.__version__, "impl": IMPL, "encoded": encoded, "decoded": decoded}))


def array_cases():
    out = {}
    for i, (name, cfg) in enumerate(ARRAY_CASES.items()):
        out[name + "_compressor"] = ("<i4" if i % 2 else ">f8", 1000, 96, None, cfg)
        out[name + "_filter"] = ("<u2", 777, 100, [cfg], {"id": "zlib", "level": 1})
    return out


def values(dtype, n, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.standard_normal(n).astype(dtype)
    return rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, n, endpoint=True).astype(dtype)


def write(root):
    import zarr
    spec = {}
    for i, (name, (dtype, n, chunk, filters, comp)) in enumerate(array_cases().items()):
        a = zarr.open_array(f"{root}/{name}", mode="w", shape=(n,), chunks=(chunk,), dtype=dtype,
                            compressor=codec(comp, name), filters=[codec(f, name) for f in filters] if filters else None,
                            fill_value=0)
        v = values(dtype, n, i)
        a[:] = v
        spec[name] = {"dtype": dtype, "n": n, "chunk": chunk, "filters": filters, "compressor": comp,
                      "expected": [float(x) if dtype[1] == "f" else int(x) for x in v]}
    print(json.dumps({"impl": IMPL, "spec": spec}))


def check(root, spec_path):
    import zarr
    for cfg in ARRAY_CASES.values():
        codec(cfg)  # registers the ports of what this numcodecs lacks
    spec = json.load(open(spec_path))
    bad = {}
    for name, c in spec.items():
        try:
            a = zarr.open_array(f"{root}/{name}", mode="r")
            got = [float(x) if c["dtype"][1] == "f" else int(x) for x in a[:]]
            if got != c["expected"]:
                bad[name] = "values differ"
        except Exception as e:
            bad[name] = repr(e)
    print(json.dumps({"bad": bad}))


if __name__ == "__main__":
    if sys.argv[1] == "blobs":
        blobs()
    elif sys.argv[1] == "write":
        write(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3])
