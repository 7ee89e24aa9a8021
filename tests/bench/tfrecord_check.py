#!/usr/bin/env python3
"""tfrecord_check.py - a TFRecord reader for the tests (standard library
only, its own CRC-32C). Walks every record of every file: uint64 length,
uint32 masked CRC-32C of the length, data, uint32 masked CRC-32C of the
data; checks both CRCs and that the file ends exactly after a record. Each
record's data is parsed as a tf.train.Example: the "image" bytes feature's
length must equal the "size" int64 feature.

  tfrecord_check.py FILE...          check the files, print the record counts
  tfrecord_check.py --dir D          check every file of D's feedscope manifest:
                                     record count and byte ranges as listed

Exit status 0 when everything checks out, 1 otherwise (one line per fault).
"""
import os
import struct
import sys

_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc32c(data):
    c = 0xFFFFFFFF
    t = _TABLE
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked(c):
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def fields(buf):
    """(field number, wire type, value) of a protobuf message."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 2:
            n, i = varint(buf, i)
            yield num, wt, buf[i:i + n]
            i += n
        elif wt == 0:
            v, i = varint(buf, i)
            yield num, wt, v
        else:
            raise ValueError("wire type %d" % wt)


def example_features(data):
    """{name: ("bytes", [bytes...]) | ("int64", [ints])} of a tf.train.Example."""
    out = {}
    for num, _, features in fields(data):
        if num != 1:
            continue
        for fnum, _, entry in fields(features):
            if fnum != 1:
                continue
            key, value = None, b""
            for enum, _, v in fields(entry):
                if enum == 1:
                    key = bytes(v).decode()
                elif enum == 2:
                    value = v
            for vnum, _, lst in fields(value):
                if vnum == 1:
                    out[key] = ("bytes", [bytes(v) for n, _, v in fields(lst) if n == 1])
                elif vnum == 3:
                    vals = []
                    for n, wt, v in fields(lst):
                        if n == 1 and wt == 2:
                            j = 0
                            while j < len(v):
                                x, j = varint(v, j)
                                vals.append(x)
                        elif n == 1:
                            vals.append(v)
                    out[key] = ("int64", vals)
    return out


def check_file(path, faults):
    """[(offset, length)] of each record (framing included)."""
    recs = []
    with open(path, "rb") as f:
        buf = f.read()
    i = 0
    while i < len(buf):
        if len(buf) - i < 12:
            faults.append("%s: %d stray bytes at %d" % (path, len(buf) - i, i))
            break
        (n,) = struct.unpack_from("<Q", buf, i)
        (lcrc,) = struct.unpack_from("<I", buf, i + 8)
        if masked(crc32c(buf[i:i + 8])) != lcrc:
            faults.append("%s: record at %d: length CRC mismatch" % (path, i))
            break
        if i + 12 + n + 4 > len(buf):
            faults.append("%s: record at %d: truncated" % (path, i))
            break
        data = buf[i + 12:i + 12 + n]
        (dcrc,) = struct.unpack_from("<I", buf, i + 12 + n)
        if masked(crc32c(data)) != dcrc:
            faults.append("%s: record at %d: data CRC mismatch" % (path, i))
        try:
            feat = example_features(data)
            img, size = feat["image"][1][0], feat["size"][1][0]
            if len(img) != size:
                faults.append("%s: record at %d: image of %d bytes, size says %d" % (path, i, len(img), size))
        except (KeyError, IndexError, ValueError) as e:
            faults.append("%s: record at %d: not a tf.train.Example with image and size (%s)" % (path, i, e))
        recs.append((i, 12 + n + 4))
        i += 12 + n + 4
    return recs


def manifest(d):
    """[(path, size, [(offset, length)])] from D/.feedscope-dataset."""
    files = []
    with open(os.path.join(d, ".feedscope-dataset")) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "file":
                files.append((w[1], int(w[2]), []))
            elif w and w[0] == "rec":
                files[-1][2].append((int(w[1]), int(w[2])))
    return files


def main(argv):
    faults = []
    total = 0
    if len(argv) == 2 and argv[0] == "--dir":
        for rel, size, want in manifest(argv[1]):
            path = os.path.join(argv[1], rel)
            got = check_file(path, faults)
            total += len(got)
            if os.path.getsize(path) != size:
                faults.append("%s: %d bytes, the manifest says %d" % (rel, os.path.getsize(path), size))
            if got != want:
                faults.append("%s: %d records, the manifest lists %d (or other ranges)" % (rel, len(got), len(want)))
    elif argv and not argv[0].startswith("-"):
        for path in argv:
            got = check_file(path, faults)
            total += len(got)
            print("%s: %d records" % (path, len(got)))
    else:
        sys.stderr.write(__doc__)
        return 2
    for fault in faults:
        print("FAULT " + fault)
    print("%d records, %d faults" % (total, len(faults)))
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
