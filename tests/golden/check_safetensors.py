#!/usr/bin/env python3
"""Independent reader and writer of attn-graph model files (safetensors), for checking by hand.

No attn-graph code is used: only struct, json, zlib (and numpy/torch if present), so a file that
passes here is readable by any safetensors consumer. CI does not run this script.

    check_safetensors.py FILE                 validate FILE and print its tensors and metadata
    check_safetensors.py --roundtrip FILE     also check the values test_safetensors writes with
                                              AG_SAFETENSORS_DUMP=FILE (the roundtrip test)
    check_safetensors.py --write-golden OUT   write tests/golden/tiny.safetensors
"""
import json
import math
import struct
import sys
import zlib


def read(path):
    with open(path, "rb") as f:
        raw = f.read()
    assert len(raw) >= 8, "file too short"
    (n,) = struct.unpack("<Q", raw[:8])
    assert 8 + n <= len(raw), "header runs past the end"
    assert (8 + n) % 8 == 0, "header not padded to a multiple of 8"
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    data = raw[8 + n:]
    meta = header.pop("__metadata__", {})
    assert all(isinstance(v, str) for v in meta.values()), "metadata values must be strings"
    spans = sorted((t["data_offsets"][0], t["data_offsets"][1], name) for name, t in header.items())
    pos = 0
    for begin, end, name in spans:
        assert begin == pos, f"gap or overlap at {name}"
        pos = end
    assert pos == len(data), "trailing bytes or truncated"
    tensors = {}
    for name, t in header.items():
        assert set(t) == {"dtype", "shape", "data_offsets"}, name
        assert t["dtype"] == "F32", name
        count = math.prod(t["shape"])
        begin, end = t["data_offsets"]
        assert end - begin == 4 * count, name
        tensors[name] = (t["shape"], struct.unpack(f"<{count}f", data[begin:end]))
    if meta.get("format") == "attn-graph":
        assert meta["format_version"] == "1", meta["format_version"]
        assert int(meta["crc32"], 16) == zlib.crc32(data), "checksum mismatch"
    return tensors, meta, raw, n


def check_torch(path, tensors):
    """Loads the tensors with torch.frombuffer, as a PyTorch user without the safetensors package would."""
    try:
        import torch
    except ImportError:
        print("torch not available; skipped")
        return
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    buf = bytearray(raw[8 + n:])
    for name, t in header.items():
        b, e = t["data_offsets"]
        x = torch.frombuffer(buf[b:e], dtype=torch.float32).reshape(t["shape"]) if e > b else torch.zeros(t["shape"])
        want = torch.tensor(tensors[name][1], dtype=torch.float32).reshape(t["shape"])
        assert torch.equal(x.view(torch.int32), want.view(torch.int32)), name
    print(f"torch {torch.__version__}: {len(header)} tensors load bit-identically")


def check_roundtrip(tensors, meta):
    """The values test_roundtrip_bit_identical writes."""
    w = tensors["blocks.0.attn.Wq"]
    assert w[0] == [3, 4]
    for i, v in enumerate(w[1]):
        assert v == struct.unpack("<f", struct.pack("<f", i * 0.37 - 2.0))[0] or abs(v - (i * 0.37 - 2.0)) < 1e-6
    v = tensors['name with "quotes", \\ and \u00e9']
    bits = [struct.unpack("<I", struct.pack("<f", x))[0] for x in v[1]]
    # NaN payloads survive struct's float round trip only for quiet NaNs; compare the raw bits instead
    assert bits[1:] == [0x80000000, 0x7F800000, 0x00000001, 0xFF7FFFFF], [hex(b) for b in bits]
    assert math.isnan(v[1][0])
    assert tensors["scalar"] == ([], (42.5,))
    assert tensors["empty"] == ([0, 3], ())
    arch = json.loads(meta["architecture"])
    assert arch["layers"][0]["heads"] == 4 and arch["x"] == "\u00e9", arch
    assert meta["weird"] == 'line1\nline2\r\t"q" \\ / \x01\x1f end \u20ac \U0001F600', repr(meta["weird"])
    assert meta["empty"] == ""
    print("roundtrip values: OK")


def write_golden(path):
    tensors = [("layer.W", [2, 3], [0.5, -1.0, 2.0, 3.25, 0.0, -0.125]), ("layer.b", [2], [1e-3, 1e3])]
    data = b"".join(struct.pack(f"<{len(v)}f", *v) for _, _, v in tensors)
    header = {"__metadata__": {"format": "attn-graph", "format_version": "1",
                               "crc32": "%08x" % zlib.crc32(data),
                               "note": 'written by Python: "quoted", caf\u00e9\nnext line'}}
    pos = 0
    for name, shape, v in tensors:
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [pos, pos + 4 * len(v)]}
        pos += 4 * len(v)
    h = json.dumps(header).encode("utf-8")
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def main(argv):
    if len(argv) == 3 and argv[1] == "--write-golden":
        write_golden(argv[2])
        return 0
    roundtrip = argv[1] == "--roundtrip"
    path = argv[-1]
    tensors, meta, raw, n = read(path)
    print(f"{path}: {len(raw)} bytes, header {n} bytes, {len(tensors)} tensors")
    for k, v in meta.items():
        print(f"  meta {k!r}: {v[:60]!r}")
    for name, (shape, values) in tensors.items():
        print(f"  {name!r} {shape}: {list(values)[:6]}")
    if roundtrip:
        check_roundtrip(tensors, meta)
    check_torch(path, tensors)
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
