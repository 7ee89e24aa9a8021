"""The zero-code PyTorch hook (`feedscope run --pytorch`).

install() (called from feedscope_hook/sitecustomize.py) puts one finder in
front of sys.meta_path. It answers nothing but the import of the `torch`
package, and only to wrap torch's own loader so that, once torch/__init__
has run completely, the hook patches:

- DataLoader.__iter__: each iter() of a loader is one timed epoch, exactly
  like feedscope.watch() (the returned iterator is a thin proxy; attributes,
  len() and isinstance() are the real iterator's). The loader's name is its
  dataset's class name ("ImageFolder"); the second loader over the same class
  is "ImageFolder_2", and so on, in the order of their first iteration. At its
  first iteration each loader's configuration goes to meta as
  loader.NAME.KNOB (see CONFIG_KNOBS) and, once per process, hook.pytorch =
  torch.__version__.
- DataLoader.__init__: a subclass whose __iter__ does not go through
  DataLoader.__iter__ cannot be timed; the hook says so once per class.
- torch.save: each call is a `checkpoint` phase.
- the device timeline (feedscope.device_timeline(); docs/markers.md, "The
  device's own clock"): unless the job registered one, torch's own, looked
  for at each epoch's start and at its second step: the first backend of
  torch.cuda, torch.xpu, torch.mps, torch.mtia, torch.hpu and a PrivateUse1
  backend whose is_initialized() says True, with its own Event class, else
  the generic torch.Event for it, enable_timing=True. Nothing but
  is_initialized() is called before: the hook never initialises a device,
  so a CPU job, or a job whose DataLoader workers fork before CUDA is up,
  is left as it is. A backend without is_initialized() (torch.mps today)
  is not used.
- torch.distributed's collectives and point-to-point calls (COLLECTIVES):
  each outermost call is a `collective` phase (a call made inside another,
  as all_gather_object makes, is part of it). With async_op=True the call
  only enqueues: its wait() is not seen. DDP's gradient all-reduce runs in
  C++ hooks during backward and is not seen either.

Under `feedscope tune` (FEEDSCOPE_TUNE set) DataLoader.__init__ also puts
the trial's settings into the loader's keyword arguments, and the job ends
after the trial's steps (_tune.py): the one case where the hook changes the
job, on purpose. Otherwise:

Then the finder leaves sys.meta_path. Nothing here changes what the job sees:
return values, exceptions and iteration are the original ones, and any
failure inside the hook is swallowed after one line on stderr.
DataLoader workers run this too (sitecustomize under spawn, inherited under
fork): they patch, but never iterate a loader; what they send is the time
per stage of their pipeline (_stages.py: torch's _worker_loop is replaced
by a timing one of the same name; docs/markers.md "Stages").
"""
import sys
import time

from . import _channel as _ch
from . import _stages
from . import _Epoch, _mono

# functools, types and weakref are imported by _patch(), once torch is there:
# this module is imported at start-up by every Python process of the job.

_send = _ch.send

_DataLoader = None       # the patched class, once torch is imported
_loaders = {}            # id(loader) -> _Loader
_name_counts = {}        # base name -> loaders named from it so far
_checked = None          # WeakSet: DataLoader subclasses already looked at
_base_calls = 0          # calls of DataLoader.__iter__ so far (subclass check)
_said_version = False
_tune = None             # the _tune module under `feedscope tune`


def _failed(exc):
    _ch.warn("the PyTorch hook failed (%s: %s); the job goes on without it"
             % (type(exc).__name__, exc), key="hook")


# ------------------------------------------------------------ installing

