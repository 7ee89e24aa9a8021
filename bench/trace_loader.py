"""trace_loader.py LIB [FILES] [ROUNDS] - the I/O tracer's cost on a PyTorch
DataLoader epoch (make bench; figures, never asserted).

FILES small files (default 10 000, 4 KiB each) are read whole by a
DataLoader with 2 forked workers (tests/trace/loader_job.py), once to warm
the page cache, then ROUNDS times (default 3) each without and with
LD_PRELOAD=LIB, alternating, each run in a fresh /usr/bin/python3. Prints
the epoch's wall time (min and median) and the ratio of the medians. The
time includes interpreter and torch start-up, the same on both sides.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    lib = os.path.abspath(sys.argv[1])
    nfiles = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    job = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "trace", "loader_job.py")
    tmp = tempfile.mkdtemp(prefix="trace_loader.")
    try:
        data = os.path.join(tmp, "data")
        os.mkdir(data)
        block = os.urandom(4096)
        for i in range(nfiles):
            with open(os.path.join(data, "s%05d.bin" % i), "wb") as f:
                f.write(block)
        env_off = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "FEEDSCOPE_TRACE_DIR")}

        def run(traced):
            env = dict(env_off)
            if traced:
                regions = os.path.join(tmp, "regions")
                shutil.rmtree(regions, ignore_errors=True)
                os.mkdir(regions)
                env.update(LD_PRELOAD=lib, FEEDSCOPE_TRACE_DIR=regions)
            t0 = time.monotonic()
            subprocess.run(["/usr/bin/python3", job, data, "fork", "2"], env=env, check=True,
                           stdout=subprocess.DEVNULL)
            return time.monotonic() - t0

        run(False)  # warm the page cache
        off, on = [], []
        for _ in range(rounds):
            off.append(run(False))
            on.append(run(True))
        m0, m1 = statistics.median(off), statistics.median(on)
        print("  DataLoader epoch, %d files of 4 KiB, 2 forked workers (s): untraced min %.3f median %.3f, "
              "traced min %.3f median %.3f, ratio %.3fx" % (nfiles, min(off), m0, min(on), m1, m1 / m0))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
