"""Run fio 4 KiB random reads on DEV under `feedscope run -i 0.05
--system-interval 0` (the disk table every tick, not once a second, so that
its rows can be cut at iostat's windows), with
`iostat -dx -y DEV 1` alongside; timestamp each iostat report on
CLOCK_MONOTONIC as it arrives, and compare iostat's r/s, rkB/s and %util with
the run file's over exactly the windows iostat covered (reports 2..N-1, so
both tools see a steady load). Exits 1 if any differs by more than 5%."""
import sqlite3
import subprocess
import sys
import time

feedscope, dev = sys.argv[1], sys.argv[2]
name = dev.rsplit("/", 1)[1]
db = "iostat.db"
fio = ["fio", "--name=r", f"--filename={dev}", "--rw=randread", "--bs=4k", "--direct=1",
       "--ioengine=psync", "--runtime=7", "--time_based", "--output=/dev/null"]
rec = subprocess.Popen([feedscope, "run", "-q", "-f", "-o", db, "-i", "0.05", "--system-interval", "0", "--"] + fio)
time.sleep(0.5)
ios = subprocess.Popen(["iostat", "-dx", "-y", name, "1", "6"], stdout=subprocess.PIPE, text=True)
header, reports = None, []
for line in ios.stdout:
    fields = line.split()
    if fields and fields[0] == "Device":
        header = fields
    elif fields and fields[0] == name and header:
        reports.append((time.monotonic_ns(), dict(zip(header, fields))))
ios.wait()
if rec.wait() != 0:
    sys.exit(f"feedscope run exited {rec.returncode}")
con = sqlite3.connect(db)
start = int(con.execute("SELECT value FROM meta WHERE key='start_monotonic_ns'").fetchone()[0])
steady = reports[1:-1]
if len(steady) < 3:
    sys.exit(f"only {len(reports)} iostat reports")
win_lo = (steady[0][0] - start) / 1e9 - 1.0
win_hi = (steady[-1][0] - start) / 1e9
row = con.execute(
    "SELECT sum(reads_per_s * dt_s), sum(read_bytes_per_s * dt_s), sum(util_pct * dt_s), sum(dt_s),"
    " max(dt_s) FROM disk WHERE device = ? AND t > ? AND t <= ?", (name, win_lo + 0.025, win_hi + 0.025)).fetchone()
if not row[4] or row[4] > 0.2:
    sys.exit(f"--system-interval 0: disk rows {row[4]} s apart, expected every 0.05 s tick")
ours = {"r/s": row[0] / row[3], "rkB/s": row[1] / row[3] / 1024, "%util": row[2] / row[3]}
theirs = {k: sum(float(r[1][k]) for r in steady) / len(steady) for k in ours}
bad = False
for k in ours:
    rel = abs(ours[k] - theirs[k]) / max(abs(theirs[k]), 1e-9)
    print(f"{k:6s} feedscope {ours[k]:10.2f}  iostat {theirs[k]:10.2f}  diff {100 * rel:5.2f}%"
          f"  (window {win_hi - win_lo:.2f} s, {row[3]:.2f} s of samples)")
    bad |= rel > 0.05
sys.exit(1 if bad else 0)
