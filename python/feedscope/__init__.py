"""feedscope step markers: tell `feedscope run` where a training job's time goes.

    import feedscope
    for batch in feedscope.watch(loader, name="train"):   # wait vs compute per step
        train_step(batch)
    with feedscope.phase("checkpoint"):                   # or @feedscope.phase("eval")
        save()
    feedscope.meta("model.params", 25_000_000)            # a run-level fact
    feedscope.device_timeline(make_event)                 # the device's own idle per wait

Records go to the channel `feedscope run` advertises in FEEDSCOPE_MARKERS
(docs/markers.md). Without it every call is a no-op: watch() returns its
argument, phase() does nothing. Nothing here raises into the job.
Standard library only; Python >= 3.8.
"""
import atexit
import os
import sys
import time

from . import _channel as _ch

# functools and weakref are imported when first needed: this package is
# imported at start-up by every Python process of a job run with the hook.

__all__ = ["watch", "phase", "meta", "enabled", "device_timeline"]

_mono = time.monotonic_ns
_send = _ch.send
_live = None   # WeakSet of the epochs whose last step may still be pending
_tune_step = None  # under `feedscope tune`: counts the steps, ends the trial (_tune.py)

# The device timeline (device_timeline(); docs/markers.md, "The device's own
# clock"): _timeline is the one in force, the job's (_registered) or else the
# hook's own (_auto, found by _find_auto: set by the PyTorch hook), or None.
RING_MAX = 64      # a loop's steps whose events are awaited, at most
_timeline = None
_registered = None
_auto = None
_find_auto = None
_said_timeline = None   # the timeline hook.device_timeline.PID was sent for