class _Finder:
    """A sys.meta_path finder for `torch` only: it finds torch with the other
    finders and wraps its loader (see _PostImport); for any other name it
    returns None at once, so imports go on as before. It answers every search
    for torch (importlib.util.find_spec("torch") as an "is it installed?" test
    does not use it up) until torch has been executed."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch":
            return None
        try:
            spec = None
            for finder in list(sys.meta_path):
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
            if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
                return None
            spec.loader = _PostImport(spec.loader, self)
            return spec
        except Exception as e:
            _failed(e)
            return None


class _PostImport:
    """torch's own loader, plus the patching once torch/__init__ has run.
    The real loader is put back into the spec and module before torch's code
    runs, so torch never sees this object."""

    def __init__(self, loader, finder):
        self._loader = loader
        self._finder = finder

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module):
        loader = self._loader
        try:
            module.__spec__.loader = loader
            module.__loader__ = loader
        except Exception:
            pass
        try:
            loader.exec_module(module)
        finally:
            try:
                sys.meta_path.remove(self._finder)
            except ValueError:
                pass
        try:
            _patch(module)
        except Exception as e:
            _failed(e)

    def __getattr__(self, attr):
        return getattr(self._loader, attr)


def install():
    """Patch torch when it gets imported (now, if it already is). Idempotent."""
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "save"):
        try:
            _patch(torch)
        except Exception as e:
            _failed(e)
        return
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


def _patch(torch):
    global _DataLoader, _checked, functools, types, weakref
    import functools
    import os
    import types
    import weakref
    DataLoader = torch.utils.data.dataloader.DataLoader
    if _DataLoader is not None or getattr(DataLoader.__iter__, "_feedscope", False):
        return
    _checked = weakref.WeakSet()
    global _tune
    if os.environ.get("FEEDSCOPE_TUNE"):
        from . import _tune
    orig_iter = DataLoader.__iter__
    orig_init = DataLoader.__init__
    orig_save = torch.save

    @functools.wraps(orig_iter)
    def __iter__(self):
        global _base_calls
        _base_calls += 1
        t_iter = _mono()
        try:  # the name its workers put on their stages (they fork inside orig_iter)
            info = _loaders.get(id(self))
            if info is None:
                info = _register(self, _name_for(self))
            _stages.current_loader = info.name_b
        except Exception as e:
            _failed(e)
        it = orig_iter(self)
        try:
            return _epoch(self, it, t_iter)
        except Exception as e:
            _failed(e)
            return it

    @functools.wraps(orig_init)
    def __init__(self, *args, **kwargs):
        if _tune is not None and _tune.knobs:
            try:
                args, kwargs = _tune.override(orig_init, (self,) + args, kwargs)
                args = args[1:]
            except Exception as e:  # arguments torch itself will refuse: its error, not ours
                _ch.warn("feedscope tune: the DataLoader settings were not changed (%s: %s)"
                         % (type(e).__name__, e), key="tune override")
        orig_init(self, *args, **kwargs)
        cls = type(self)
        if cls is not DataLoader and cls not in _checked:
            try:
                _checked.add(cls)
                _check_subclass(cls, DataLoader)
            except Exception as e:
                _failed(e)

    @functools.wraps(orig_save)
    def save(*args, **kwargs):
        t_start = _mono()
        try:
            return orig_save(*args, **kwargs)
        finally:
            _send(b"P1 %d checkpoint %d %d" % (_ch.pid, t_start, _mono()))

    __iter__._feedscope = True
    DataLoader.__iter__ = __iter__
    DataLoader.__init__ = __init__
    torch.save = save
    serialization = getattr(torch, "serialization", None)
    if getattr(serialization, "save", None) is orig_save:
        serialization.save = save
    _patch_collectives(torch)
    _stages.patch(torch, functools)
    _DataLoader = DataLoader
    sys.modules[__package__]._find_auto = _find_timeline


def _find_timeline():
    """torch's device timeline where its backend is initialised already
    (never initialising one: only is_initialized() is called): a
    feedscope._Timeline, or None."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    names = ["cuda", "xpu", "mps", "mtia", "hpu"]
    try:
        extra = torch._C._get_privateuse1_backend_name()   # a name, looked up
        if extra and extra not in names:
            names.append(extra)
    except Exception:
        pass
    for name in names:
        mod = getattr(torch, name, None)
        ready = getattr(mod, "is_initialized", None)
        if ready is None or not ready():
            continue
        event = getattr(mod, "Event", None)
        if event is not None:
            return _timeline(event, "torch." + name)
        generic = getattr(torch, "Event", None)
        if generic is not None:
            dev = torch.device(name)
            return _timeline(lambda **kw: generic(dev, **kw), "torch.Event(%s)" % name)
    return None


def _timeline(event, name):
    from . import _Timeline
    return _Timeline(lambda: event(enable_timing=True), name)


COLLECTIVES = ("all_reduce", "all_gather", "all_gather_into_tensor", "all_gather_object",
               "reduce_scatter", "reduce_scatter_tensor", "broadcast", "broadcast_object_list",
               "barrier", "monitored_barrier", "reduce", "all_to_all", "all_to_all_single",
               "gather", "gather_object", "scatter", "scatter_object_list", "send", "recv")


