"""The in-kernel cost of a process's BPF programs, for the benchmarks.

Run time is counted by the kernel only while statistics are enabled. They
are enabled here with the bpf(2) command BPF_ENABLE_STATS, which holds them
on for as long as the returned descriptor is open (a reference count: the
sysctl kernel.bpf_stats_enabled is not written, and a killed benchmark
leaves nothing behind), only while measuring. Each program's run count and
time are read from the owner's /proc/PID/fdinfo (prog_id, run_time_ns,
run_cnt), its name from `bpftool prog show`.

What run_time_ns holds: the program's body, between two clock reads the
kernel makes around it. Not in it: the tracepoint's dispatch to the
program, and the clock reads themselves (the statistics' own cost, paid by
every BPF program on the machine while they are on); the benchmarks'
end-to-end figures are taken with statistics off."""
import ctypes
import json
import os
import subprocess

_SYS_BPF = {"x86_64": 321, "aarch64": 280}.get(os.uname().machine)
_BPF_ENABLE_STATS = 32
_BPF_STATS_RUN_TIME = 0


def enable():
    """Turn run-time statistics on; returns a descriptor to close (os.close)
    to give them back, or None (not root, an old kernel)."""
    if _SYS_BPF is None:
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.create_string_buffer(_BPF_STATS_RUN_TIME.to_bytes(4, "little") + bytes(4))
    fd = libc.syscall(_SYS_BPF, _BPF_ENABLE_STATS, attr, 8)
    return fd if fd >= 0 else None


def snapshot(pid):
    """{prog_id: (run_cnt, run_time_ns)} of the BPF programs pid holds open."""
    out = {}
    d = f"/proc/{pid}/fdinfo"
    try:
        fds = os.listdir(d)
    except OSError:
        return out
    for fd in fds:
        try:
            with open(os.path.join(d, fd)) as f:
                kv = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
        except OSError:
            continue
        if "prog_id" in kv and "run_cnt" in kv:
            out[int(kv["prog_id"])] = (int(kv["run_cnt"]), int(kv["run_time_ns"]))
    return out


def names(ids):
    """{prog_id: name} from bpftool (an empty dict without it)."""
    try:
        got = json.loads(subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True,
                                        text=True).stdout)
    except (OSError, ValueError):
        return {}
    return {p["id"]: p.get("name", "?") for p in got if p["id"] in ids}


def delta(a, b):
    """{prog_id: (runs, ns)} grown from snapshot a to snapshot b."""
    return {k: (b[k][0] - a.get(k, (0, 0))[0], b[k][1] - a.get(k, (0, 0))[1]) for k in b}
