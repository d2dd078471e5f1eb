"""The README's Layout names every module of the package, and names no module that is gone.

The rule, for the block of README.md's Layout that starts with ``src/kinarow/``:

* An entry is a line indented by two spaces, with the lines indented further below it (its continuation).
  Its first word places it: a path with a folder (``search/parallel/``, ``engine/kernel.py``) in that
  folder, a bare file name (``game.py``) at the top of the package.
* A module file ``folder/name.py`` is named when an entry of its folder spells ``name.py``, or when any entry
  spells its path from ``src/kinarow`` (``proofs/tree_kernel.py``). A folder line alone (``strategies/``)
  names no module in it: the modules are listed by file name.
* A package's ``__init__.py`` is named by naming its folder, which is the package (``kinarow/__init__.py``
  by the block's head, ``src/kinarow/``).

Each failure lists the module files the block leaves out, or the names in it that are no module file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "kinarow"
HEAD = "src/kinarow/"
WORD = re.compile(r"[A-Za-z0-9_./]+")


def layout_block(readme: str) -> list[str]:
    """The lines of the Layout's block of files, the ``src/kinarow/`` line itself left out."""
    layout = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    blocks = layout.split("```")[1::2]  # the fenced blocks' insides
    found = [block.strip("\n").splitlines() for block in blocks if block.strip("\n").startswith(HEAD)]
    assert len(found) == 1, f"the Layout section should have one block that starts with {HEAD!r}"
    return found[0][1:]


def named_paths(lines: list[str]) -> set[str]:
    """The ``.py`` paths (from ``src/kinarow``) and the folders (ending in ``/``) that the block names."""
    named: set[str] = set()
    folder: str | None = None
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        words = WORD.findall(line)
        if not words:
            continue
        if indent == 2:  # an entry: its first word places it
            first = words[0]
            folder = first if first.endswith("/") else first.rpartition("/")[0] + "/" if "/" in first else ""
        elif indent < 2:  # outside the package (certificates/, tests/, mkdocs.yml)
            folder = None
        if folder is None:
            continue
        for word in words:
            word = word.rstrip(".")
            if "/" in word and (word.endswith(".py") or word.endswith("/")):
                named.add(word)
            elif word.endswith(".py"):
                named.add(folder + word)
        if folder:
            named.add(folder)
    return named


def modules() -> set[str]:
    return {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")}


def is_named(module: str, named: set[str]) -> bool:
    if module in named:
        return True
    folder, _, name = module.rpartition("/")
    if name == "__init__.py":  # the package is its folder; the block's head, src/kinarow/, is the top one
        return not folder or any(path.startswith(folder + "/") for path in named)
    return False


def test_the_layout_names_every_module() -> None:
    named = named_paths(layout_block((ROOT / "README.md").read_text(encoding="utf-8")))
    missing = sorted(m for m in modules() if not is_named(m, named))
    assert not missing, "README.md's Layout does not name these modules of src/kinarow: " + ", ".join(missing)


def test_the_layout_names_no_module_that_is_gone() -> None:
    named = named_paths(layout_block((ROOT / "README.md").read_text(encoding="utf-8")))
    gone = sorted(path for path in named if path.endswith(".py") and not (PACKAGE / path).is_file())
    gone += sorted(path for path in named if path.endswith("/") and not (PACKAGE / path).is_dir())
    assert not gone, "README.md's Layout names what is not in src/kinarow: " + ", ".join(gone)


BLOCK = """\
  game.py geometry.py        the rules
  engine/kernel.py tables.py search; see proofs/tree_kernel.py
  search/parallel/           frontier.py (the job DAG),
                             merge.py
  strategies/                strategies as players
certificates/                shipped; not the package
"""


@pytest.mark.parametrize(
    ("module", "named"),
    [
        ("game.py", True),
        ("geometry.py", True),
        ("engine/tables.py", True),  # a bare name on an entry of its folder
        ("proofs/tree_kernel.py", True),  # a path, anywhere
        ("search/parallel/merge.py", True),  # on a continuation line
        ("search/parallel/__init__.py", True),  # the package is its folder
        ("strategies/__init__.py", True),
        ("strategies/verify.py", False),  # a folder line names none of its modules
        ("search/frontier.py", False),  # a name counts in its entry's folder only
        ("tables.py", False),
    ],
)
def test_the_rule_reads_names_as_documented(module: str, named: bool) -> None:
    assert is_named(module, named_paths(BLOCK.splitlines())) == named