def _patch_collectives(torch):
    """Wrap each of COLLECTIVES in torch.distributed and in the module that
    defines it (distributed_c10d), once; the same wrapper in both, so a call
    through either name is one phase."""
    dist = getattr(torch, "distributed", None)
    if dist is None or not getattr(dist, "is_available", lambda: False)():
        return
    import threading
    depth = threading.local()
    c10d = getattr(dist, "distributed_c10d", None)
    for name in COLLECTIVES:
        orig = getattr(dist, name, None)
        if orig is None or not callable(orig) or getattr(orig, "_feedscope", False):
            continue

        def make(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                level = getattr(depth, "n", 0)
                if level:
                    return fn(*args, **kwargs)
                depth.n = 1
                t_start = _mono()
                try:
                    return fn(*args, **kwargs)
                finally:
                    depth.n = 0
                    _send(b"P1 %d collective %d %d" % (_ch.pid, t_start, _mono()))
            wrapper._feedscope = True
            return wrapper

        wrapped = make(orig)
        setattr(dist, name, wrapped)
        if c10d is not None and getattr(c10d, name, None) is orig:
            setattr(c10d, name, wrapped)


# ------------------------------------------------------------ loaders

class _TorchEpoch(_Epoch):
    """An epoch of a DataLoader; isinstance() sees the real iterator's class."""
    __slots__ = ()

    @property
    def __class__(self):
        return type(self._fs_it)


class _Loader:
    __slots__ = ("name_b", "epochs", "adopted")

    def __init__(self, name_b):
        self.name_b = name_b
        self.epochs = 0
        self.adopted = False


def _epoch(loader, it, t_iter):
    info = _loaders.get(id(loader))
    if info is None:
        info = _register(loader, _name_for(loader))
    if info.adopted or _ch._dead:
        return it
    epoch = info.epochs
    info.epochs = epoch + 1
    ep = _TorchEpoch(it, info.name_b, epoch, t_iter)
    _time_parts(it, ep._fs_st)
    return ep


def _time_parts(it, st):
    """Time the DataLoader's own steps inside next() (docs/markers.md, "The
    parts of next()"): its sampler (_next_index), taking a batch off the
    workers' queue (_get_data: wall time, and the thread's CPU in it, which
    is the unpickling), and the pin thread's CPU. Instance attributes of
    this iterator, wrapped once (a persistent workers' iterator is the same
    object every epoch: its wrappers stay, the epoch gets their counters).
    Return values and exceptions pass through unchanged."""
    try:
        d = getattr(it, "__dict__", None)
        if d is None:
            return
        parts = d.get("_fs_parts")
        if parts is None:
            nxt = d.get("_next_index") or getattr(it, "_next_index", None)
            if nxt is None:
                return
            parts = [0, 0, 0, 0, None, 0]
            mono, cpu = _mono, time.thread_time_ns

            def _next_index():
                t = mono()
                try:
                    return nxt()
                finally:
                    parts[0] += mono() - t

            it._next_index = _next_index
            get = getattr(it, "_get_data", None)  # the multi-process iterator's
            if get is not None:
                def _get_data():
                    t, c = mono(), cpu()
                    try:
                        return get()
                    finally:
                        parts[2] += cpu() - c
                        parts[1] += mono() - t

                it._get_data = _get_data
            d["_fs_parts"] = parts
        pin = getattr(it, "_pin_memory_thread", None)
        if pin is not None and getattr(pin, "ident", None) and hasattr(time, "pthread_getcpuclockid"):
            parts[4] = time.pthread_getcpuclockid(pin.ident)
            parts[5] = time.clock_gettime_ns(parts[4])
        else:
            parts[4] = None
        parts[0] = parts[1] = parts[2] = parts[3] = 0
        st.parts = parts
    except Exception as e:
        _failed(e)


def adopt(iterable, name):
    """feedscope.watch(loader, name) was called: the hook does not time that
    loader itself; its configuration is recorded under NAME."""
    if _DataLoader is None or not isinstance(iterable, _DataLoader):
        return
    try:
        name_b = _ch.clean(name)
        info = _loaders.get(id(iterable))
        if info is None:
            info = _register(iterable, name_b)
        elif info.name_b != name_b:
            info.name_b = name_b
            _send_config(iterable, name_b)
        info.adopted = True
    except Exception as e:
        _failed(e)


def _register(loader, name_b):
    info = _Loader(name_b)
    key = id(loader)
    weakref.finalize(loader, _loaders.pop, key, None)
    _loaders[key] = info
    _send_config(loader, name_b)
    return info


def _name_for(loader):
    """The dataset's class name, made a plain word; a counter after it for the
    second and later loaders over the same class."""
    base = type(loader.dataset).__name__
    base = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in base)
    base = base[:100] or "loader"
    n = _name_counts.get(base, 0) + 1
    _name_counts[base] = n
    return _ch.clean(base if n == 1 else "%s_%d" % (base, n))


def _qualname(obj):
    cls = type(obj)
    return "%s.%s" % (cls.__module__, cls.__qualname__)


def _start_method(loader):
    ctx = loader.multiprocessing_context
    if ctx is None:
        return "default"
    return getattr(ctx, "_name", None) or ctx.get_start_method()


def _batch_size(loader):
    if loader.batch_size is not None:
        return loader.batch_size
    return getattr(loader.batch_sampler, "batch_size", None)


