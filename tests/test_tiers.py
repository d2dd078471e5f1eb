"""The list of tests the fast tier leaves out (``SLOW`` in conftest.py) names tests that exist."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ALL, SLOW

TESTS = Path(__file__).resolve().parent


def test_every_slow_entry_names_a_test_function():
    missing = []
    for file, names in SLOW.items():
        path = TESTS / file
        assert path.is_file(), f"SLOW names {file}, which is not a test file"
        if names is ALL:
            continue
        defined = {node.name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
        missing += [f"{file}::{name}" for name in sorted(names - defined)]
    assert not missing, "SLOW in conftest.py names tests that no longer exist: " + ", ".join(missing)
