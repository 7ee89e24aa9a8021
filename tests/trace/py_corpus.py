"""py_corpus.py DATA - Python's ways of doing file I/O, for the tracer's
transparency test (trace_transparency.sh runs it with and without the
tracer, in an empty current directory, and wants the same stdout, stderr,
exit status and files written).

DATA holds files f0..f9 of assorted sizes, a text file lines.txt, a
directory many/ of 1000 entries and a small tree tree/. Everything printed
is a digest, a count or an error message: nothing that differs between two
runs of the same thing.
"""
import glob
import hashlib
import io
import mmap
import os
import pickle
import shutil
import subprocess
import sys
import tempfile

import numpy as np


def digest(b):
    return hashlib.sha256(b).hexdigest()[:16]


def main():
    data = sys.argv[1]
    files = sorted(glob.glob(os.path.join(data, "f*")))

    # open().read, buffered and not, text mode
    for p in files:
        with open(p, "rb") as f:
            print("read", os.path.basename(p), digest(f.read()))
        with open(p, "rb", buffering=0) as f:
            print("raw", os.path.basename(p), digest(f.read()))
    with open(os.path.join(data, "lines.txt")) as f:
        lines = f.readlines()
    print("lines", len(lines), digest("".join(lines).encode()))

    # os.open / os.read / os.pread / os.lseek / os.fstat
    fd = os.open(files[-1], os.O_RDONLY)
    chunks = []
    while True:
        b = os.read(fd, 4096)
        if not b:
            break
        chunks.append(b)
    print("os.read", len(chunks), digest(b"".join(chunks)))
    print("os.pread", digest(os.pread(fd, 100, 1000)), len(os.pread(fd, 100, 10 ** 9)))
    print("lseek", os.lseek(fd, -10, os.SEEK_END), "size", os.fstat(fd).st_size)
    os.close(fd)
    try:
        os.read(fd, 10)
    except OSError as e:
        print("read closed fd:", e.errno, e.strerror)
    for bad in (os.path.join(data, "missing"), data):
        try:
            open(bad, "rb").read()
        except OSError as e:
            print("open", os.path.basename(bad), type(e).__name__, e.errno)

    # numpy: save/load, memory-mapped load, tofile/fromfile (C stdio), savez
    arr = np.arange(100000, dtype=np.float32).reshape(1000, 100)
    np.save("arr.npy", arr)
    back = np.load("arr.npy")
    mm = np.load("arr.npy", mmap_mode="r")
    print("numpy", back.shape, float(back.sum()), float(mm[500].sum()))
    arr.tofile("arr.bin")
    print("fromfile", float(np.fromfile("arr.bin", dtype=np.float32).sum()))
    np.savez("arrs.npz", a=arr, b=arr[:10])
    with np.load("arrs.npz") as z:
        print("npz", sorted(z.files), float(z["b"].sum()))
    del mm

    # directories: scandir over 1000 entries, listdir, walk, glob, stat
    with os.scandir(os.path.join(data, "many")) as it:
        entries = list(it)
    print("scandir", len(entries), sum(e.stat().st_size for e in entries),
          sum(1 for e in entries if e.is_file()))
    print("listdir", len(os.listdir(os.path.join(data, "many"))))
    walked = sorted((os.path.relpath(r, data), len(d), len(f)) for r, d, f in os.walk(os.path.join(data, "tree")))
    print("walk", walked)
    print("glob", len(glob.glob(os.path.join(data, "many", "*7"))))

    # writes: text, appends, pickle, shutil (sendfile/copy_file_range), tempfile
    with open("out.txt", "w") as f:
        for i in range(1000):
            f.write("line %d\n" % i)
    with open("out.txt", "a") as f:
        f.write("appended\n")
    with open("obj.pkl", "wb") as f:
        pickle.dump({"a": list(range(1000)), "b": "x" * 5000}, f)
    with open("obj.pkl", "rb") as f:
        print("pickle", len(pickle.load(f)["a"]))
    shutil.copyfile(files[-1], "copy.bin")
    shutil.copytree(os.path.join(data, "tree"), "tree_copy")
    with tempfile.NamedTemporaryFile(dir=".", delete=True) as t:
        t.write(b"z" * 10000)
        t.flush()
        t.seek(0)
        print("tempfile", len(t.read()))
    with open(files[-1], "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        print("mmap", digest(m[:]))
    buf = io.BytesIO()
    buf.write(b"in memory")
    print("bytesio", buf.getvalue())

    # a child process (Python uses vfork for this), its output captured
    r = subprocess.run(["sha256sum", os.path.basename(files[0])], cwd=data, capture_output=True, text=True)
    print("subprocess", r.returncode, r.stdout.split()[0][:16])
    r = subprocess.run([sys.executable, "-c", "import sys; sys.exit(open(sys.argv[1],'rb').read(3) == b'' and 3 or 4)",
                        files[0]], capture_output=True)
    print("child python", r.returncode)
    print("done", file=sys.stderr)


if __name__ == "__main__":
    main()
