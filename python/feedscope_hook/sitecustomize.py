"""feedscope's zero-code hook, run by Python's `site` at start-up.

`feedscope run --pytorch` puts this directory (and the one holding the
`feedscope` package) first on the job's PYTHONPATH and sets FEEDSCOPE_HOOK=
pytorch and FEEDSCOPE_MARKERS. Then:

1. With both variables set, feedscope._torch.install() adds an import hook
   that patches torch once the job imports it (torch is not imported here).
   With FEEDSCOPE_STACKS set too, feedscope._stacks.install() registers
   faulthandler on feedscope's signal, for the Python stacks at a stall.
2. The sitecustomize this one shadows (the next one on sys.path, such as
   Debian's /usr/lib/python3.11/sitecustomize.py, or the job's own) is run as
   the module `sitecustomize`, as if this file were not there: it replaces
   this module in sys.modules, and an exception in it reaches `site` as it
   would have. With none to run, this module takes itself out of
   sys.modules the way a missing sitecustomize would (ModuleNotFoundError,
   which `site` ignores).

Any failure of the hook itself is one line on stderr; the job goes on.
"""
import os
import sys


def _install_hook():
    if os.environ.get("FEEDSCOPE_HOOK") != "pytorch" or not os.environ.get("FEEDSCOPE_MARKERS"):
        return
    try:
        from feedscope import _torch
    except Exception as e:
        sys.stderr.write("feedscope: cannot load the PyTorch hook (%s: %s); the job goes on "
                         "without it\n" % (type(e).__name__, e))
        return
    try:
        _torch.install()
    except Exception as e:
        _torch._failed(e)
    try:
        from feedscope import _stacks
        _stacks.install()
    except Exception as e:
        sys.stderr.write("feedscope: no Python stacks at a stall (%s: %s)\n" % (type(e).__name__, e))


def _next_sitecustomize():
    """The spec of the sitecustomize that sys.path holds after this one, or None."""
    import importlib.machinery
    here = os.path.dirname(os.path.realpath(__file__))
    path = []
    for entry in sys.path:
        try:
            if os.path.realpath(entry or os.getcwd()) == here:
                continue
        except (OSError, ValueError, TypeError):
            pass
        path.append(entry)
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return None
    origin = getattr(spec, "origin", None)
    try:
        if origin and os.path.samefile(origin, __file__):
            return None
    except OSError:
        pass
    return spec


def _chain():
    try:
        spec = _next_sitecustomize()
    except Exception as e:
        sys.stderr.write("feedscope: cannot look for another sitecustomize (%s: %s)\n"
                         % (type(e).__name__, e))
        return
    if spec is None:
        # Nothing to run: leave no `sitecustomize` behind, as without us. site
        # ignores exactly this error (a module named sitecustomize not found);
        # the hook installed above stays.
        raise ModuleNotFoundError("No module named 'sitecustomize'", name="sitecustomize")
    try:
        from importlib._bootstrap import module_from_spec  # loaded already; importlib.util is not
    except ImportError:
        from importlib.util import module_from_spec
    module = module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_install_hook()
_chain()
