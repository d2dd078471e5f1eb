"""kinarow: play, solve and prove k-in-a-row games.

Importing ``kinarow`` loads only the rules (games, positions); the search code
(numba kernels) is imported the first time :func:`solve`, :class:`Searcher` or
:class:`Result` is used, so certificate checkers and the light commands start
quickly and stay independent of the search.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from kinarow.errors import GameSpecError, IllegalMoveError, KinarowError, MoveError, SolverLimitError
from kinarow.game import Game
from kinarow.position import Position

if TYPE_CHECKING:
    from kinarow.search.alphabeta import Searcher
    from kinarow.search.result import Result
    from kinarow.strategies.verify import Verified

__all__ = [
    "Game",
    "GameSpecError",
    "IllegalMoveError",
    "KinarowError",
    "MoveError",
    "Position",
    "Result",
    "Searcher",
    "SolverLimitError",
    "Verified",
    "load_ipython_extension",
    "solve",
    "verify",
]


def solve(target: Game | Position | str, **options: Any) -> Result:
    """Solve a game or position with perfect play: :func:`kinarow.search.solve.solve` (same arguments, among them
    ``proof=True`` for the certificate of the value and ``store=`` for the results store)."""
    from kinarow.search.solve import solve as search

    _check_options("solve", search, options, ("target",))
    return search(target, **options)


def verify(strategy: Any, game: Game | str, player: int | str | None = None, **options: Any) -> Verified:
    """Verify a strategy against every reply: :func:`kinarow.strategies.verify.verify` (same arguments, checked
    as :func:`solve` checks its own)."""
    from kinarow.strategies.verify import verify as walk

    _check_options("verify", walk, options, ("strategy", "game", "player"))
    return walk(strategy, game, player, **options)


def _check_options(name: str, function: Any, options: dict[str, Any], positional: tuple[str, ...]) -> None:
    """One sentence for an option ``function`` does not take (not a TypeError from deep inside); a function
    that takes ``**keywords`` refuses those it does not know itself."""
    names = _parameters(function)
    if names is None:
        return
    known = [option for option in names if option not in positional]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise KinarowError(f"{name}() has no option {unknown[0]!r}; its options are {', '.join(known)}")


@functools.cache
def _parameters(function: Any) -> tuple[str, ...] | None:
    """The parameter names of ``function``, None when it takes ``**keywords`` (read once: a solve() of a short
    search should not pay for it)."""
    import inspect

    parameters = inspect.signature(function).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return tuple(p.name for p in parameters)


_LAZY = {"Result": "kinarow.search.result", "Searcher": "kinarow.search.alphabeta",
         "Verified": "kinarow.strategies.verify"}


def __getattr__(name: str) -> Any:
    if name == "__version__":  # pyproject.toml's, as installed (read once asked: an import should not pay for it)
        from kinarow.proofs import installed_version

        return installed_version()
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'kinarow' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext kinarow``: games, positions, results and certificates display as pictures in this shell
    (:mod:`kinarow.notebook`). ``import kinarow`` does it by itself inside a running IPython shell."""
    from kinarow.notebook import register

    register(ipython)


def _display_in_ipython() -> None:
    """Register the notebook pictures when kinarow is imported in a running IPython shell (never imports IPython)."""
    import sys

    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    if shell is not None:
        load_ipython_extension(shell)


_display_in_ipython()
