"""A stranger on a job's marker channel (tests/integration/markers_peers.sh):
run as another uid, it finds the listening socket of feedscope PID in
/proc/net/unix, sends fake steps, a fake checkpoint phase and fake meta on
one connection, then holds HOLD more connections (each also sending a fake
step) and prints "held N" once they are all up. It keeps them until
feedscope exits or SECONDS pass, reconnecting those feedscope closed.

    python3 stranger.py FEEDSCOPE_PID HOLD SECONDS
Exit status 0 once done, 3 if no socket was found.
"""
import os
import socket
import sys
import time


def find_address(fs_pid):
    """The abstract name ("\\0feedscope-PID-...") of feedscope PID's listener."""
    prefix = "@feedscope-%d-" % fs_pid
    with open("/proc/net/unix") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 8 and parts[7].startswith(prefix):
                return b"\0" + parts[7][1:].encode()
    return None


def connect(addr):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.setblocking(False)
    try:
        s.connect(addr)
    except OSError:
        s.close()
        return None
    return s


def send(s, rec):
    try:
        s.send(rec)
        return True
    except OSError:
        return False


def fakes(pid):
    """50 slow steps, one 5 s checkpoint, a meta value with terminal escapes."""
    t0 = time.monotonic_ns()
    recs = [b"S1 %d train 0 %d %d %d %d" % (pid, i, t0 + i * 10**8, 9 * 10**8, 10**6)
            for i in range(50)]
    recs.append(b"P1 %d checkpoint %d %d" % (pid, t0, t0 + 5 * 10**9))
    recs.append(b"M1 %d user.owner \x1b[31mstranger\x1b[0m" % pid)
    recs.append(b"M1 %d loader.train.num_workers 64" % pid)
    return recs


def main():
    fs_pid, hold, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    addr = None
    for _ in range(100):
        addr = find_address(fs_pid)
        if addr:
            break
        time.sleep(0.05)
    if not addr:
        print("no marker socket for feedscope %d" % fs_pid, flush=True)
        return 3
    sent = 0
    first = connect(addr)
    for rec in fakes(os.getpid()):
        sent += first is not None and send(first, rec)
    conns = [first] if first else []
    while len(conns) < hold + 1:
        s = connect(addr)
        if s is None:
            time.sleep(0.001)  # backlog full: feedscope is behind
            continue
        sent += send(s, b"S1 %d train 0 999 %d 1 1" % (os.getpid(), time.monotonic_ns()))
        conns.append(s)
    print("held %d sent %d" % (len(conns) - 1, sent), flush=True)
    end = time.monotonic() + seconds
    while time.monotonic() < end and os.path.exists("/proc/%d" % fs_pid):
        time.sleep(0.05)
        # connections feedscope closed are opened again: the pressure stays
        for i, s in enumerate(conns):
            if send(s, b"S1 %d train 1 0 %d 1 1" % (os.getpid(), time.monotonic_ns())):
                continue
            s.close()
            n = connect(addr)
            if n is not None:
                conns[i] = n
    for s in conns:
        s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
