"""Per-step cost of feedscope.watch() (the loop the zero-code hook runs too):
a tight loop over range(N), bare, through the no-op path (no
FEEDSCOPE_MARKERS), and watched with a real receiver; then a paced loop
(~10 000 steps/s) to count what arrives. Under `feedscope run` the receiver
is feedscope; otherwise a forked process listening like feedscope does.
Prints figures, asserts nothing.

    python3 tests/python/bench_hook.py [--steps N] [--repeat R] [--paced N]
"""
import argparse
import os
import select
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))


def receiver(name):
    """Fork a process that listens on @NAME and reads every record until no
    record came for 2 s; returns (pid, fd of a pipe that gets the count)."""
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    lsock.bind(b"\0" + name.encode())
    lsock.listen(16)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        n = 0
        conns = []
        while True:
            ready, _, _ = select.select([lsock] + conns, [], [], 2.0)
            if not ready:
                break
            for s in ready:
                if s is lsock:
                    conns.append(lsock.accept()[0])
                elif s.recv(2048):
                    n += 1
                else:
                    conns.remove(s)
        os.write(w, b"%d" % n)
        os._exit(0)
    os.close(w)
    lsock.close()
    return pid, r


def loop_ns(iterable):
    t0 = time.perf_counter_ns()
    for _ in iterable:
        pass
    return time.perf_counter_ns() - t0


def best(fn, repeat):
    return min(fn() for _ in range(repeat))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--paced", type=int, default=20000, help="steps of the paced loop")
    a = ap.parse_args()
    n = a.steps

    under_feedscope = bool(os.environ.get("FEEDSCOPE_MARKERS"))
    rpid = None
    if not under_feedscope:
        name = "feedscope-bench-%d" % os.getpid()
        rpid, rfd = receiver(name)
        os.environ["FEEDSCOPE_MARKERS"] = "@" + name
    import feedscope
    from feedscope import _channel

    bare = best(lambda: loop_ns(range(n)), a.repeat)
    watched = best(lambda: loop_ns(feedscope.watch(range(n), name="bench")), a.repeat)
    dropped_tight = _channel.dropped
    # The same in chunks of 1000 steps (fit in the send buffer) with a pause
    # for the receiver between them: the cost when every record is taken.
    chunk, chunks = 1000, max(1, n // 1000)
    bare_chunks = watched_chunks = 0
    for _ in range(chunks):
        bare_chunks += loop_ns(range(chunk))
        watched_chunks += loop_ns(feedscope.watch(range(chunk), name="chunk"))
        time.sleep(0.005)
    dropped_chunks = _channel.dropped - dropped_tight
    dropped_tight_total = _channel.dropped
    spec, _channel._spec = _channel._spec, None   # the path taken without feedscope
    noop = best(lambda: loop_ns(feedscope.watch(range(n), name="bench")), a.repeat)
    _channel._spec = spec

    pace_s = 100e-6
    t0 = time.perf_counter()
    for _ in feedscope.watch(range(a.paced), name="paced"):
        end = time.perf_counter() + pace_s
        while time.perf_counter() < end:   # busy: sleep() would oversleep
            pass
    paced_rate = a.paced / (time.perf_counter() - t0)
    dropped_paced = _channel.dropped - dropped_tight_total

    per = lambda ns: ns / n / 1000.0
    print("feedscope.watch per-step cost (%d steps, best of %d, Python %s, receiver: %s)"
          % (n, a.repeat, sys.version.split()[0], "feedscope" if under_feedscope else "forked listener"))
    print("  bare loop          %7.3f µs/step" % per(bare))
    print("  no-op (unset)      %7.3f µs/step   (+%.3f µs)" % (per(noop), per(noop - bare)))
    print("  watched, receiver  %7.3f µs/step   (+%.3f µs)" % (per(watched), per(watched - bare)))
    print("  watched, in chunks %7.3f µs/step   (+%.3f µs; %d chunks of %d steps, a pause between: %d dropped)"
          % (watched_chunks / (chunks * chunk) / 1000.0,
             (watched_chunks - bare_chunks) / (chunks * chunk) / 1000.0, chunks, chunk, dropped_chunks))
    print("  tight loop: %d of %d records dropped by the sender (feedscope behind: dropped, never blocked)"
          % (dropped_tight, a.repeat * n))
    print("  paced loop: %d steps at %.0f steps/s, %d dropped by the sender"
          % (a.paced, paced_rate, dropped_paced))
    if rpid is not None:
        _channel._sock.close()
        os.waitpid(rpid, 0)
        got = int(os.read(rfd, 64) or b"0")
        print("  records received by the listener: %d of %d sent"
              % (got, a.repeat * n + chunks * chunk + a.paced))


if __name__ == "__main__":
    main()
