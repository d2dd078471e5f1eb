"""The strategy extraction keeps the search's budgets and stop: a node budget the kernel counts, a deadline, the
stop flag, Ctrl-C and SIGTERM, with progress; on the empty 7x6 Connect Four board (the opening book gives the
value at once, the strategy is what costs) it ends with the documented answers instead of running for hours."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import interruptible
from kinarow import Game, solve
from kinarow.engine import kernel as K
from kinarow.search.alphabeta import Searcher, StrategyStoppedError, extract_strategy

C4 = "7x6k4:gravity"
HANG_GUARD = 300.0  # seconds: only so that a walk that ignores its budget fails instead of hanging the suite
SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.mark.parametrize("budget", [1, 3000, 200_000])
def test_a_node_budget_stops_the_walk_in_the_kernel(budget):
    searcher = Searcher(C4, tt_mb=8)
    position = searcher.game.start()
    value, _, _, _ = searcher.search(position)  # the book's value
    assert value == K.WIN
    with pytest.raises(StrategyStoppedError) as stopped:
        extract_strategy(position, searcher, value=value, max_nodes=budget)
    assert stopped.value.stopped == "node limit" and searcher.walk_stopped == "node limit"
    assert budget <= stopped.value.nodes < budget + 1024  # the kernel checks its budget every 1,024 nodes


def test_a_walk_within_its_node_budget_is_whole():
    searcher = Searcher("4x4k3:gravity", tt_mb=8)
    whole = extract_strategy(searcher.game.start(), searcher, max_nodes=10**9)
    assert whole.winner == "first" and searcher.walk_stopped is None and 0 < searcher.walk_nodes < 10**9


def test_a_deadline_passed_stops_the_walk_at_its_first_question():
    searcher = Searcher("4x4k3:gravity", tt_mb=8)
    position = searcher.game.start()
    assert searcher.strategy_walk(position, 1, deadline=time.perf_counter() - 1) is None
    assert searcher.walk_stopped == "time limit" and searcher.walk_nodes == 0
    assert searcher.strategy_walk(position, 1) is not None and searcher.walk_stopped is None


def test_solve_of_connect_four_with_a_proof_keeps_its_node_budget():
    # before: the value came from the book, then the strategy was walked with no budget at all
    ticks: list[int] = []
    result = solve(C4, proof=True, max_nodes=2_000_000, on_tick=ticks.append)
    assert result.value == "first" and result.stopped == "node limit"
    assert result.strategy is None and result.proof is not None and not result.proof.exists
    assert "stopped (node limit)" in result.proof.what
    assert ticks and max(ticks) >= 2_000_000  # the walk's progress was heard


def test_an_interrupt_during_the_walk_is_the_interrupted_answer():
    # the web server stops its searches by raising KeyboardInterrupt from their progress callback
    def tick(nodes: int) -> None:
        if nodes > 100_000:
            raise KeyboardInterrupt

    result = solve(C4, proof=True, on_tick=tick)
    assert result.value == "first" and result.stopped == "interrupted" and not result.proof.exists


def _kinarow(*argv: str) -> list[str]:
    return [sys.executable, "-m", "kinarow", *argv]


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC, "KINAROW_STORE": str(tmp_path / "r.sqlite")}


@pytest.mark.parametrize("budget", [["--max-nodes", "2000000"], ["--time-limit", "3"]])
def test_kinarow_solve_proof_of_connect_four_stops_at_its_budget(tmp_path, budget):
    out = tmp_path / "c4.json"
    done = subprocess.run(_kinarow("solve", C4, "--proof", str(out), "--json", "--no-store", *budget),
                          capture_output=True, text=True, timeout=HANG_GUARD, env=_env(tmp_path))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["value"] == "first"
    assert data["stopped"] == ("node limit" if budget[0] == "--max-nodes" else "time limit")
    assert not out.exists() and "Traceback" not in done.stderr


@pytest.mark.parametrize(("sig", "said"), [(signal.SIGINT, "Ctrl-C"), (signal.SIGTERM, "SIGTERM")])
def test_kinarow_solve_proof_shows_the_walk_and_stops_on_a_signal(tmp_path, sig, said):
    # stderr is a terminal, so the live line shows the walk's nodes (it said "starting" for good before); the
    # signal is sent once it counts nodes, and the command answers 'interrupted' and exits 130
    master, slave = pty.openpty()
    process = subprocess.Popen(_kinarow("solve", C4, "--proof", str(tmp_path / "c4.json"), "--no-store"),
                               stdout=subprocess.PIPE, stderr=slave, text=True, env=_env(tmp_path),
                               preexec_fn=interruptible)
    os.close(slave)
    try:
        shown = b""
        end = time.monotonic() + HANG_GUARD
        while not any(int(n.replace(b",", b"")) > 0 for n in re.findall(rb"([\d,]+) nodes", shown)):
            assert time.monotonic() < end, f"no progress shown: {shown[-300:]!r}"
            if select.select([master], [], [], 1.0)[0]:
                try:
                    shown += os.read(master, 65536)
                except OSError:
                    break
            assert process.poll() is None, shown[-300:]
        process.send_signal(sig)
        out, _ = process.communicate(timeout=60)
        rest = b""
        while select.select([master], [], [], 0.1)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            rest += chunk
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    assert process.returncode == 130
    assert "stopped:   interrupted" in out and "First player (Black) wins" in out
    assert f"Interrupted ({said})".encode() in rest and b"Traceback" not in rest


def test_the_engine_contract_walk_is_unchanged_without_budgets():
    game = Game("4x3k3")
    searcher = Searcher(game)
    tree = extract_strategy(game.start(), searcher)
    assert tree.winner == "first"
