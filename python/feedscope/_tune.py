"""One trial of `feedscope tune`: the DataLoader settings to use, and when
to end the job.

feedscope tune runs the job under `feedscope run --pytorch` with
FEEDSCOPE_TUNE set to space-separated KEY=VALUE words:

    num_workers=8 prefetch_factor=4 pin_memory=1 persistent_workers=0
    batch_size=64 worker_threads=1 steps=60

- Each knob named overrides that keyword argument of every DataLoader the
  process creates (the hook's DataLoader.__init__ calls override()); the
  others are the job's own. A setting torch would refuse is made valid the
  way a user would: with num_workers=0, prefetch_factor and
  persistent_workers are left at their defaults. batch_size is not applied
  to a loader built from a batch_sampler (it has none).
- worker_threads=N is no keyword argument: each DataLoader's worker_init_fn
  becomes one (_ThreadsInit, picklable for the spawn context) that calls
  the job's own first, then torch.set_num_threads(N) in the worker (the
  fix of docs/verdicts.md's oversubscription finding). A loader without
  workers is left alone.
- steps=K: after K steps of this process's timed loaders, the next call for
  a batch raises SystemExit(0) (see step()): the job ends as if its loop
  had been interrupted, its finally blocks and atexit handlers run, and its
  DataLoader workers are shut down by the DataLoader itself.

What was applied goes to meta as hook.tune.applied.N (one line per loader,
in the order of their creation) and the end as hook.tune.ended (the steps
done); the loaders' effective settings are the hook's loader.NAME.* keys.
Without FEEDSCOPE_TUNE nothing here runs.
"""
import os

from . import _channel as _ch

KNOBS = ("num_workers", "prefetch_factor", "pin_memory", "persistent_workers", "batch_size", "worker_threads")
_BOOL = ("pin_memory", "persistent_workers")


def _parse(text):
    """(knobs dict, steps) from the FEEDSCOPE_TUNE words; a malformed word
    is said once and ignored."""
    knobs, steps = {}, 0
    for word in text.split():
        key, sep, value = word.partition("=")
        try:
            if not sep:
                raise ValueError(word)
            if key == "steps":
                steps = max(0, int(value))
            elif key in _BOOL:
                knobs[key] = value not in ("0", "false", "False")
            elif key in KNOBS:
                knobs[key] = int(value)
            else:
                raise ValueError(word)
        except ValueError:
            _ch.warn("FEEDSCOPE_TUNE: ignoring '%s'" % word, key="tune " + word)
    return knobs, steps


knobs, stop_after = _parse(os.environ.get("FEEDSCOPE_TUNE", ""))
_applied = 0
_done = 0


class _ThreadsInit:
    """A worker_init_fn: the job's own (if any), then torch's intra-op
    threads set to n in the worker."""

    def __init__(self, fn, n):
        self.fn, self.n = fn, n

    def __call__(self, worker_id):
        if self.fn is not None:
            self.fn(worker_id)
        import torch
        torch.set_num_threads(self.n)


def override(init, args, kwargs):
    """The (args, kwargs) to call DataLoader.__init__ `init` with: the
    caller's, with the trial's knobs put in."""
    global _applied
    import inspect
    bound = inspect.signature(init).bind(*args, **kwargs)
    a = bound.arguments
    params = inspect.signature(init).parameters
    set_ = {}
    for key, value in knobs.items():
        if key == "worker_threads":
            continue  # below, once num_workers is known
        if key not in params:
            continue  # a torch without this knob
        if key == "batch_size" and a.get("batch_sampler") is not None:
            continue
        a[key] = value
        set_[key] = value
    workers = a.get("num_workers", params["num_workers"].default if "num_workers" in params else 0)
    if not workers:
        for key in ("prefetch_factor", "persistent_workers"):
            if key in params and key in set_:
                a[key] = params[key].default
                del set_[key]
    if "worker_threads" in knobs and workers and "worker_init_fn" in params and knobs["worker_threads"] > 0:
        a["worker_init_fn"] = _ThreadsInit(a.get("worker_init_fn"), knobs["worker_threads"])
        set_["worker_threads"] = knobs["worker_threads"]
    _applied += 1
    _ch.send((b"M1 %d hook.tune.applied.%d %s" % (
        _ch.pid, _applied, " ".join("%s=%s" % kv for kv in sorted(set_.items())).encode() or b"-"))
        [:_ch.MAX_RECORD])
    return bound.args, bound.kwargs


def step():
    """A step ended: at the stop_after-th, end the job (SystemExit(0))."""
    global _done
    _done += 1
    if _done >= stop_after:
        _ch.send(b"M1 %d hook.tune.ended %d" % (_ch.pid, _done))
        raise SystemExit(0)
