"""The rules that keep the house: which layer of ``kinarow`` may import which.

The imports are read from the source with :mod:`ast` (nothing is imported), so
a rule fails on the line that breaks it, even in code no test runs. The layers,
from the bottom:

* **the rules** -- ``kinarow.game``, ``geometry``, ``position``, ``errors``,
  ``values``, ``limits`` (the argument checks every layer shares: counts,
  seconds, table sizes, ``said``), ``kernel_cache`` (the stamp of every kernel
  module's source on numba's cached kernels), ``bitboards`` (the one- and
  two-word board operations that the kernels and the checkers' compiled walks
  share), and the strategies' rules: ``strategies.rules`` (their rule kernels,
  which the checkers replay) and ``strategies/__init__`` (the registry naming
  them). The rules import only the rules. The package itself
  (``kinarow/__init__``) counts as the rules too: at module level it loads only
  them and reaches the search lazily, inside functions (both checked below).
* ``engine/`` -- numba kernels (and ``engine/pool.py``, the local processes that
  long tables of kernel runs are spread over); they import the rules, each other, and one
  module above them: :mod:`kinarow.proofs.tree_kernel`, the strategy checker's
  bitboard primitives, which the strategy extractor
  (``engine/extract_kernel.py``) walks the same tree with, so that extractor and
  checker cannot disagree on the rules. The primitives it shares are public.
* ``proofs/`` -- the certificate checkers: they import only the rules and
  ``proofs/`` itself, so a certificate is checked by code that shares nothing
  with the search that made it.
* ``search/``, ``knowledge/``, ``strategies/``, ``papers/``, ``store``, ``svg``
  -- the library, free among themselves (but see the cycle rule), bar
  one rule: ``knowledge/`` and ``strategies/`` import nothing from ``search/``
  (the search uses them, so they stand below it).
* ``cli/`` and ``web/`` -- the front ends. Nothing else imports them (bar
  ``kinarow/__main__``, which is ``python -m kinarow``), and ``web/`` does not
  import ``cli/``. The command modules import ``search/`` and ``engine/`` only
  inside their command functions: the parser imports them all, and
  ``kinarow check`` loads no search.

Which imports count:

* The layer rules count **every** import of a ``kinarow`` module: at module
  level, inside functions (a lazy import is still a dependency) and under
  ``if TYPE_CHECKING:`` (a type named in a signature ties the API to that layer).
* The cycle rule counts every import that can run: at module level (class
  bodies and ``try`` blocks included) and inside functions. A cycle of lazy
  imports loads, but it is still two modules that need each other, which no
  reader can take one at a time; so there is none. Imports under
  ``TYPE_CHECKING`` are left out of it: they never run, and a type and its
  users naming each other in annotations (``Result.proof`` is a
  ``certify.Proof``, which ``certify`` writes into a ``Result``) ties no code
  to code. ``from pkg import name`` is an edge to ``pkg.name`` when that is a
  module file, else to ``pkg``.
* The private-name rule (no ``_name`` imported from another module; dunders
  such as ``__version__`` are public) applies to the package, ``src/kinarow``.
  Tests may import a module's private helpers to test them.

Each failure lists every offending ``file:line``, the module it imports and the
names, so the message says what to move.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "kinarow"

RULES = frozenset(
    {
        "kinarow",
        "kinarow.bitboards",
        "kinarow.kernel_cache",
        "kinarow.game",
        "kinarow.geometry",
        "kinarow.position",
        "kinarow.errors",
        "kinarow.limits",
        "kinarow.values",
        "kinarow.strategies",
        "kinarow.strategies.rules",
    }
)
#: The modules above the rules that ``engine/`` may import (see the module docstring).
ENGINE_MAY_IMPORT = frozenset({"kinarow.proofs.tree_kernel"})
FRONT_ENDS = ("kinarow.cli", "kinarow.web")


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    path: Path
    line: int
    target: str  # the imported module
    names: tuple[str, ...]  # the names taken from it (empty for ``import x``)
    where: str  # "module", "function" or "type-checking"

    def __str__(self) -> str:
        names = f" ({', '.join(self.names)})" if self.names else ""
        lazy = "" if self.where == "module" else f" [{self.where}]"
        return f"{self.path.relative_to(SRC.parent)}:{self.line} imports {self.target}{names}{lazy}"


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


FILES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _resolve(source: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = source.split(".") if path.name == "__init__.py" else source.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def imports_of(source: str, path: Path, text: str | None = None) -> Iterator[Import]:
    """Every import of a ``kinarow`` module in one file (or in ``text`` placed there), with where it sits."""

    def visit(node: ast.AST, where: str) -> Iterator[Import]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if in_package(alias.name, "kinarow"):
                    yield Import(source, path, node.lineno, alias.name, (), where)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(source, path, node)
            if not in_package(base, "kinarow"):
                return
            # ``from pkg import sub`` imports the module pkg.sub; other names come from pkg itself
            plain = tuple(a.name for a in node.names if f"{base}.{a.name}" not in FILES)
            if plain:
                yield Import(source, path, node.lineno, base, plain, where)
            for alias in node.names:
                if f"{base}.{alias.name}" in FILES:
                    yield Import(source, path, node.lineno, f"{base}.{alias.name}", (), where)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            for child in ast.iter_child_nodes(node):
                yield from visit(child, "function")
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                yield from visit(child, "function" if where == "function" else "type-checking")
            for child in node.orelse:
                yield from visit(child, where)
        else:
            for child in ast.iter_child_nodes(node):
                yield from visit(child, where)

    code = path.read_text(encoding="utf-8") if text is None else text
    yield from visit(ast.parse(code, str(path)), "module")


IMPORTS = [imp for source, path in FILES.items() for imp in imports_of(source, path)]


def report(rule: str, bad: list[Import]) -> str:
    return f"{rule}; {len(bad)} offending import(s):\n  " + "\n  ".join(map(str, bad))


def test_the_files_are_found() -> None:
    assert {"kinarow", "kinarow.game", "kinarow.proofs", "kinarow.engine.kernel"} <= FILES.keys()
    assert any(imp.target == "kinarow.game" for imp in IMPORTS)


def test_the_rules_import_only_the_rules() -> None:
    bad = [
        imp
        for imp in IMPORTS
        if imp.source in RULES
        and imp.target not in RULES
        and (imp.source != "kinarow" or imp.where == "module")  # the package reaches the rest lazily
    ]
    assert not bad, report("the rules import only the rules (kinarow/__init__: at module level)", bad)


def test_proofs_import_only_the_rules() -> None:
    bad = [
        imp
        for imp in IMPORTS
        if in_package(imp.source, "kinarow.proofs")
        and imp.target not in RULES
        and not in_package(imp.target, "kinarow.proofs")
    ]
    assert not bad, report("proofs/ imports only the rules and proofs/ itself", bad)


def test_engine_imports_nothing_above_the_rules() -> None:
    bad = [
        imp
        for imp in IMPORTS
        if in_package(imp.source, "kinarow.engine")
        and imp.target not in RULES
        and imp.target not in ENGINE_MAY_IMPORT
        and not in_package(imp.target, "kinarow.engine")
    ]
    assert not bad, report("engine/ imports only the rules, engine/ and proofs.tree_kernel", bad)


def test_only_the_front_ends_import_the_front_ends() -> None:
    bad = [
        imp
        for imp in IMPORTS
        if any(in_package(imp.target, end) for end in FRONT_ENDS)
        and not any(in_package(imp.source, end) for end in FRONT_ENDS)
        and imp.source != "kinarow.__main__"
    ]
    assert not bad, report("nothing outside cli/ and web/ imports them", bad)


def test_the_command_modules_load_no_search_when_imported() -> None:
    """Building the parser imports every command module (cli/__init__), so a command module that imported the
    search at module level would load it, and numba, for ``kinarow check`` too (tests/test_light_check.py)."""
    bad = [
        imp
        for imp in IMPORTS
        if in_package(imp.source, "kinarow.cli")
        and imp.where == "module"
        and (in_package(imp.target, "kinarow.search") or in_package(imp.target, "kinarow.engine"))
    ]
    assert not bad, report("cli/ imports search/ and engine/ inside its command functions only", bad)


def test_web_does_not_import_the_cli() -> None:
    bad = [imp for imp in IMPORTS if in_package(imp.source, "kinarow.web") and in_package(imp.target, "kinarow.cli")]
    assert not bad, report("web/ imports nothing from cli/", bad)


def import_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted.

    >>> import_cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}})
    [['a', 'b']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return sorted(found)


def runs(imp: Import) -> bool:
    """Does the cycle rule count ``imp``? Every import that can run: all but those under ``TYPE_CHECKING``."""
    return imp.where in ("module", "function") and imp.target != imp.source


def cycle_edges(imports: list[Import], modules: set[str]) -> dict[str, set[str]]:
    """Who imports whom among ``modules``, counting what :func:`runs`."""
    edges: dict[str, set[str]] = {}
    for imp in imports:
        if runs(imp) and imp.target in modules:
            edges.setdefault(imp.source, set()).add(imp.target)
    return edges


def test_no_import_cycle_counting_lazy_imports() -> None:
    cycles = import_cycles(cycle_edges(IMPORTS, set(FILES)))
    lines = []
    for cycle in cycles:
        members = set(cycle)
        lines.append("cycle: " + " <-> ".join(cycle))
        lines += [f"  {imp}" for imp in IMPORTS if runs(imp) and imp.source in members and imp.target in members]
    assert not cycles, "import cycles between files (lazy imports counted):\n" + "\n".join(lines)


@pytest.mark.parametrize(
    ("lazy", "cycle"),
    [
        ("import kinarow.search.b", True),  # at module level
        ("def f():\n    import kinarow.search.b", True),  # inside a function: still a cycle
        ("if TYPE_CHECKING:\n    import kinarow.search.b", False),  # never runs
    ],
)
def test_a_cycle_counts_lazy_imports_but_not_type_checking_ones(lazy: str, cycle: bool) -> None:
    a, b = "kinarow.search.a", "kinarow.search.b"  # never written: the names only place the code in the package
    found = [*imports_of(a, PACKAGE / "search" / "a.py", lazy),
             *imports_of(b, PACKAGE / "search" / "b.py", "from kinarow.search.a import x")]
    assert import_cycles(cycle_edges(found, {a, b})) == ([[a, b]] if cycle else [])


def defined_names(module: str) -> set[str]:
    """The names a module defines at its top level (functions, classes, assignments), read with ``ast``."""
    names: set[str] = set()
    for node in ast.parse(FILES[module].read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_the_argument_checks_are_taken_from_kinarow_limits() -> None:
    checks = defined_names("kinarow.limits")
    assert {"check_count", "check_tt_mb", "said", "default_tt_mb", "MAX_NODES"} <= checks
    bad = [imp for imp in IMPORTS if imp.target != "kinarow.limits" and checks & set(imp.names)]
    assert not bad, report("the argument checks and their caps are imported from kinarow.limits, where they live", bad)


def test_knowledge_and_strategies_import_nothing_from_search() -> None:
    bad = [
        imp
        for imp in IMPORTS
        if (in_package(imp.source, "kinarow.knowledge") or in_package(imp.source, "kinarow.strategies"))
        and in_package(imp.target, "kinarow.search")
    ]
    assert not bad, report("knowledge/ and strategies/ import nothing from search/ (lazy and TYPE_CHECKING too)", bad)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_private_name_imported_from_another_module() -> None:
    bad = [
        imp
        for imp in IMPORTS
        if imp.target != imp.source and (any(map(_private, imp.names)) or any(map(_private, imp.target.split("."))))
    ]
    assert not bad, report("no _private name is imported from another module (make it public)", bad)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("from kinarow.game import Game", [("kinarow.game", ("Game",), "module")]),
        ("from . import tree_kernel", [("kinarow.proofs.tree_kernel", (), "module")]),
        ("from .. import errors\nif TYPE_CHECKING:\n    import kinarow.game", [
            ("kinarow.errors", (), "module"), ("kinarow.game", (), "type-checking")]),
        ("def f():\n    from kinarow.search.solve import solve", [("kinarow.search.solve", ("solve",), "function")]),
        ("import numpy as np", []),
    ],
)
def test_imports_are_read_as_documented(code: str, expected: list[tuple[str, tuple[str, ...], str]]) -> None:
    path = PACKAGE / "proofs" / "example.py"  # never written: its name only places the code in the package
    assert [(i.target, i.names, i.where) for i in imports_of("kinarow.proofs.example", path, code)] == expected
