"""Time per stage inside DataLoader workers (docs/markers.md, "Stages").

_torch._patch() calls patch(torch): torch.utils.data's _worker_loop is
replaced, in every process of the job, by a wrapper of the same name (so a
`spawn` worker, which gets its target by name, gets it too). In a worker,
before the original loop runs, the wrapper puts timers where only the
DataLoader's own machinery looks:

- the fetcher (_DatasetKind.create_fetcher, patched in the worker only, for
  the worker's own dataset): it gets a stand-in for the dataset whose
  __getitem__ / __getitems__ (map-style) or iterator's __next__ (iterable)
  times the real one, a timed collate_fn, and a timed fetch (one call = one
  batch: the worker's busy time). The job never sees these: WorkerInfo,
  worker_init_fn and the dataset itself are the real ones.
- the transforms the dataset holds: in each of its attributes (and those of
  the datasets it wraps, `dataset` / `datasets`, three levels deep), a
  pipeline with a list of callables in `.transforms` (torchvision's and
  torchaudio's Compose, transforms v2, MONAI's, or the job's own class of
  that shape) has each element replaced by a timing stand-in (isinstance(),
  repr(), attributes and pickling are the element's: it pickles as the
  element itself); a torch.nn.Sequential gets forward pre- and post-hooks
  on each child; a single callable in an attribute whose name holds
  "transform" is wrapped the same way. This is the one change the job
  could see, and only inside the worker process (its copy of the dataset).

Each stage sums its calls, wall time and the thread's CPU time
(time.thread_time_ns); about once a second (checked at the end of a batch)
and when the worker's loop ends, one G1 record per stage goes to feedscope,
plus one for the worker's whole time since the last ones. Return values and
exceptions pass through unchanged. FEEDSCOPE_STAGES=0 turns it off; a
failure turns it off for that worker after one line on stderr.
"""
import os
import sys
import time
import types

from . import _channel as _ch

FLUSH_NS = 1000000000
current_loader = None  # the loader whose workers are being started (set by _torch; fork inherits it)
_mono = time.monotonic_ns
_cpu = time.thread_time_ns
_worker = None         # this process's _Worker, in a DataLoader worker
_MAX_DEPTH = 3


def enabled():
    return os.environ.get("FEEDSCOPE_STAGES", "1").lower() not in ("0", "off", "no", "false")


def _failed(exc):
    _ch.warn("timing the DataLoader's stages failed (%s: %s); the worker goes on without it"
             % (type(exc).__name__, exc), key="stages")


def _same(obj):
    """What a timing stand-in unpickles to: the element it stood for."""
    return obj


class _Worker:
    """One worker's stages: name -> [calls, wall_ns, cpu_ns, kind]."""

    def __init__(self, loader_b, dataset):
        self.loader_b = loader_b
        self.dataset = dataset
        self.stages = {}
        self.t_last = _mono()
        self.cpu_last = _cpu()
        self.next_flush = self.t_last + FLUSH_NS
        self.seen = set()

    def acc(self, kind, name):
        name_b = _ch.clean(name, 127)
        a = self.stages.get(name_b)
        if a is None:
            a = self.stages[name_b] = [0, 0, 0, kind.encode()]
        return a

    def flush(self):
        now, cpu = _mono(), _cpu()
        head = b"G1 %d %s %d %d " % (_ch.pid, self.loader_b, now, now - self.t_last)
        _ch.send(head + b"worker 1 %d %d worker" % (now - self.t_last, cpu - self.cpu_last))
        self.t_last, self.cpu_last = now, cpu
        self.next_flush = now + FLUSH_NS
        for name_b, a in self.stages.items():
            if a[0]:
                _ch.send(head + b"%s %d %d %d %s" % (a[3], a[0], a[1], a[2], name_b))
                a[0] = a[1] = a[2] = 0


def _timed(fn, a):
    """fn with its calls, wall and CPU time added to a."""
    mono, cpu = _mono, _cpu

    def timed(*args, **kwargs):
        t, c = mono(), cpu()
        try:
            return fn(*args, **kwargs)
        finally:
            a[2] += cpu() - c
            a[1] += mono() - t
            a[0] += 1
    return timed