def _shuffles(loader):
    """true/false, or "unknown" for a sampler the hook does not know."""
    data = sys.modules.get("torch.utils.data")
    sampler = loader.sampler
    batch_sampler = loader.batch_sampler
    if batch_sampler is not None and not isinstance(batch_sampler, data.BatchSampler):
        sampler = getattr(batch_sampler, "sampler", None)
    elif batch_sampler is not None:
        sampler = batch_sampler.sampler
    random = tuple(getattr(data, n) for n in
                   ("RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler")
                   if hasattr(data, n))
    if isinstance(sampler, random):
        return True
    distributed = getattr(data, "DistributedSampler", None)
    if distributed is not None and isinstance(sampler, distributed):
        return bool(sampler.shuffle)
    if isinstance(sampler, data.SequentialSampler) or \
            type(sampler).__name__ == "_InfiniteConstantSampler":
        return False
    flag = getattr(sampler, "shuffle", None)
    return flag if isinstance(flag, bool) else "unknown"


def _dataset_kind(loader):
    data = sys.modules.get("torch.utils.data")
    return "iterable" if isinstance(loader.dataset, data.IterableDataset) else "map"


CONFIG_KNOBS = (
    ("num_workers", lambda l: l.num_workers),
    ("batch_size", _batch_size),
    ("prefetch_factor", lambda l: l.prefetch_factor),
    ("pin_memory", lambda l: l.pin_memory),
    ("persistent_workers", lambda l: l.persistent_workers),
    ("multiprocessing_context", _start_method),
    ("drop_last", lambda l: l.drop_last),
    ("timeout", lambda l: l.timeout),
    ("shuffle", _shuffles),
    ("dataset", lambda l: _qualname(l.dataset)),
    ("dataset_kind", _dataset_kind),
    ("sampler", lambda l: _qualname(l.sampler)),
    ("batch_sampler", lambda l: None if l.batch_sampler is None else _qualname(l.batch_sampler)),
)


def _send_rank(torch, pid):
    """The process's rank as torch.distributed knows it (a job started by
    torch.multiprocessing.spawn has no RANK variable to read), once, with
    its first loader: meta hook.rank.PID (and hook.world_size.PID)."""
    try:
        dist = getattr(torch, "distributed", None)
        if dist is None or not dist.is_available() or not dist.is_initialized():
            return
        rank, world = dist.get_rank(), dist.get_world_size()
    except Exception:
        return  # a torch without these, or a group in a bad state: nothing to say
    _send(b"M1 %d hook.rank.%d %d" % (pid, pid, rank))
    _send(b"M1 %d hook.world_size.%d %d" % (pid, pid, world))


def _send_config(loader, name_b):
    global _said_version
    pid = _ch.pid
    if not _said_version:
        _said_version = True
        torch = sys.modules.get("torch")
        _send(b"M1 %d hook.pytorch %s" % (pid, _ch.value_text(getattr(torch, "__version__", None))))
        _send_rank(torch, pid)
    for knob, get in CONFIG_KNOBS:
        try:
            value = get(loader)
        except Exception:
            continue  # an attribute this torch (or subclass) lacks
        rec = b"M1 %d loader.%s.%s %s" % (pid, name_b, knob.encode(), _ch.value_text(value))
        _send(rec[:_ch.MAX_RECORD])


# ------------------------------------------------------------ subclasses

def _check_subclass(cls, DataLoader):
    """If CLS overrides DataLoader.__iter__, wrap the override (same result,
    same exceptions) to see whether it goes through DataLoader.__iter__."""
    for owner in cls.__mro__:
        if owner is DataLoader:
            return
        fn = owner.__dict__.get("__iter__")
        if fn is not None:
            break
    else:
        return
    if getattr(fn, "_feedscope_check", False) or not isinstance(fn, types.FunctionType):
        return  # a plain function only: anything else is called differently

    @functools.wraps(fn)
    def __iter__(self):
        calls = _base_calls
        result = fn(self)
        if calls == _base_calls and isinstance(self, DataLoader):  # owner may be a mixin
            try:
                _untimed(owner, result)
            except Exception:
                pass
        return result

    __iter__._feedscope_check = True
    setattr(owner, "__iter__", __iter__)


def _untimed(owner, result):
    """An override returned without calling DataLoader.__iter__. A generator
    that has not started yet and names __iter__ will probably call it when
    iterated: no warning for it."""
    code = getattr(result, "gi_code", None)
    if code is not None and getattr(result, "gi_frame", None) is not None and \
            "__iter__" in code.co_names:
        import inspect
        if inspect.getgeneratorstate(result) == inspect.GEN_CREATED:
            return
    name = "%s.%s" % (owner.__module__, owner.__qualname__)
    _ch.warn("%s.__iter__ does not call DataLoader.__iter__, so its steps are not "
             "timed (feedscope.watch(loader) times them)" % name, key="subclass " + name)
