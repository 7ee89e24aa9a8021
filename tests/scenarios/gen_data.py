"""Write the scenario suite's datasets into ROOT (the mounted ext4 image).

    /usr/bin/python3 gen_data.py ROOT
    /usr/bin/python3 gen_data.py --jpeg DIR N   (broad suite: N JPEGs)
    /usr/bin/python3 gen_data.py --npy ROOT     (ROOT/npy/ alone, the same bytes)

  ROOT/big/     400 files of 1 MiB (sequential whole-file reads)
  ROOT/rand.bin one 256 MiB file (random 4 KiB reads)
  ROOT/members.zip  3000 stored members of 8 KiB (random member reads)
  ROOT/npy/     2000 .npy files of 32 KiB (the warm, fast dataset)
  ROOT/tiny/    30000 files of 48 bytes in 100 directories, listed in
                ROOT/tiny/index.txt (an ext4 with inline_data keeps them in
                their inodes: reading one is metadata I/O only)

--jpeg writes DIR/img_NNNNN.jpg: N photo-like 960x720 RGB JPEGs (quality
90; smooth gradients plus noise, so decoding costs what a photo costs),
made with PIL (python3-pil). --npy writes only ROOT/npy/, byte for byte
what the full run writes there (tests/scenarios/async_table.sh: a small
image).

Contents are fixed pseudo-random bytes (not zeros: nothing below may
skip or compress them).
"""
import os
import zipfile
import sys

import numpy as np

MiB = 1 << 20


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def jpegs(out, n):
    from PIL import Image
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(4321)
    yy, xx = np.mgrid[0:720, 0:960]
    for i in range(n):
        base = np.stack([(xx * (i % 7 + 1) // 5), (yy * (i % 5 + 1) // 4), (xx + yy) // 5], axis=-1)
        img = (base + rng.integers(0, 48, size=(720, 960, 3))) % 256
        Image.fromarray(img.astype(np.uint8), "RGB").save(
            os.path.join(out, "img_%05d.jpg" % i), quality=90)


def the_block():
    """4 MiB of fixed pseudo-random bytes: every dataset is cut from it."""
    rng = np.random.default_rng(1234)
    return rng.integers(0, 256, size=4 * MiB, dtype=np.uint8).tobytes()


def npys(root, block):
    """ROOT/npy/: 2000 .npy files of 32 KiB."""
    os.makedirs(os.path.join(root, "npy"), exist_ok=True)
    for i in range(2000):
        o = (i * 104729) % (4 * MiB - 32768)
        x = np.frombuffer(block, dtype=np.uint8, count=32768 - 128, offset=o)
        np.save(os.path.join(root, "npy", "sample_%05d.npy" % i), x)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--jpeg":
        jpegs(sys.argv[2], int(sys.argv[3]))
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--npy":
        npys(sys.argv[2], the_block())
        return
    root = sys.argv[1]
    block = the_block()

    os.makedirs(os.path.join(root, "big"), exist_ok=True)
    for i in range(400):
        o = (i * 7919) % (3 * MiB)
        write(os.path.join(root, "big", "shard_%04d.bin" % i), block[o:o + MiB])

    with open(os.path.join(root, "rand.bin"), "wb") as f:
        for i in range(64):
            f.write(block)

    # one zip of small stored members (random member reads, as a dataset
    # packed in one archive is read)
    with zipfile.ZipFile(os.path.join(root, "members.zip"), "w", zipfile.ZIP_STORED) as z:
        for i in range(3000):
            o = (i * 7919) % (4 * MiB - 8192)
            z.writestr("m%05d.bin" % i, block[o:o + 8192])

    npys(root, block)

    tiny = os.path.join(root, "tiny")
    names = []
    for d in range(100):
        os.makedirs(os.path.join(tiny, "d%03d" % d), exist_ok=True)
    for i in range(30000):
        rel = "d%03d/s%05d.txt" % (i % 100, i)
        o = (i * 31) % (4 * MiB - 64)
        write(os.path.join(tiny, rel), block[o:o + 48])
        names.append(rel)
    write(os.path.join(tiny, "index.txt"), ("\n".join(names) + "\n").encode())


if __name__ == "__main__":
    main()
