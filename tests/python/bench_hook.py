"""Per-step cost of feedscope.watch() (the loop the zero-code hook runs too):
a tight loop over range(N), bare, through the no-op path (no
FEEDSCOPE_MARKERS), and watched with a real receiver; then a paced loop
(~10 000 steps/s) to count what arrives. Under `feedscope run` the receiver
is feedscope; otherwise a forked process listening like feedscope does.
Then the device timeline's cost (feedscope.device_timeline(): two events a
step, read with query(), a D1 record a step), with a Python stand-in of
torch.cuda.Event's interface whose events are complete at once (a figure
every step: the most records), against the same loop without a timeline,
both in chunks the receiver keeps up with; and the stand-in's own calls
alone, to tell the bookkeeping from the events.
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


_perf = time.perf_counter_ns


class StandInEvent:
    """torch.cuda.Event's interface in Python: record() notes the time,
    query() is True at once, elapsed_time() in ms."""
    __slots__ = ("t",)

    def __init__(self):
        self.t = 0

    def record(self, stream=None):
        self.t = _perf()

    def query(self):
        return True

    def elapsed_time(self, end):
        return (end.t - self.t) / 1e6


def standin_calls_ns(n):
    """The stand-in's own calls of one step (two records, two queries, one
    elapsed_time), n times."""
    a, b = StandInEvent(), StandInEvent()
    t0 = time.perf_counter_ns()
    for _ in range(n):
        a.record()
        b.record()
        if b.query() and a.query():
            a.elapsed_time(b)
    return time.perf_counter_ns() - t0


def chunked_ns(feedscope, chunk, chunks, name):
    """A watched loop in chunks of CHUNK steps with a pause between them
    (the receiver takes every record): the summed loop time."""
    total = 0
    for _ in range(chunks):
        total += loop_ns(feedscope.watch(range(chunk), name=name))
        time.sleep(0.002)
    return total


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
    # the device timeline: events off, then on (a stand-in), chunks of 100
    # steps (two records a step with events on: within the send buffer
    # feedscope's socket gets), best of a.repeat; then the same with the
    # records dropped before the socket (feedscope's Python alone)
    dchunk, dchunks = 100, max(1, n // 400)
    m = dchunk * dchunks
    off = best(lambda: chunked_ns(feedscope, dchunk, dchunks, "events_off"), a.repeat)
    feedscope.device_timeline(StandInEvent, name="stand-in")
    dropped_before = _channel.dropped
    on = best(lambda: chunked_ns(feedscope, dchunk, dchunks, "events_on"), a.repeat)
    dropped_events = _channel.dropped - dropped_before
    send, feedscope._send = feedscope._send, lambda rec: None
    on_nosend = best(lambda: loop_ns(feedscope.watch(range(m), name="on_nosend")), a.repeat)
    feedscope.device_timeline(None)
    off_nosend = best(lambda: loop_ns(feedscope.watch(range(m), name="off_nosend")), a.repeat)
    feedscope._send = send
    calls = best(lambda: standin_calls_ns(m), a.repeat)
    us = lambda ns: ns / m / 1000.0
    print("  device timeline (feedscope.device_timeline, a Python stand-in of torch.cuda.Event whose events are"
          " complete at once; %d steps, best of %d):" % (m, a.repeat))
    print("    events off          %7.3f µs/step" % us(off))
    print("    events on           %7.3f µs/step   (+%.3f µs; %d records dropped)"
          % (us(on), us(on - off), dropped_events))
    print("    records not sent:   events off %.3f, on %.3f µs/step (+%.3f µs: the stand-in's own calls %.3f µs,"
          " feedscope's event bookkeeping %.3f µs; the rest of the +%.3f above is sending the D1 record)"
          % (us(off_nosend), us(on_nosend), us(on_nosend - off_nosend), us(calls),
             us(on_nosend - off_nosend - calls), us(on - off)))
    if rpid is not None:
        _channel._sock.close()
        os.waitpid(rpid, 0)
        got = int(os.read(rfd, 64) or b"0")
        print("  records received by the listener: %d of %d sent (steps, D1 and M1 records)"
              % (got, a.repeat * n + chunks * chunk + a.paced + a.repeat * m * 3 + 1))


if __name__ == "__main__":
    main()
