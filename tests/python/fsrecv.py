"""A stand-in for feedscope's receiving end, for tests: listens on an abstract
AF_UNIX SOCK_SEQPACKET socket (docs/markers.md) and collects every record
sent to it.

As a library:
    with Receiver() as r:
        subprocess.run(cmd, env=r.env(hook=True))
        recs = r.records()          # list of Record, in arrival order

As a command (the job gets the environment `feedscope run --pytorch` gives):
    python3 fsrecv.py [--no-hook] [--kill-after-steps N] --out FILE -- CMD [ARGS...]
writes one record per line to FILE and exits with CMD's status.
--kill-after-steps N closes the socket once N step records (S1, S2) came (feedscope gone).
"""
import os
import select
import socket
import subprocess
import sys
import threading
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PYDIR = os.path.join(TOP, "python")
HOOKDIR = os.path.join(PYDIR, "feedscope_hook")


class Record:
    """One parsed record: kind (S1/P1/M1), pid, and the fields after the pid."""
    __slots__ = ("raw", "kind", "pid", "fields")

    def __init__(self, raw):
        self.raw = raw
        parts = raw.split(" ")
        self.kind = parts[0]
        self.pid = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        self.fields = parts[2:]

    # S1 (or S2) PID LOADER EPOCH STEP T_NS WAIT_NS COMPUTE_NS
    def step(self):
        f = self.fields
        return (f[0], int(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5]))

    def __repr__(self):
        return "Record(%r)" % self.raw


class Receiver:
    """A SEQPACKET listener on an abstract name, like feedscope's, with a
    thread that accepts connections and reads every record into self.raw."""

    def __init__(self, name=None):
        self.name = name or "feedscope-test-%d-%d" % (os.getpid(), int(time.monotonic_ns() % 1000000007))
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.bind(b"\0" + self.name.encode())
        self.sock.listen(128)
        self.sock.setblocking(False)
        self.conns = []
        self.raw = []
        self.steps_seen = 0
        self.on_step = None       # called with the count of step records (S1, S2) so far
        self._lock = threading.Lock()
        self._stop = False
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self):
        while not self._stop:
            ready, _, _ = select.select([self.sock] + self.conns, [], [], 0.05)
            for s in ready:
                if s is self.sock:
                    try:
                        c, _ = self.sock.accept()
                        c.setblocking(False)
                        self.conns.append(c)
                    except OSError:
                        pass
                    continue
                self._read(s)

    def _read(self, c):
        while not self._stop:
            try:
                data = c.recv(4096)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if not data:             # every holder of this connection is gone
                self.conns.remove(c)
                c.close()
                return
            rec = data.decode("ascii", "replace")
            with self._lock:
                self.raw.append(rec)
            if rec.startswith("S1 ") or rec.startswith("S2 "):
                self.steps_seen += 1
                if self.on_step is not None:
                    self.on_step(self.steps_seen)

    def address(self):
        return "@" + self.name

    def env(self, hook=False, base=None):
        """The environment feedscope run gives a job (with --pytorch if HOOK)."""
        env = dict(os.environ if base is None else base)
        env["FEEDSCOPE_MARKERS"] = self.address()
        paths = [PYDIR] + ([HOOKDIR] if hook else [])
        if env.get("PYTHONPATH"):
            paths.append(env["PYTHONPATH"])
        env["PYTHONPATH"] = os.pathsep.join(paths)
        if hook:
            env["FEEDSCOPE_HOOK"] = "pytorch"
        else:
            env.pop("FEEDSCOPE_HOOK", None)
        return env

    def close_socket(self):
        """feedscope goes away: the job's sends get EPIPE, its new
        connections ECONNREFUSED. Records not read yet are lost, as they are
        when feedscope is killed."""
        self._stop = True
        if threading.current_thread() is not self._thread:
            self._thread.join()
        for s in [self.sock] + self.conns:
            try:
                s.close()
            except OSError:
                pass
        self.conns = []

    def records(self, quiet_s=0.1):
        """Every record so far, parsed, once none has come for QUIET_S."""
        n = -1
        while True:
            with self._lock:
                if len(self.raw) == n or self._stop:
                    return [Record(r) for r in self.raw]
                n = len(self.raw)
            time.sleep(quiet_s)

    def close(self):
        self.close_socket()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def main(argv):
    hook = True
    out = None
    kill_after = None
    while argv and argv[0] != "--":
        a = argv.pop(0)
        if a == "--no-hook":
            hook = False
        elif a == "--out":
            out = argv.pop(0)
        elif a == "--kill-after-steps":
            kill_after = int(argv.pop(0))
        else:
            sys.exit("fsrecv: unknown option %s" % a)
    if not argv or out is None:
        sys.exit("usage: fsrecv.py [--no-hook] [--kill-after-steps N] --out FILE -- CMD...")
    cmd = argv[1:]
    with Receiver() as r:
        if kill_after is not None:
            def on_step(n):
                if n >= kill_after:
                    r.close_socket()
            r.on_step = on_step
        rc = subprocess.call(cmd, env=r.env(hook=hook))
        recs = r.records()
    with open(out, "w") as f:
        for rec in recs:
            f.write(rec.raw + "\n")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
