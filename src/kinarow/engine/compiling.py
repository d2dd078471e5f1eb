"""The kernels' compile: whether numba's cache holds a kernel already, and a compile said before it starts.

Every kernel is compiled by numba on its first call and kept in numba's cache (``cache=True``: files beside the
module, or under ``$NUMBA_CACHE_DIR``), so a later process loads it in a fraction of a second. A *family* of
kernels is compiled at once: the first call of its entry kernel (``deepen`` for the alpha-beta search, ``dfpn``
for the proof search, ``solve_score`` for the Connect-k score search) compiles every kernel it calls, which
takes 10 to 20 seconds the first time.

:func:`prepare` has an entry kernel ready for one call before that call is made: loaded from numba's cache
when the cache holds it for this machine and this source, else compiled there and then, with the
:func:`listen`-er told first (the command line prints one line, or a spinner on a terminal); nothing is said
when the cache is warm. So the compile happens at a known place, before a search starts its clock.

Whether the cache holds a kernel is read from numba's index file of that kernel (``*.nbi``): the entry for
this call's argument types, this machine (numba's codegen key) and this function's bytecode, in an index whose
source stamp matches the module file and every kernel module's source (:mod:`kinarow.kernel_cache`), as
numba itself checks before it loads.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

__all__ = ["PROOF_SEARCH", "SCORE_SEARCH", "SEARCH", "Family", "compile_seconds", "is_cached", "listen", "prepare",
           "signature"]


@dataclass(frozen=True)
class Family:
    """Kernels compiled together by the first call of one entry kernel: their name in a sentence and about
    how many seconds their compile takes (measured with an empty cache on a 2-core machine)."""

    name: str
    seconds: int

    def sentence(self) -> str:
        """``compiling the search kernels (once; about 15 s) ...``"""
        return f"compiling {self.name} (once; about {self.seconds} s) ..."


#: the alpha-beta search (:func:`kinarow.engine.kernel.deepen` and the knowledge tests it calls)
SEARCH = Family("the search kernels", 15)
#: the proof-number search (:func:`kinarow.engine.pns_kernel.dfpn`)
PROOF_SEARCH = Family("the proof search kernels", 12)
#: the Connect-k score search (:func:`kinarow.engine.gravity_kernel.solve_score`)
SCORE_SEARCH = Family("the Connect-k score kernels", 18)

#: told of each compile before it starts: ``listener(family)`` is a context manager held while it runs
Listener = Callable[[Family], AbstractContextManager[Any]]

_listener: Listener | None = None
_listener_pid = 0
_compiled = 0.0


def listen(listener: Listener | None) -> Listener | None:
    """Tell ``listener`` of every compile :func:`prepare` starts in this process from now on (None: tell nobody);
    returns the listener it replaces. Processes forked later tell nobody (their parent speaks for them)."""
    global _listener, _listener_pid
    previous = _listener
    _listener, _listener_pid = listener, os.getpid()
    return previous


def signature(kernel: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The argument types numba compiles ``kernel(*args)`` for (as its dispatcher types a call from Python)."""
    return tuple(kernel.typeof_pyval(arg) for arg in args)


def is_cached(kernel: Any, args: tuple[Any, ...]) -> bool | None:
    """Does ``kernel(*args)`` run without a compile: compiled in this process already, or held by numba's cache
    for this machine, this source and these argument types? None when it cannot be told (numba's cache off,
    or numba's internals not as expected)."""
    try:
        sig = signature(kernel, args)
        if sig in kernel.overloads:
            return True
        cache = kernel._cache
        index_file = getattr(cache, "_cache_file", None)
        if index_file is None:  # no cache for this kernel (cache=False): every process compiles it
            return False
        key = cache._index_key(sig, kernel.targetctx.codegen())
        data_name = index_file._load_index().get(key)  # {} when missing, stale (source stamp) or another numba
        if data_name is None:
            return False
        return bool(os.path.isfile(os.path.join(cache.cache_path, data_name)))
    except Exception:  # numba's private names changed: say nothing rather than something wrong
        return None


def prepare(family: Family, kernel: Any, *args: Any) -> float:
    """Have ``kernel`` ready for the call ``kernel(*args)`` now: loaded from numba's cache, or compiled, the
    listener told before the compile starts. Returns the seconds the compile took (0.0 when nothing was
    compiled; :func:`compile_seconds` adds them up). Under ``NUMBA_DISABLE_JIT`` (kernels as plain Python)
    there is nothing to do."""
    global _compiled
    if not hasattr(kernel, "overloads"):
        return 0.0
    sig = signature(kernel, args)
    if sig in kernel.overloads:
        return 0.0
    if is_cached(kernel, args) is not False:
        kernel.compile(sig)  # loaded from the cache (or, when that cannot be told, compiled unannounced)
        return 0.0
    listener = _listener if _listener_pid == os.getpid() else None
    start = time.perf_counter()
    with listener(family) if listener is not None else nullcontext():
        kernel.compile(sig)
    seconds = time.perf_counter() - start
    _compiled += seconds
    return seconds


def compile_seconds() -> float:
    """The seconds :func:`prepare` has spent compiling in this process so far."""
    return _compiled
