"""numba's cache of kinarow's kernels, kept true to every kernel module's source, not only the kernel's own.

numba keeps a compiled kernel (``cache=True``) with a stamp of the one source file that defines it and loads
it again while that file is unchanged. A kernel compiled together with kernels of *other* modules that it calls
(``pns_kernel.dfpn`` calls ``bitboards.canonical`` and ``breaker``'s pairing tests; ``verify_kernel`` calls
the strategies' rules) holds their code too, so an edit of a callee's module left the caller's cached code as
it was: the old rules, run without a word. Here each kinarow kernel's stamp is its own file's *and* a hash of
every kernel module's source (:data:`KERNEL_FILES`), so a change to any of them makes numba compile every
kinarow kernel again (once), and an unchanged checkout loads them as before.

The stamp is given to numba by a cache locator (numba's own way of placing and stamping cached code) put in
front of numba's locators; it places the files where numba's locator would and only changes the stamp. Each
kernel module imports this one before its first kernel is defined (numba picks a kernel's locator when the
decorator runs); tests/test_kernel_cache.py holds every module with cached kernels to that. Where numba's
private caching names are not as expected, nothing is changed (numba's own stamps stay in force).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

#: every module of the package with kernels that numba caches (``cache=True``), relative to the package
KERNEL_FILES = (
    "bitboards.py",
    "engine/breaker.py",
    "engine/extract_kernel.py",
    "engine/graph_kernel.py",
    "engine/gravity_kernel.py",
    "engine/kernel.py",
    "engine/linearise_kernel.py",
    "engine/pns_kernel.py",
    "engine/prefetch.py",
    "engine/torus_kernel.py",
    "engine/verify_kernel.py",
    "engine/window_kernel.py",
    "proofs/draw_kernel.py",
    "proofs/drat_kernel.py",
    "proofs/torus_count.py",
    "proofs/tree_kernel.py",
    "search/parallel/merge.py",
    "strategies/rules.py",
)

PACKAGE = Path(__file__).resolve().parent


def _stats() -> tuple[tuple[str, int, int], ...]:
    out = []
    for name in KERNEL_FILES:
        try:
            st = (PACKAGE / name).stat()
        except OSError:
            out.append((name, -1, -1))
        else:
            out.append((name, st.st_mtime_ns, st.st_size))
    return tuple(out)


@functools.lru_cache(maxsize=4)
def _hash(stats: tuple[tuple[str, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, _, _ in stats:
        digest.update(name.encode())
        try:
            digest.update((PACKAGE / name).read_bytes())
        except OSError:
            digest.update(b"(missing)")
    return digest.hexdigest()


def kernels_stamp() -> str:
    """A hash of the sources of every kernel module (read again only when a file's size or time changes)."""
    return _hash(_stats())


def _ours(py_file: str) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(PACKAGE)
    except (OSError, ValueError):
        return False


def _install() -> bool:
    """Put kinarow's locator in front of numba's (once a process); False when numba's names have changed."""
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover - numba is a dependency
        return False
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    base = getattr(caching, "_CacheLocator", None)
    classes = getattr(impl, "_locator_classes", None)
    if impl is None or base is None or not isinstance(classes, list):
        return False
    if any(getattr(cls, "kinarow", False) for cls in classes):
        return True
    inner_classes = tuple(classes)

    class KinarowLocator(base):  # type: ignore[misc, valid-type]
        """numba's locator for the file, with the stamp of every kinarow kernel module beside its own."""

        kinarow = True

        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def ensure_cache_path(self) -> None:
            self._inner.ensure_cache_path()

        def get_cache_path(self) -> str:
            return str(self._inner.get_cache_path())

        def get_source_stamp(self) -> Any:
            return (self._inner.get_source_stamp(), kernels_stamp())

        def get_disambiguator(self) -> str:
            return str(self._inner.get_disambiguator())

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if not _ours(py_file):
                return None
            for inner_cls in inner_classes:
                inner = inner_cls.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner)
            return None

    classes.insert(0, KinarowLocator)
    return True


INSTALLED = _install()