class _Stage:
    """A transform, timed: calls go through, everything else is the
    transform's (attributes, repr, isinstance, pickling)."""
    __slots__ = ("_fs_fn", "_fs_acc")

    def __init__(self, fn, a):
        object.__setattr__(self, "_fs_fn", fn)
        object.__setattr__(self, "_fs_acc", a)

    def __call__(self, *args, **kwargs):
        a = self._fs_acc
        t, c = _mono(), _cpu()
        try:
            return self._fs_fn(*args, **kwargs)
        finally:
            a[2] += _cpu() - c
            a[1] += _mono() - t
            a[0] += 1

    def __getattr__(self, attr):
        return getattr(self._fs_fn, attr)

    def __setattr__(self, attr, value):
        setattr(self._fs_fn, attr, value)

    def __repr__(self):
        return repr(self._fs_fn)

    def __reduce_ex__(self, protocol):
        return (_same, (self._fs_fn,))

    @property
    def __class__(self):
        return type(self._fs_fn)


# ------------------------------------------------------------ the dataset's stand-in

class _Map:
    """What the fetcher sees of a map-style dataset: its items, timed."""
    __slots__ = ("_get",)

    def __init__(self, dataset, a):
        self._get = _timed(dataset.__getitem__, a)

    def __getitem__(self, index):
        return self._get(index)


class _MapItems(_Map):
    __slots__ = ("__getitems__",)

    def __init__(self, dataset, a, items):
        super().__init__(dataset, a)
        self.__getitems__ = _timed(dataset.__getitems__, items)


class _Iterable:
    """What the fetcher sees of an iterable dataset: its iterator, timed."""
    __slots__ = ("_ds", "_a")

    def __init__(self, dataset, a):
        self._ds, self._a = dataset, a

    def __iter__(self):
        return _TimedIter(iter(self._ds), self._a)


class _TimedIter:
    __slots__ = ("_next",)

    def __init__(self, it, a):
        self._next = _timed(it.__next__, a)

    def __iter__(self):
        return self

    def __next__(self):
        return self._next()


# ------------------------------------------------------------ transforms

def _label(obj):
    """A transform's name: a function's own, else its class's."""
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return getattr(obj, "__name__", None) or type(obj).__name__
    return type(obj).__name__


def _is_pipeline(v):
    """A Compose-like object: callable, with a non-empty list (or tuple) of
    callables in its own `transforms` attribute."""
    d = getattr(v, "__dict__", None)
    if not isinstance(d, dict) or not callable(v):
        return False
    ts = d.get("transforms")
    return isinstance(ts, (list, tuple)) and len(ts) > 0 and all(callable(t) for t in ts)


def _wrap_pipeline(w, path, v):
    ts = v.__dict__["transforms"]
    wrapped = [t if isinstance(t, _Stage) else
               _Stage(t, w.acc("transform", "%s[%d]:%s" % (path, i, _label(t)))) for i, t in enumerate(ts)]
    if isinstance(ts, list):
        ts[:] = wrapped
    else:
        v.__dict__["transforms"] = type(ts)(wrapped)


def _hook_sequential(w, path, seq):
    """forward hooks on each child of an nn.Sequential (a module's own
    children cannot be swapped for stand-ins)."""
    for i, child in enumerate(seq):
        a = w.acc("transform", "%s[%d]:%s" % (path, i, _label(child)))
        start = [0, 0]

        def pre(module, inputs, start=start):
            start[0], start[1] = _mono(), _cpu()

        def post(module, inputs, output, a=a, start=start):
            if start[0]:
                a[2] += _cpu() - start[1]
                a[1] += _mono() - start[0]
                a[0] += 1
                start[0] = 0
        child.register_forward_pre_hook(pre)
        child.register_forward_hook(post)


