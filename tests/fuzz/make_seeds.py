#!/usr/bin/env python3
"""tests/fuzz/make_seeds.py BUILD - (re)make the seed corpora of the fuzz
targets from the project's own fixtures, into tests/fuzz/TARGET/:

  workload/     the DLIO YAML files of tests/bench/yaml/
  procfs/       every distinct /proc file of tests/fixtures/*/*/s*/, each
                prefixed with the byte that picks its parser (fuzz_procfs.c)
  runfile/      the fixtures' expected.txt (rows and meta in the dump format),
                and a run file written by BUILD/tests/synth_run turned into
                that format
  runfile_raw/  that synthetic run file itself, vacuumed to 512-byte pages

Seeds are small on purpose (at most 16 KiB each). Hand-made seeds
(names starting with "hand-") and crash reproducers ("crash-") are kept."""
import glob
import hashlib
import os
import sqlite3
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUZZ = os.path.join(TOP, "tests", "fuzz")
MAX = 16384

# fuzz_procfs.c's parsers[] order
PROCFS = [
    (0, ["diskstats"]),
    (1, ["self/mountinfo"]),
    (2, ["net/dev", "net/snmp"]),
    (3, ["*/stat", "*/io", "*/task/*/stat", "*/task/*/schedstat"]),
    (4, ["stat"]),
    (5, ["pressure/*"]),
    (7, ["self/mountstats"]),
    (8, ["self/mountinfo", "*/cgroup"]),
]


def clear(d):
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if not f.startswith(("hand-", "crash-")):
            os.unlink(os.path.join(d, f))


def put(d, data):
    data = data[:MAX]
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def procfs():
    d = os.path.join(FUZZ, "procfs")
    clear(d)
    procs = glob.glob(os.path.join(TOP, "tests/fixtures/*/*/s*/proc"))
    for sel, pats in PROCFS:
        for proc in procs:
            for pat in pats:
                for f in glob.glob(os.path.join(proc, pat)):
                    if os.path.isfile(f):
                        put(d, bytes([sel]) + open(f, "rb").read())
    for proc in procs:  # mem: meminfo \f vmstat
        mi, vm = os.path.join(proc, "meminfo"), os.path.join(proc, "vmstat")
        if os.path.isfile(mi):
            tail = open(vm, "rb").read() if os.path.isfile(vm) else b""
            put(d, bytes([6]) + open(mi, "rb").read() + b"\f" + tail)


def dump_db(path):
    """A run file in the dump format of tests/lib/dump.c."""
    db = sqlite3.connect(path)
    out = []
    for k, v in db.execute("SELECT key, value FROM meta"):
        out.append(f'meta {k}="{v}"')
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name != 'meta'")]
    for t in tables:
        cur = db.execute(f"SELECT * FROM {t} LIMIT 40")
        cols = [c[0] for c in cur.description]
        for row in cur:
            vals = ["NULL" if v is None else f'"{v}"' if isinstance(v, str) else repr(v) for v in row]
            out.append(t + " " + " ".join(f"{c}={v}" for c, v in zip(cols, vals)))
    return ("\n".join(out) + "\n").encode()


def runfiles(build):
    d, raw = os.path.join(FUZZ, "runfile"), os.path.join(FUZZ, "runfile_raw")
    clear(d)
    clear(raw)
    for exp in glob.glob(os.path.join(TOP, "tests/fixtures/*/*/expected.txt")):
        put(d, open(exp, "rb").read())
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "synth.db")
        subprocess.run([os.path.join(build, "tests", "synth_run"), db, "2"], check=True)
        put(d, dump_db(db))
        con = sqlite3.connect(db)
        con.execute("PRAGMA page_size=512")
        con.execute("VACUUM")
        con.close()
        data = open(db, "rb").read()
        with open(os.path.join(raw, hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
            f.write(data)  # whole: a cut SQLite file is just "not a database"


def workload():
    d = os.path.join(FUZZ, "workload")
    clear(d)
    for y in glob.glob(os.path.join(TOP, "tests/bench/yaml/*.yaml")):
        put(d, open(y, "rb").read())


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: tests/fuzz/make_seeds.py BUILD")
    workload()
    procfs()
    runfiles(os.path.abspath(sys.argv[1]))
