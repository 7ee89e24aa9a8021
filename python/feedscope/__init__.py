"""feedscope step markers: tell `feedscope run` where a training job's time goes.

    import feedscope
    for batch in feedscope.watch(loader, name="train"):   # wait vs compute per step
        train_step(batch)
    with feedscope.phase("checkpoint"):                   # or @feedscope.phase("eval")
        save()
    feedscope.meta("model.params", 25_000_000)            # a run-level fact

Records go to the channel `feedscope run` advertises in FEEDSCOPE_MARKERS
(docs/markers.md). Without it every call is a no-op: watch() returns its
argument, phase() does nothing. Nothing here raises into the job.
Standard library only; Python >= 3.8.
"""
import atexit
import sys
import time

from . import _channel as _ch

# functools and weakref are imported when first needed: this package is
# imported at start-up by every Python process of a job run with the hook.

__all__ = ["watch", "phase", "meta", "enabled"]

_mono = time.monotonic_ns
_send = _ch.send
_live = None   # WeakSet of the epochs whose last step may still be pending
_tune_step = None  # under `feedscope tune`: counts the steps, ends the trial (_tune.py)


def _tune_setup():
    global _tune_step
    import os
    if os.environ.get("FEEDSCOPE_TUNE") and _ch._spec is not None:
        from . import _tune
        if _tune.stop_after:
            _tune_step = _tune.step


def enabled():
    """True when records go somewhere: the job runs under feedscope and the
    channel is not known to be gone."""
    return _ch.enabled()


def meta(key, value):
    """Record a run-level fact, stored in the run file's meta table as
    user.KEY (whitespace in KEY becomes "_") = VALUE (str(value); True/False/
    None become true/false/none). A KEY that starts with "loader." is kept as
    it is: the configuration of a loader the PyTorch hook does not see
    (feedscope.meta("loader.train.num_threads", 8) for a DALI pipeline)."""
    if _ch._spec is None:
        return
    k = _ch.clean(key, 120)
    if not (k.startswith(b"user.") or k.startswith(b"loader.")):
        k = b"user." + k
    rec = b"M1 %d %s %s" % (_ch.pid, k, _ch.value_text(value))
    _send(rec[:_ch.MAX_RECORD])


# ---------------------------------------------------------------- steps

class _Steps:
    """Timing state of one epoch: batches handed out, and the pending step
    (its batch was handed over at t_got after waiting `wait` ns; its compute
    ends when the next batch is asked for). The first step's wait starts at
    t_iter, when the epoch's iterator was asked for: starting a DataLoader's
    workers happens inside iter(), and the loop waits for it all the same."""
    __slots__ = ("head", "n", "t_got", "wait", "owner", "t_iter", "__weakref__")

    def __init__(self, name_b, epoch, t_iter):
        self.head = b"%s %d " % (name_b, epoch)
        self.n = 0
        self.t_got = 0
        self.wait = 0
        self.owner = _ch.pid
        self.t_iter = t_iter

    def flush(self):
        """End the pending step now (the epoch was closed or dropped). Only in
        the process that started the epoch: a forked copy says nothing."""
        t_got = self.t_got
        if t_got and self.owner == _ch.pid:
            self.t_got = 0
            _send(b"S1 %d %s%d %d %d %d" % (_ch.pid, self.head, self.n - 1, t_got,
                                            self.wait, _mono() - t_got))


def _new_live():
    global _live
    import weakref
    _live = weakref.WeakSet()
    return _live


class _Epoch:
    """The iterator of one epoch: the underlying iterator's __next__, timed.
    Other attributes are the underlying iterator's."""
    __slots__ = ("_fs_it", "_fs_next", "_fs_st", "__weakref__")

    def __init__(self, it, name_b, epoch, t_iter=0):
        st = _Steps(name_b, epoch, t_iter)
        object.__setattr__(self, "_fs_it", it)
        object.__setattr__(self, "_fs_next", it.__next__)
        object.__setattr__(self, "_fs_st", st)
        (_live if _live is not None else _new_live()).add(st)

    def __iter__(self):
        return self

    def __next__(self):
        st = self._fs_st
        t = _mono()
        t_got = st.t_got
        if t_got:
            _send(b"S1 %d %s%d %d %d %d" % (_ch.pid, st.head, st.n - 1, t_got, st.wait, t - t_got))
            st.t_got = 0
            if _tune_step is not None and st.owner == _ch.pid:
                _tune_step()
            t = _mono()
        elif not st.n and st.t_iter:
            t = st.t_iter
        try:
            batch = self._fs_next()
        except StopIteration:
            # The call that ends the epoch is no step, but the loop waits in
            # it (a DataLoader shuts its workers down here): an epoch_end phase.
            if st.owner == _ch.pid:
                _send(b"P1 %d epoch_end %d %d" % (_ch.pid, t, _mono()))
            raise
        t_got = _mono()
        st.t_got = t_got
        st.wait = t_got - t
        st.n += 1
        return batch

    def close(self):
        """End the epoch: the pending step is recorded, then the underlying
        iterator's close() (if it has one) is called."""
        self._fs_st.flush()
        close = getattr(self._fs_it, "close", None)
        if close is not None:
            return close()
        return None

    def __del__(self):
        try:
            self._fs_st.flush()
        except Exception:  # interpreter teardown: modules half gone
            pass

    def __getattr__(self, attr):
        if attr.startswith("_fs_"):  # half-built (its __init__ raised)
            raise AttributeError(attr)
        return getattr(self._fs_it, attr)

    def __setattr__(self, attr, value):
        setattr(self._fs_it, attr, value)

    def __len__(self):
        return len(self._fs_it)

    def __bool__(self):
        return bool(self._fs_it)

    def __repr__(self):
        return "<feedscope epoch of %r>" % (self._fs_it,)