def _instrument(w, obj, prefix, depth, torch):
    """Time the pipelines obj's attributes hold (and the datasets it wraps)."""
    d = getattr(obj, "__dict__", None)
    if not isinstance(d, dict) or depth > _MAX_DEPTH:
        return
    sequential = getattr(getattr(torch, "nn", None), "Sequential", None)
    for attr, v in list(d.items()):
        if id(v) in w.seen or isinstance(v, (str, bytes, int, float, type)) or v is None:
            continue
        path = prefix + attr
        if sequential is not None and isinstance(v, sequential):
            w.seen.add(id(v))
            _hook_sequential(w, path, v)
        elif _is_pipeline(v):
            w.seen.add(id(v))
            _wrap_pipeline(w, path, v)
        elif "transform" in attr.lower() and callable(v) and not isinstance(v, _Stage):
            w.seen.add(id(v))
            d[attr] = _Stage(v, w.acc("transform", "%s:%s" % (path, _label(v))))
        elif attr in ("dataset", "datasets"):
            w.seen.add(id(v))
            if isinstance(v, (list, tuple)):
                for i, sub in enumerate(v[:64]):
                    _instrument(w, sub, "%s%s[%d]." % (prefix, attr, i), depth + 1, torch)
            else:
                _instrument(w, v, "%s%s." % (prefix, attr), depth + 1, torch)


# ------------------------------------------------------------ the worker

def _fetcher_for(w, orig_create, torch):
    kinds = torch.utils.data.dataloader._DatasetKind

    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        if dataset is not w.dataset:  # a loader the worker runs itself
            return orig_create(kind, dataset, auto_collation, collate_fn, drop_last)
        try:
            name = type(dataset).__name__
            if id(dataset) not in w.seen:
                w.seen.add(id(dataset))
                _instrument(w, dataset, "", 0, torch)
            if kind == kinds.Map:
                a = w.acc("getitem", name + ".__getitem__")
                items = getattr(dataset, "__getitems__", None)
                stand_in = _MapItems(dataset, a, w.acc("getitem", name + ".__getitems__")) if items else _Map(dataset, a)
            else:
                stand_in = _Iterable(dataset, w.acc("getitem", name + ".__iter__"))
            timed_collate = _timed(collate_fn, w.acc("collate", "collate_fn"))
            fetcher = orig_create(kind, stand_in, auto_collation, timed_collate, drop_last)
            fetch = _timed(fetcher.fetch, w.acc("fetch", "fetch"))

            def fetch_and_flush(index):
                try:
                    return fetch(index)
                finally:
                    if _mono() >= w.next_flush:
                        w.flush()
            fetcher.fetch = fetch_and_flush
            return fetcher
        except Exception as e:
            _failed(e)
            return orig_create(kind, dataset, auto_collation, collate_fn, drop_last)
    return staticmethod(create_fetcher)


def _begin(torch, params, args, kwargs):
    """In a worker: the _Worker for the dataset _worker_loop got, and the
    fetcher patched; None when it cannot be found."""
    global _worker
    ds = kwargs["dataset"] if "dataset" in kwargs else args[params.index("dataset")]
    loader_b = current_loader or _ch.clean(type(ds).__name__)
    _worker = w = _Worker(loader_b, ds)
    kinds = torch.utils.data.dataloader._DatasetKind
    orig_create = kinds.__dict__["create_fetcher"].__func__
    kinds.create_fetcher = _fetcher_for(w, orig_create, torch)
    return w


def patch(torch, functools):
    """Replace torch's _worker_loop by the timing wrapper (in this process:
    the parent hands it to its workers by name). Idempotent."""
    if not enabled():
        return
    worker_mod = sys.modules.get("torch.utils.data._utils.worker")
    orig = getattr(worker_mod, "_worker_loop", None)
    if orig is None or getattr(orig, "_feedscope", False):
        return
    import inspect
    params = list(inspect.signature(orig).parameters)
    if "dataset" not in params:
        return

    @functools.wraps(orig)
    def _worker_loop(*args, **kwargs):
        w = None
        if not _ch._dead and _ch._spec is not None:
            try:
                w = _begin(torch, params, args, kwargs)
            except Exception as e:
                _failed(e)
        try:
            return orig(*args, **kwargs)
        finally:
            if w is not None:
                try:
                    w.flush()
                except Exception:
                    pass

    _worker_loop._feedscope = True
    worker_mod._worker_loop = _worker_loop
