"""Python stacks for feedscope at a stall (docs/verdicts.md, "Stalls").

`feedscope run` with the hook sets FEEDSCOPE_STACKS="SIGNUM:DIR". install()
(from feedscope_hook/sitecustomize.py, in every Python process of the job)
registers faulthandler on that signal, writing every thread's stack to
DIR/PID, and tells feedscope through the marker channel (meta
hook.stacks.PID): feedscope sends the signal only to a process that said so
(a real-time signal's default action would kill it) and only while a stall
lasts, once per stall. A process forked from one registers again with a
file of its own (os.register_at_fork), so a DataLoader worker's stack is
its own.

faulthandler writes from its C signal handler, without the GIL: a process
whose every thread is stuck still answers. The handler is installed with
SA_RESTART, so an interrupted read, recv or wait goes on as before; calls
the kernel never restarts (sleep, poll and select with a timeout) come back
with EINTR, which Python retries since 3.5 (PEP 475).

Nothing here raises into the job: a signal already in use by the job (a
handler of its own, or ignored) is left alone, and any failure is one line
on stderr.
"""
import os
import signal
import sys

from . import _channel as _ch

ENV = "FEEDSCOPE_STACKS"
_file = None  # the open dump file: faulthandler holds only its descriptor


def _spec():
    """(signum, dir) from the variable, or None."""
    v = os.environ.get(ENV, "")
    sig, _, d = v.partition(":")
    if not sig.isdigit() or not d.startswith("/"):
        return None
    return int(sig), d


def _register():
    global _file
    spec = _spec()
    if spec is None:
        return
    sig, d = spec
    try:
        import faulthandler
        cur = signal.getsignal(sig)
        if _file is None and cur not in (signal.SIG_DFL, None):
            _ch.warn("signal %d is in use by the job; no Python stacks at a stall" % sig, key="stacks")
            return
        f = open(os.path.join(d, str(os.getpid())), "w")
        faulthandler.register(sig, file=f, all_threads=True, chain=False)
        old, _file = _file, f
        if old is not None:
            old.close()
        _ch.send(("M1 %d hook.stacks.%d %d" % (os.getpid(), os.getpid(), sig)).encode())
    except Exception as e:
        _ch.warn("no Python stacks at a stall (%s: %s)" % (type(e).__name__, e), key="stacks")


def install():
    if _spec() is None or not _ch.enabled():
        return
    _register()
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_register)