def _tune_setup():
    global _tune_step
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
    workers happens inside iter(), and the loop waits for it all the same.

    With a device timeline, also the ring of the steps whose device figure
    is awaited: ring[first .. first+count) (mod len(ring)), oldest first,
    each a _Slot with the two events of its wait; `ev`: the pending step
    has its slot in the ring (it is sent as S2, its figure later as D1)."""
    __slots__ = ("head", "n", "t_got", "wait", "owner", "t_iter", "ring", "first", "count", "ev",
                 "parts", "__weakref__")

    def __init__(self, name_b, epoch, t_iter):
        self.head = b"%s %d " % (name_b, epoch)
        self.n = 0
        self.t_got = 0
        self.wait = 0
        self.owner = _ch.pid
        self.t_iter = t_iter
        self.ring = []
        self.first = 0
        self.count = 0
        self.ev = False
        # The DataLoader's own steps inside next(), where the hook times them
        # (_torch.py): ns in its sampler, in taking batches off the workers'
        # queue (wall, and the thread's CPU: the unpickling), and the pin
        # thread's CPU; None where not timed. Sent with each step, then zeroed.
        self.parts = None

    def record(self, t_end):
        """The pending step's record, ended at t_end (its parts with it)."""
        p = self.parts
        head = b"S2 %d %s%d %d %d %d" if self.ev else b"S1 %d %s%d %d %d %d"
        rec = head % (_ch.pid, self.head, self.n - 1, self.t_got, self.wait, t_end - self.t_got)
        if p is not None:
            if p[4] is not None:  # the pin thread's CPU since the last step's record
                try:
                    now = time.clock_gettime_ns(p[4])
                    p[3], p[5] = now - p[5], now
                except OSError:  # the thread ended
                    p[4] = None
            rec += b" %d %d %d %d" % (p[0], p[1], p[2], p[3])
            p[0] = p[1] = p[2] = p[3] = 0
        return rec

    def flush(self):
        """End the pending step now (the epoch was closed or dropped), and
        the wait for device figures: the steps whose events are not complete
        go without. Only in the process that started the epoch: a forked
        copy says nothing."""
        if self.owner != _ch.pid:
            return
        if self.t_got:
            _send(self.record(_mono()))
            self.t_got = 0
        if self.ring:
            self.done()

    # ---- the device's events (only with a timeline; never on the no-timeline path)

    def begin(self, tl):
        """The slot for the wait about to start, its first event recorded on
        the current stream; None if the timeline failed. Its events are known
        complete (or new): one not known complete is never recorded again."""
        ring = self.ring
        n = len(ring)
        try:
            if self.count == n:
                if n < RING_MAX:            # warm-up: one more slot
                    ring.insert(self.first, tl.slot())
                    if n:
                        self.first += 1
                    n += 1
                else:                       # the device is RING_MAX steps behind: the
                    self.give_up(1)         # oldest goes without; its slot waits in the pool
                    i = (self.first + self.count) % n
                    ring[i].tl.keep(ring[i])
                    ring[i] = tl.slot()
            i = (self.first + self.count) % n
            slot = ring[i]
            if slot.tl is not tl:           # the timeline was changed since
                slot = ring[i] = tl.slot()
            slot.a.record()
            return slot
        except Exception as e:
            _timeline_failed(e, self)
            return None

    def end(self, slot):
        """The batch came: the second event, and the step (number self.n)
        joins the ring."""
        try:
            slot.b.record()
        except Exception as e:
            _timeline_failed(e, self)
            self.ev = False
            return
        slot.step = self.n
        self.count += 1
        self.ev = True

    def poll(self):
        """Send the device figure (D1) of each step at the front of the ring
        whose two events are complete, in order; stop at the first that is
        not. Never waits: query() only."""
        ring = self.ring
        n = len(ring)
        i = self.first
        try:
            while self.count:
                slot = ring[i]
                if not (slot.b.query() and slot.a.query()):
                    break
                ms = slot.a.elapsed_time(slot.b)
                if 0 <= ms < 1e9:
                    _send(b"D1 %d %s%d %d" % (_ch.pid, self.head, slot.step, int(ms * 1e6 + 0.5)))
                else:                       # NaN, negative: not a figure
                    _send(b"D1 %d %s%d -" % (_ch.pid, self.head, slot.step))
                i = (i + 1) % n
                self.first = i
                self.count -= 1
        except Exception as e:
            _timeline_failed(e, self)

    def give_up(self, k):
        """The K oldest steps of the ring go without their figure (D1 -)."""
        ring = self.ring
        for _ in range(min(k, self.count)):
            slot = ring[self.first]
            _send(b"D1 %d %s%d -" % (_ch.pid, self.head, slot.step))
            self.first = (self.first + 1) % len(ring)
            self.count -= 1

    def done(self):
        """The epoch is over: the figures complete by now are sent, the rest
        go without; the slots go back to their timeline for later epochs."""
        if self.count:
            self.poll()
            self.give_up(self.count)
        ring, self.ring, self.first, self.count = self.ring, [], 0, 0
        for slot in ring:
            slot.tl.keep(slot)


class _Slot:
    """Two events of one timeline (the start and the end of a wait) and the
    step whose wait they measure."""
    __slots__ = ("a", "b", "step", "tl")

    def __init__(self, tl):
        self.tl = tl
        self.step = 0
        self.a = tl.factory()
        self.b = tl.factory()


class _Timeline:
    """A device timeline: FACTORY() returns a new event (record(), query(),
    elapsed_time(other) in ms: torch.cuda.Event's interface); NAME says
    where it came from. Keeps the slots of ended epochs (and of steps given
    up) for later ones: one is taken again only once both its events say
    they are complete (else it is dropped, and a new one made)."""
    __slots__ = ("factory", "name", "free")

    def __init__(self, factory, name):
        self.factory = factory
        self.name = name
        self.free = []

    def keep(self, slot):
        if self is _timeline and len(self.free) < RING_MAX:
            self.free.append(slot)

    def slot(self):
        free = self.free
        while True:
            try:
                slot = free.pop()           # (another thread's loop may take one too)
            except IndexError:
                return _Slot(self)
            if slot.a.query() and slot.b.query():
                return slot


def _use(tl):
    global _timeline
    _timeline = tl
    if tl is not None and tl is not _said_timeline and _ch._spec is not None:
        _say_timeline(tl)