class _Watched:
    """An iterable whose every iter() is one timed epoch. Attribute access,
    len(), indexing and `in` go to the wrapped object."""
    __slots__ = ("_fs_iterable", "_fs_name", "_fs_epochs", "__weakref__")

    def __init__(self, iterable, name):
        object.__setattr__(self, "_fs_iterable", iterable)
        object.__setattr__(self, "_fs_name", _ch.clean(name))
        object.__setattr__(self, "_fs_epochs", 0)

    def __iter__(self):
        t_iter = _mono()
        it = iter(self._fs_iterable)
        epoch = self._fs_epochs
        object.__setattr__(self, "_fs_epochs", epoch + 1)
        if _ch._dead:  # feedscope went away: nothing to time for
            return it
        return _Epoch(it, self._fs_name, epoch, t_iter)

    def __getattr__(self, attr):
        if attr.startswith("_fs_"):
            raise AttributeError(attr)
        return getattr(self._fs_iterable, attr)

    def __setattr__(self, attr, value):
        setattr(self._fs_iterable, attr, value)

    def __len__(self):
        return len(self._fs_iterable)

    def __bool__(self):
        return bool(self._fs_iterable)

    def __getitem__(self, key):
        return self._fs_iterable[key]

    def __contains__(self, item):
        return item in self._fs_iterable

    def __repr__(self):
        return "feedscope.watch(%r, name=%r)" % (self._fs_iterable, self._fs_name.decode())


def watch(iterable, name="train"):
    """Time every step of every epoch of ITERABLE (a DataLoader or any batch
    iterable): each iter() is one epoch; the time inside __next__ is the wait,
    the time from a batch being handed over to the next being asked for is the
    compute. Returns a wrapper to loop over (attributes, len() and indexing go
    to ITERABLE), or ITERABLE itself when not running under feedscope.

    A PyTorch DataLoader watched here is not also timed by the zero-code hook;
    its configuration is recorded under NAME."""
    if _ch._spec is None:
        return iterable
    hook = _hook()
    if hook is not None:
        hook.adopt(iterable, name)
    return _Watched(iterable, name)


def _hook():
    return sys.modules.get("feedscope._torch")


# ---------------------------------------------------------------- phases

class _Phase:
    """A named phase: a context manager, and a decorator (each call of the
    decorated function is one phase). Recorded when it ends, also when its
    body raises; the exception goes on unchanged."""
    __slots__ = ("_name", "_starts")

    def __init__(self, name):
        self._name = _ch.clean(name)
        self._starts = []

    def __enter__(self):
        self._starts.append(_mono())
        return self

    def __exit__(self, exc_type, exc, tb):
        t_end = _mono()
        try:
            t_start = self._starts.pop()
        except IndexError:
            return False
        _send(b"P1 %d %s %d %d" % (_ch.pid, self._name, t_start, t_end))
        return False

    def __call__(self, fn):
        import functools
        name = self._name

        if getattr(getattr(fn, "__code__", None), "co_flags", 0) & 0x80:  # CO_COROUTINE
            @functools.wraps(fn)
            async def async_phase(*args, **kwargs):
                t_start = _mono()
                try:
                    return await fn(*args, **kwargs)
                finally:
                    _send(b"P1 %d %s %d %d" % (_ch.pid, name, t_start, _mono()))
            return async_phase

        @functools.wraps(fn)
        def in_phase(*args, **kwargs):
            t_start = _mono()
            try:
                return fn(*args, **kwargs)
            finally:
                _send(b"P1 %d %s %d %d" % (_ch.pid, name, t_start, _mono()))
        return in_phase


class _NoPhase:
    """phase() without feedscope: does nothing, decorates nothing."""
    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return False

    def __call__(self, fn):
        return fn


_NO_PHASE = _NoPhase()


def phase(name):
    """`with feedscope.phase("checkpoint"): ...` or `@feedscope.phase("eval")`:
    records the named phase (start and end) when it ends."""
    if _ch._spec is None:
        return _NO_PHASE
    return _Phase(name)


@atexit.register
def _flush_at_exit():
    # An epoch still alive at exit (a loop left with its iterator kept)
    # records its last step now, while the channel still works.
    try:
        for st in list(_live or ()):
            st.flush()
    except Exception:
        pass


_tune_setup()
