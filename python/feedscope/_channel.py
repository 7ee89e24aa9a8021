"""The sending end of feedscope's marker channel (docs/markers.md).

One AF_UNIX SOCK_SEQPACKET connection per process to the listener named in
FEEDSCOPE_MARKERS ("@name" is the abstract name "\\0name"; a name starting
with "/" is a path), made on the first record; close-on-exec, non-blocking
from the start (connect() to a Unix listener completes at once, into its
backlog), with a 1 MiB send buffer (~1300 records waiting for feedscope).
One record = one message = one send(MSG_NOSIGNAL). Nothing here ever raises
into the job, blocks it, or lets SIGPIPE reach it:

- EAGAIN (feedscope is behind; or, at connect, its backlog is full): that
  record is dropped and counted (`dropped`); a full backlog is tried again
  0.1 s later.
- EPIPE/ECONNRESET/ECONNREFUSED/ENOENT (feedscope is gone, or was never
  there): the channel is off for good; later records cost no system call.
  Silent: feedscope exiting or killed before the job is not the job's
  problem, and every Python process of the job would say it again.
- Anything else (a malformed variable, no socket to be had, a record the
  kernel refuses): dropped, and ONE line on stderr, prefixed "feedscope: ",
  for the whole process.

After fork() the child keeps the inherited connection (each record is one
message, so records of parent and children never interleave); the pid put in
records (the module global `pid`) is refreshed by an at-fork handler.
"""
import errno
import os
import sys
import time

ENV = "FEEDSCOPE_MARKERS"
MAX_RECORD = 1024
SNDBUF_BYTES = 1 << 20
MSG_NOSIGNAL = 0x4000        # Linux; replaced by socket.MSG_NOSIGNAL when the socket is made
_GONE = (errno.EPIPE, errno.ECONNRESET, errno.ECONNREFUSED, errno.ENOENT, errno.ENOTCONN)

pid = os.getpid()
dropped = 0          # records dropped because feedscope was behind
_sock = None         # the connected socket, once the first record was sent
_dead = False        # no more sends: feedscope gone, or unusable address
_retry_ns = 0        # backlog full: no new connect() before this time
_warned = set()      # keys warn() has already written a line for
_addr = None         # bytes/str address, None when the variable is unset
_spec = os.environ.get(ENV) or None

if _spec is not None:
    if _spec.startswith("@") and len(_spec) > 1:
        _addr = b"\0" + _spec[1:].encode("utf-8", "surrogateescape")
    elif _spec.startswith("/"):
        _addr = _spec
    else:
        _dead = True  # warned at the first record, not at import


def warn(msg, key="channel"):
    """Write "feedscope: MSG" on stderr, once per KEY per process (later calls
    with the same KEY do nothing). Never raises."""
    if key in _warned:
        return
    _warned.add(key)
    try:
        sys.stderr.write("feedscope: %s\n" % msg)
        sys.stderr.flush()
    except Exception:
        pass


def enabled():
    """True when the job runs under feedscope (FEEDSCOPE_MARKERS is set) and
    the channel has not been found dead."""
    return _spec is not None and not _dead


def _open():
    """Create and connect the socket; None on failure (the channel then dead,
    or, when feedscope's backlog is full, to be tried again later)."""
    global _sock, _dead, _retry_ns, dropped, MSG_NOSIGNAL
    if _retry_ns and time.monotonic_ns() < _retry_ns:
        dropped += 1
        return None
    try:
        import socket
        MSG_NOSIGNAL = getattr(socket, "MSG_NOSIGNAL", MSG_NOSIGNAL)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # close-on-exec by default
        s.setblocking(False)
    except OSError as e:
        _dead = True
        warn("cannot create the marker socket (%s); step markers are off" % e.strerror)
        return None
    try:
        s.connect(_addr)
    except OSError as e:
        s.close()
        if e.errno in (errno.EAGAIN, errno.EINPROGRESS):
            _retry_ns = time.monotonic_ns() + 100000000
            dropped += 1
            return None
        _dead = True
        if e.errno not in _GONE:
            warn("cannot connect to %s (%s); step markers are off" % (_spec, e.strerror))
        return None
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SNDBUF_BYTES)
    except OSError:
        pass
    _retry_ns = 0
    _sock = s
    return s


def send(rec):
    """Send one record (bytes, at most MAX_RECORD). Returns nothing and never
    raises; a record that cannot go now is dropped."""
    global dropped, _sock, _dead
    s = _sock
    if s is None:
        if _spec is None:
            return
        if _dead:
            if _addr is None:
                warn("%s=%r is not @NAME or /PATH; step markers are off" % (ENV, _spec))
            return
        s = _open()
        if s is None:
            return
    try:
        s.send(rec, MSG_NOSIGNAL)
    except (BlockingIOError, InterruptedError):
        dropped += 1
    except OSError as e:
        if e.errno in _GONE:
            _dead = True
            _sock = None
            try:
                s.close()
            except OSError:
                pass
        else:
            dropped += 1
            warn("a step marker was refused (%s); some steps may be missing" % e.strerror)


_BLANKS = bytes.maketrans(b" \t\n\r\v\f", b"______")


def clean(text, limit=64):
    """TEXT as ASCII bytes usable as one record field: whitespace becomes "_",
    anything non-ASCII a backslash escape, cut to LIMIT bytes."""
    b = str(text).encode("ascii", "backslashreplace").translate(_BLANKS)[:limit]
    return b or b"_"


def value_text(value):
    """A meta value as ASCII bytes: booleans true/false, None none, anything
    else str(); newlines become spaces."""
    if value is True:
        v = "true"
    elif value is False:
        v = "false"
    elif value is None:
        v = "none"
    else:
        v = str(value)
    return " ".join(v.splitlines()).encode("ascii", "backslashreplace")


def _after_fork_in_child():
    global pid
    pid = os.getpid()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