def _say_timeline(tl):
    global _said_timeline
    _said_timeline = tl
    _send((b"M1 %d hook.device_timeline.%d %s" % (_ch.pid, _ch.pid, _ch.value_text(tl.name)))[:_ch.MAX_RECORD])


def _resolve():
    """Under the PyTorch hook, with no timeline of the job's: torch's, once
    its backend is initialised (never initialised here)."""
    global _auto
    if _find_auto is None or _registered is not None:
        return
    try:
        tl = _find_auto()
    except Exception:
        tl = None
    if tl is not None:
        _auto = tl
        _use(tl)


def _timeline_failed(exc, st):
    """An event call raised: one line on stderr, no timeline in this process
    from now on; the steps of ST awaiting a figure go without it."""
    global _registered, _auto, _find_auto
    _ch.warn("the device timeline failed (%s: %s); steps go on without the device's idle time"
             % (type(exc).__name__, exc), key="timeline")
    _registered = _auto = _find_auto = None
    _use(None)
    st.give_up(st.count)
    st.ring, st.first, st.count = [], 0, 0


def device_timeline(factory, name="user"):
    """Measure the accelerator's own idle time inside each wait for a batch.

    FACTORY() must return a new event object of the device's timeline with
    record() (on the stream the training loop launches on), query() -> bool
    (complete, without waiting) and elapsed_time(other) -> milliseconds from
    this event to OTHER (the interface of torch.cuda.Event(enable_timing=
    True); e.g. lambda: torch.cuda.Event(enable_timing=True)). Every timed
    loop then records an event just before asking for a batch and one just
    after it came; nothing is launched between them, so the device time
    between them is the device's idle inside the wait (0 when it was still
    busy with earlier work). Events are read with query() only, never waited
    for: a step's figure goes to feedscope once its events are complete, a
    few steps later; those not complete when the epoch ends, the loop is
    closed or the process exits go without (NULL in the run file). Events
    are reused: one is recorded again only once known complete.

    device_timeline(None) takes it back (the zero-code hook's own, for
    torch.cuda / torch.xpu when initialised, applies again). The timeline is
    per process: a forked child has none until it registers its own. An
    event call that raises turns the timeline off for the process (one line
    on stderr). Without feedscope this does nothing."""
    global _registered
    if _ch._spec is None:
        return
    if factory is None:
        _registered = None
        _use(_auto)
        return
    if not callable(factory):
        _ch.warn("feedscope.device_timeline(%r): not callable; ignored" % (factory,), key="timeline arg")
        return
    _registered = _Timeline(factory, name if name == "user" else "user: %s" % name)
    _use(_registered)


def _timeline_after_fork():
    global _registered, _auto, _timeline, _said_timeline
    _registered = _auto = _timeline = _said_timeline = None


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
        if _find_auto is not None and _timeline is None:
            _resolve()

    def __iter__(self):
        return self

    def __next__(self):
        st = self._fs_st
        t = _mono()
        t_got = st.t_got
        if t_got:
            _send(st.record(t))
            st.t_got = 0
            if st.count and st.owner == _ch.pid:
                st.poll()
            if _tune_step is not None and st.owner == _ch.pid:
                _tune_step()
            if st.n == 1 and _find_auto is not None and _timeline is None:
                _resolve()  # CUDA is initialised by the first step, if at all
            t = _mono()
        elif not st.n and st.t_iter:
            t = st.t_iter
        tl = _timeline
        slot = st.begin(tl) if tl is not None and st.owner == _ch.pid else None
        try:
            batch = self._fs_next()
        except StopIteration:
            # The call that ends the epoch is no step, but the loop waits in
            # it (a DataLoader shuts its workers down here): an epoch_end phase.
            if st.owner == _ch.pid:
                _send(b"P1 %d epoch_end %d %d" % (_ch.pid, t, _mono()))
                if st.ring:
                    st.done()
            raise
        t_got = _mono()
        if slot is not None:
            st.end(slot)
        elif st.ev:
            st.ev = False
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


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_timeline_after_fork)

_tune_setup()
