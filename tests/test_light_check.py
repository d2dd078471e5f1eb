"""``kinarow check`` stands on the rules: checking a certificate through the command line imports no search
module, no kernel and no numba, unless ``--compiled`` asks for the compiled walks. A certificate is then checked
by code that shares nothing with the search that made it, and the command starts without loading the kernels.

Each check runs in a fresh Python (``python -c``), through the command line's entry point, and lists the modules
it loaded; the test process itself has imported everything long before.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kinarow import solve

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "certificates" / "7x7k5.draw.json.gz"

#: the check, run as the ``kinarow`` script runs it, then one line naming the heavy modules it loaded
CODE = """
import sys
from kinarow.__main__ import run
code = run(sys.argv[1:])
heavy = sorted(m for m in sys.modules if m == "numba" or m.startswith(("kinarow.search", "kinarow.engine")))
print("LOADED:", " ".join(heavy) or "-")
sys.exit(code)
"""


def check_in_a_fresh_python(*argv: str) -> tuple[str, list[str]]:
    """The verdict line of ``kinarow check ARGV...`` and the heavy modules that check loaded."""
    done = subprocess.run([sys.executable, "-c", CODE, "check", *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    *verdict, loaded = done.stdout.strip().splitlines()
    assert loaded.startswith("LOADED: "), done.stdout
    names = loaded.removeprefix("LOADED: ").split()
    return "\n".join(verdict), [] if names == ["-"] else names


@pytest.fixture(scope="module")
def strategy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small win's strategy certificate, written by the search (in this process)."""
    path = tmp_path_factory.mktemp("light") / "4x3k3.strategy.json"
    result = solve("4x3k3", proof=True)
    assert result.proof is not None and result.proof.format == "kinarow.strategy"
    path.write_text(json.dumps(result.proof.data), encoding="utf-8")
    return path


def test_checking_a_shipped_draw_proof_loads_no_search_and_no_numba() -> None:
    verdict, loaded = check_in_a_fresh_python(str(SHIPPED))
    assert verdict.startswith("VALID: in 7x7k5, the first player cannot win against the blocking tree")
    assert verdict.endswith(": draw.")
    assert loaded == []


def test_checking_a_strategy_loads_no_search_and_no_numba(strategy: Path) -> None:
    verdict, loaded = check_in_a_fresh_python(str(strategy))
    assert verdict.startswith("VALID: in 4x3k3, the first player (Black) wins against every reply")
    assert loaded == []


def test_the_compiled_check_uses_numba_and_says_the_same(strategy: Path) -> None:
    plain, _ = check_in_a_fresh_python(str(strategy))
    verdict, loaded = check_in_a_fresh_python(str(strategy), "--compiled")
    assert "numba" in loaded
    assert not [name for name in loaded if name.startswith("kinarow.search")]
    assert verdict == plain
