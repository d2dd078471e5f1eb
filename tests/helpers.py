"""Small helpers shared by the test modules."""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kinarow.cli import main

# Games (and opening lines) that some player wins, across the rule variants (gravity, misère, Maker-Breaker,
# torus, several stones a turn): the strategy tests extract and check the winner's strategy in each.
WINS = [
    ("4x3k3", ""),
    ("3x3k3:maker-breaker", ""),
    ("4x3k3:gravity,misere", ""),
    ("5x3k3:gravity,misere", ""),
    ("4x4k3:gravity", ""),
    ("3x3k3:torus", ""),
    ("4x4k3p2q1", ""),
    ("3x3k3", "b2 b1"),
    ("3x3k3:misere", "a1 b2 c1"),
]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the ``kinarow`` command line with ``argv``; its exit status, stdout and stderr."""
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def feed(monkeypatch: pytest.MonkeyPatch, lines: Iterable[str]) -> list[str]:
    """Answer ``input()`` with ``lines``, then end of input; returns the prompts seen."""
    pending = iter(lines)
    prompts: list[str] = []

    def fake_input(prompt: str = "") -> str:
        prompts.append(prompt)
        try:
            return next(pending)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake_input)
    return prompts


def interruptible() -> None:
    """``preexec_fn`` for a child that a test stops with SIGINT, as Ctrl-C would.

    A shell runs background jobs with SIGINT ignored, and a child inherits
    that; Python then never raises KeyboardInterrupt. The child gets the
    default disposition back, so the test behaves the same wherever it runs.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def child(argv: list[str], **options: Any) -> Iterator[subprocess.Popen[str]]:
    """Run ``argv`` as a child (text pipes, stoppable by SIGINT) and never leave it running behind the test."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible, **options)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def ctrl_c(proc: subprocess.Popen[str], timeout: float = 60) -> tuple[str, str]:
    """Stop ``proc`` as Ctrl-C would (SIGINT) and return its stdout and stderr."""
    proc.send_signal(signal.SIGINT)
    return proc.communicate(timeout=timeout)


BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load_benchmark(name: str) -> ModuleType:
    """The script ``benchmarks/NAME.py`` as a module (registered under ``name``, the name the benchmarks import
    each other by, so that numba's cache of its kernels serves the tests and the scripts alike)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def reference_wins(masks: list[int], A: int, D: int, attacker_moves: bool, normal: bool, full: int, memo: dict) -> bool:
    """Can the attacker complete a group first from (A, D), attacker to move or not? Plain minimax, memoised."""
    key = (A, D, attacker_moves)
    if key not in memo:
        own = A if attacker_moves else D
        cells = [c for c in range(full.bit_length()) if (full & ~(A | D)) >> c & 1]

        def completes(c: int) -> bool:
            return any(m >> c & 1 and (own | 1 << c) & m == m for m in masks)

        if any(m & A == m for m in masks):
            result = True  # (given stones may complete a group already)
        elif normal and any(m & D == m for m in masks):
            result = False
        elif attacker_moves and any(completes(c) for c in cells):
            result = True
        elif (not attacker_moves and normal and any(completes(c) for c in cells)) or not cells:
            result = False
        elif attacker_moves:
            result = any(reference_wins(masks, A | 1 << c, D, False, normal, full, memo) for c in cells)
        else:
            result = all(reference_wins(masks, A, D | 1 << c, True, normal, full, memo) for c in cells)
        memo[key] = result
    return memo[key]
