"""The README and the docs name modules and files that exist, and their examples print what they show.

The console examples (``$ kinarow ...`` lines and the output under them) are run and compared: see
test_console_examples_print_what_they_show for how they are read and how a doc marks a figure as loose.

A module moved in the package leaves its old name behind in prose; these tests
find such names: every ``kinarow.a.b`` written in README.md, docs/*.md and the
READMEs of certificates/ and checkpoints/ must be a module or an attribute of
one, or a certificate format (``kinarow.pairing`` is both an old module name and
a format name: as a format it stays).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import io
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

import kinarow.limits
from helpers import run
from kinarow.cli import build_parser, main
from kinarow.proofs import CHECKERS, SEARCH_LOG_FORMAT
from kinarow.proofs.torus import CLASSES_FORMAT

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("certificates/README*")),
        *sorted(ROOT.glob("checkpoints/README*"))]
FORMATS = {*CHECKERS, SEARCH_LOG_FORMAT, CLASSES_FORMAT}
NAME = re.compile(r"(?<![\w/.-])kinarow(?:\.[A-Za-z_]\w*(?:-[a-z]+)*)+(?::[A-Za-z_]\w*)?")
FILE = re.compile(r"(?<![\w./])[\w/]*\w\.py\b")
PY_FILES = ["/" + p.relative_to(ROOT).as_posix() for d in ("src", "tests", "benchmarks")
            for p in (ROOT / d).rglob("*.py")]
IMPORT = re.compile(r"^\s*(?:>>> )?((?:from kinarow[\w.]* import [\w, ]+)|(?:import kinarow[\w.]*))\s*$", re.M)


def resolves(name: str) -> bool:
    """Whether ``kinarow.a.b`` (or ``kinarow.a:b``) is a module, or an attribute reached from the longest module."""
    parts = name.replace(":", ".").split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attribute in parts[i:]:
            if not hasattr(obj, attribute):
                return False
            obj = getattr(obj, attribute)
        return True
    return False


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_named_modules_exist(path: Path) -> None:
    stale = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for match in NAME.finditer(line):
            name = match.group(0)
            if name not in FORMATS and not resolves(name):
                stale.append(f"{path.relative_to(ROOT)}:{number}: {name}")
    assert not stale, "names of no module or attribute (moved?):\n" + "\n".join(stale)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_named_files_exist(path: Path) -> None:
    """Every ``x.py`` or ``folder/x.py`` named is the end of a file's path in src/, tests/ or benchmarks/."""
    stale = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for match in FILE.finditer(line):
            if not any(file.endswith("/" + match.group(0)) for file in PY_FILES):
                stale.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)}")
    assert not stale, "files that do not exist (moved?):\n" + "\n".join(stale)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_shown_imports_work(path: Path) -> None:
    for statement in IMPORT.findall(path.read_text(encoding="utf-8")):
        exec(statement, {})


def test_readme_python_example_prints_what_it_shows() -> None:
    section = README.read_text(encoding="utf-8").split("## Python API", 1)[1]
    code, shown = re.findall(r"```(?:python)?\n(.*?)```", section, re.S)[:2]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {"__name__": "readme"})
    assert out.getvalue() == shown


# --- console examples -----------------------------------------------------------------------------------------


EXAMPLE_PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
#: The results store's path as the docs show it (the test's own store prints as this).
SHOWN_STORE = "/home/me/.cache/kinarow/results.sqlite"

#: Examples that are not run, each with the reason: (page, command as written after ``$ ``) -> reason.
NOT_RUN: dict[tuple[str, str], str] = {
    ("README.md", "kinarow play 7x6k4:gravity,misere --engine take-even"):
        "a game to try, shown without a transcript (docs/misere.md has one, which runs)",
    ("README.md", "kinarow reproduce misere-table"): "about 25 s in two processes; its output is in docs/misere.md",
    ("README.md", "kinarow solve 7x4k4 --workers 2 --checkpoint jobs.sqlite"): "worker processes (test_parallel.py)",
    ("README.md", "kinarow solve 7x6k4:gravity --workers 2 --jobs 64 --tt-mb 4096"):
        "two workers with 4 GiB tables (test_parallel.py runs such jobs)",
    ("README.md", "kinarow solve 7x6k4:gravity --tt-mb 8192 --walk --strategy c4.json.gz --no-store"):
        "Connect Four's certificate: 22 min, 12 GiB",
    ("README.md", "kinarow solve 7x6k4:gravity --cluster tcp://HOST:8786"): "needs a Dask cluster",
    ("README.md", "kinarow settle 7x4k4 --draw-proof --out proofs"): "worker processes, about 10 s",
    ("README.md", "kinarow settle 8x4k4 --draw-proof --checkpoint walks --out proofs"): "about 3.5 min",
    ("README.md", "kinarow settle 8x4k4 --draw-proof --checkpoint walks --status"): "needs the walk above",
    ("README.md", "kinarow solve 10x4k4 --search proof --strategy 10x4k4.strategy.json.gz --walk --tt-mb 2048 "
                  "--no-store"): "(10,4,4) and its certificate: about 2 min, 2.2 GiB",
    ("README.md", "kinarow solve 11x4k4 --search proof --strategy 11x4k4.strategy.json.gz --walk --tt-mb 4096 "
                  "--no-store"): "(11,4,4) and its certificate: 23 min on a shared machine, 4.5 GiB",
    ("README.md", "kinarow solve 18x4k4 --moves e1 --search proof --walk --share --table "
                  "checkpoints/18x4k4-e1.table.npz --proof 18x4k4-e1.strategy.json.gz --tt-mb 10240 --no-store"):
        "(18,4,4), open: hours of one core and a 10 GiB table",
    ("cli.md", "kinarow solve 8x7k4:gravity --moves 'd d c' --time-limit 5"):
        "a time budget: its figures depend on the machine (8 x 7 has no opening book and takes hours to solve)",
    ("misere.md", "kinarow reproduce misere-table --workers 2 --proof proofs"): "about 30 s in two worker processes",
    ("misere.md", "kinarow reproduce misere-cylinder"): "about 5 min in one process (three of it the checks of the "
    "shipped certificates)",
    ("parallel.md", "kinarow solve 9x4k4 --moves e2 --checkpoint e2.sqlite --status"):
        "needs a checkpoint of hours of work",
    ("parallel.md", "kinarow settle 9x4k4 --draw-proof --checkpoint walks --status"):
        "needs a draw-proof walk of hours of work",
    ("store.md", "kinarow pairing-table --max-side 9 > table.md"): "minutes of work, stopped by Ctrl-C",
    ("tiling.md", "kinarow tiling search --k 8 --shape 3x4 --mirror"): "a search of about 90 s",
    ("torus.md", "kinarow torus 9 --class 0 --no-graph --load t8.bin"):
        "needs t8.bin, the enumeration of the 8x8 torus's 194,543 classes",
    ("web.md", "kinarow serve"): "a server that runs until stopped (test_web.py starts it)",
}

#: Examples run only in the full suite (slow tier), with the time they take: (page, command) -> reason.
LONG: dict[tuple[str, str], str] = {
    ("certificates.md", "kinarow solve 5x4k5 --knowledge none --proof 5x4k5.json"): "about 1 s",
    ("certificates.md", "kinarow check 5x4k5.json"): "reads the file of the slow example above",
    ("certificates.md", "kinarow check bad-game.json"): "is made from the file of the slow example above",
    ("matching.md", "kinarow reproduce set-matching-table"): "about 60 s (the census of structures)",
    ("matching.md", "kinarow matching-search"): "about 7 s",
    ("pairing.md", "kinarow pairing 8x8k6"): "a SAT search, about 1 s",
    ("misere.md", "kinarow check te.json"): "re-examines 7,312 positions in plain Python, about 0.5 s",
}

COMMAND_LINE = re.compile(r"^\$ (.*)$")
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
DATE = re.compile(r"\d{4}-\d\d-\d\d(?: \d\d:\d\d(?::\d\d)?(?: UTC)?)?")
#: Numbers shown for the reader's idea only: any number matches (times, speeds).
ANY_BEFORE = re.compile(r'(?:seconds:|nodes/s:|"seconds":|"nodes_per_second":)\s*$')
ANY_AFTER = re.compile(r"^\s*s\b")
#: Node counts: the real count must be within a factor of 2 of the one shown.
NODES_BEFORE = re.compile(r'(?:nodes:|"nodes":)\s*$')
NODES_AFTER = re.compile(r"^\s*nodes\b")
LOOSE_MARK = re.compile(r"\s+# ~(?: .*)?$")
COMMENT = re.compile(r"\s+#\s.*$")
#: The address of ``kinarow serve`` in web.md's ``curl`` examples, which are answered in process.
SERVER = "localhost:8765"
#: ``...`` where a JSON value or members are left out: ``{..., "a": 1}``, ``[1, ...]``.
ELISION = re.compile(r"(?<=[\[{ ])\.\.\.(?=[,}\]])")
#: In a ``kinarow play`` transcript, a prompt and what the user typed after it.
#: a long run's live line on a stderr that is not a terminal ("window game W(3), k = 3: 0 nodes, 60 s"): printed
#: once a minute, so whether an example prints one depends on the machine's speed; no example shows one
LIVE_LINE = re.compile(r"^.+: [\d,]+ [a-z ]+, [\d,]+ s$")
PROMPT = re.compile(r"^(Your move as [^:]*: )(.*)$")
#: a kernel family's first compile, said on stderr and in solve's report only when numba's cache does not hold it
#: yet (so whether an example prints them depends on what ran before on the machine); no example shows them
COMPILE_LINES = re.compile(r"^(kinarow: compiling .* \.\.\.|compiled: .* s, once \(.*)$")


class Example:
    """One ``$ kinarow ...`` line of a page and the output shown under it."""

    def __init__(self, page: str, line: int, command: str, shown: list[str]) -> None:
        self.page, self.line, self.command, self.shown = page, line, command, shown

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def console_examples(path: Path) -> list[Example]:
    """Every ``$ kinarow ...`` command in the fenced blocks of ``path``, with the lines shown under it."""
    examples: list[Example] = []
    page = path.name
    in_block, current, indent = False, None, 0
    lines = path.read_text(encoding="utf-8").splitlines()
    number = 0
    while number < len(lines):
        text = lines[number]
        number += 1
        if text.lstrip().startswith("```"):  # a block may be indented, in a list item
            in_block, current, indent = not in_block, None, len(text) - len(text.lstrip())
            continue
        if not in_block:
            continue
        text = text[indent:]
        match = COMMAND_LINE.match(text)
        if match is None:
            if current is not None:
                current.shown.append(text)
            continue
        start, command = number, match.group(1)
        while command.endswith("\\") and number < len(lines):
            command = command[:-1].rstrip() + " " + lines[number].strip()
            number += 1
        command = COMMENT.sub("", command)
        if not command.startswith(("kinarow ", f"curl -s {SERVER}/")):
            current = None  # another program's line: not an example of ours
            continue
        current = Example(page, start, command, [])
        examples.append(current)
    return examples


def _compare_numbers(shown: str, real: str, kind: str) -> bool:
    if kind == "any":
        return True
    a, b = float(shown.replace(",", "")), float(real.replace(",", ""))
    if kind == "nodes":
        return a / 2 <= b <= a * 2
    return shown == real


def _parts(line: str, loose: bool) -> list[tuple[str, str]]:
    """A line as (kind, text) pieces: text, and numbers of kind "exact", "any" or "nodes"."""
    parts: list[tuple[str, str]] = []
    position = 0
    line = DATE.sub("<date>", line)
    for match in NUMBER.finditer(line):
        before, after = line[position:match.start()], line[match.end():]
        parts.append(("text", " ".join(before.split())))
        kind = ("any" if loose or ANY_BEFORE.search(before) or ANY_AFTER.match(after)
                else "nodes" if NODES_BEFORE.search(before) or NODES_AFTER.match(after) else "exact")
        parts.append((kind, match.group(0)))
        position = match.end()
    parts.append(("text", " ".join(line[position:].split())))
    return parts


def line_matches(shown: str, real: str) -> bool:
    """Whether a real line fits a shown one (see test_console_examples_print_what_they_show)."""
    loose = LOOSE_MARK.search(shown) is not None
    shown = LOOSE_MARK.sub("", shown)
    if shown == real:
        return True
    if ELISION.search(shown):
        pattern = ".*".join(re.escape(part) for part in ELISION.split(shown))
        return re.fullmatch(pattern, real) is not None
    if loose and ":" in shown:  # only the label is compared
        shown, real = shown.split(":", 1)[0], real.split(":", 1)[0]
    a, b = _parts(shown, loose), _parts(real, loose)
    if len(a) != len(b):
        return False
    for (kind, text), (_, other) in zip(a, b, strict=True):
        if kind == "text":
            if text != other:
                return False
        elif kind == "exact" and not any(k != "exact" for k, _ in a):
            return False  # a line without loose figures is compared exactly (above)
        elif not _compare_numbers(text, other, kind):
            return False
    return True


def output_matches(shown: list[str], real: list[str]) -> bool:
    """Whether the real lines fit the shown ones; a shown line ``...`` stands for any number of lines."""
    @functools.cache
    def fits(i: int, j: int) -> bool:
        if i == len(shown):
            return j == len(real)
        if shown[i].strip() == "...":
            return any(fits(i + 1, j2) for j2 in range(j, len(real) + 1))
        return j < len(real) and line_matches(shown[i], real[j]) and fits(i + 1, j + 1)

    return fits(0, 0)


def prepare_cli_files(folder: Path, name: str) -> None:
    """The files cli.md's check examples read that no example writes."""
    if name == "tampered.json":  # 4x3k3.json with Black's opening b2 changed to the corner a1
        data = json.loads((folder / "4x3k3.json").read_text(encoding="utf-8"))
        data["choices"]["." * 12] = "a1"
        (folder / name).write_text(json.dumps(data), encoding="utf-8")
    elif name == "broken.json":
        (folder / name).write_text("not json\n", encoding="utf-8")


def prepare_certificate_files(folder: Path, name: str) -> None:
    """The files certificates.md's check examples read that no example writes."""
    if name == "bad-move.json":  # the one prescribed move of 4x3k3-b2a1.json changed
        data = json.loads((folder / "4x3k3-b2a1.json").read_text(encoding="utf-8"))
        (key,) = data["choices"]
        data["choices"][key] = "d3"
        (folder / name).write_text(json.dumps(data), encoding="utf-8")
    elif name == "bad-game.json":  # a pairing of 5x4k5 relabelled as 5x4k4
        data = json.loads((folder / "5x4k5.json").read_text(encoding="utf-8"))
        data["game"] = "5x4k4"
        (folder / name).write_text(json.dumps(data), encoding="utf-8")
    elif name == "bad-version.json":
        data = json.loads((folder / "4x3k3-b2a1.json").read_text(encoding="utf-8"))
        data["version"] = 9
        (folder / name).write_text(json.dumps(data), encoding="utf-8")
    elif name == "broken.json":
        (folder / name).write_text('{"format":\n', encoding="utf-8")


def prepare_web_files(folder: Path, name: str) -> None:
    """The certificate web.md's check example reads: the page's download, as ``solve --proof`` writes it."""
    if name == "4x3k3-b2a1c2.json":
        assert main(["solve", "4x3k3", "--moves", "b2 a1 c2", "--proof", str(folder / name)]) == 0


#: Files that an example reads but no example writes, made by these functions (page -> function(folder, name)).
PREPARE = {"cli.md": prepare_cli_files, "certificates.md": prepare_certificate_files, "web.md": prepare_web_files}


def typed(example: Example, monkeypatch: pytest.MonkeyPatch) -> None:
    """Answer ``kinarow play``'s prompts with what the shown transcript typed after them, then end of input.

    The terminal echoes what the user types after the prompt, so the prompt and the answer are printed
    together, as the transcript shows them.
    """
    answers = iter(match.group(2) for line in example.shown if (match := PROMPT.match(line)))

    def fake_input(prompt: str = "") -> str:
        answer = next(answers, None)
        if answer is None:
            print(prompt)
            raise EOFError
        print(prompt + answer)
        return answer

    monkeypatch.setattr("builtins.input", fake_input)


def ask_server(example: Example, words: list[str]) -> str:
    """The web server's answer to a ``curl -s localhost:8765/api/... -d BODY`` example (in process)."""
    global WEB_APP
    from kinarow.web.server import App, answer

    assert "-d" in words, f"{example.where}: only POST requests with a body (-d) are run"
    if WEB_APP is None:
        WEB_APP = App(think=2.0)
    _, data = answer(WEB_APP, words[2].removeprefix(SERVER), words[words.index("-d") + 1].encode("utf-8"))
    return json.dumps(data)


WEB_APP: Any = None


def run_example(example: Example, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                folder: Path) -> list[str]:
    """Run one example in ``folder``; the lines it prints (stdout, then stderr)."""
    words = shlex.split(example.command)
    if words[0] == "curl":
        return [ask_server(example, words)]
    if words[1] == "play":
        typed(example, monkeypatch)
    pipe: list[str] = []
    if "|" in words:
        at = words.index("|")
        words, pipe = words[:at], words[at + 1:]
    assert not any(w in {">", "<", ">>", "|"} for w in words), f"{example.where}: no redirection here; add to NOT_RUN"
    prepare = PREPARE.get(example.page)
    if prepare is not None:
        for word in words:
            if not (folder / word).exists():
                prepare(folder, word)
        capsys.readouterr()
    _, out, err = run(capsys, *words[1:])
    lines = (out + err).replace(str(folder / "store.sqlite"), SHOWN_STORE).replace(f"{folder}/", "").splitlines()
    lines = [line for line in lines if not LIVE_LINE.match(line) and not COMPILE_LINES.match(line)]
    if pipe:
        assert pipe[0] in {"head", "tail"} and len(pipe) == 2, f"{example.where}: only '| head -N' or '| tail -N'"
        count = int(pipe[1].lstrip("-n"))
        lines = lines[:count] if pipe[0] == "head" else lines[-count:]
    return lines


def run_page(path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, folder: Path,
             *, long: bool) -> int:
    failures, ran = [], 0
    for example in console_examples(path):
        key = (example.page, example.command)
        if key in NOT_RUN or (key in LONG and not long):
            continue
        real = run_example(example, capsys, monkeypatch, folder)
        ran += 1
        if not output_matches(example.shown, real):
            failures.append(f"{example.where}: $ {example.command}\n--- shown:\n" + "\n".join(example.shown)
                            + "\n--- printed:\n" + "\n".join(line[:1000] for line in real))
    assert not failures, "console examples that print something else:\n\n" + "\n\n".join(failures)
    return ran


@pytest.fixture
def example_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder with a fresh results store, as a new user would start."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KINAROW_STORE", str(tmp_path / "store.sqlite"))
    monkeypatch.setenv("COLUMNS", "80")  # usage blocks wrap at the terminal's width
    monkeypatch.setattr(kinarow.limits, "cores", lambda: 2)  # the pages show a machine of two cores
    return tmp_path


@pytest.mark.parametrize("path", EXAMPLE_PAGES, ids=lambda p: p.name)
def test_console_examples_print_what_they_show(path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch, example_folder: Path) -> None:
    """Every ``$ kinarow ...`` example of README.md and docs/*.md prints what the page shows under it.

    An example is a line ``$ kinarow ARGS`` in a fenced block (a line ending in ``\\`` continues on the
    next; `` # note`` ends it); the lines under it, up to the next ``$`` line or the block's end, are its
    output: stdout, then stderr. The examples of a page run in order in one empty folder with a fresh
    results store (shown as ``/home/me/.cache/kinarow/results.sqlite``), so a later example can read a file
    an earlier one wrote; files that none writes are made by PREPARE. ``| head -N`` and ``| tail -N`` are
    understood, other redirections are not. ``curl -s localhost:8765/api/... -d BODY`` examples
    (web.md) are answered by the web server's code in process; in their output ``...`` may stand for
    left-out JSON (``{..., "a": 1}``). ``kinarow play`` is given, at each prompt, what its transcript
    shows typed after the prompt (``Your move as Black (X): b``), then end of input. Output is compared
    line by line, exactly, except:

    - a shown line ``...`` stands for any number of printed lines;
    - times and speeds (the number after ``seconds:``, ``nodes/s:``, ``"seconds":``,
      ``"nodes_per_second":``, or before `` s``) and dates match any number or date;
    - node counts (after ``nodes:`` or ``"nodes":``, or before `` nodes``) match a count within a factor
      of 2;
    - a shown line ending in `` # ~`` (or `` # ~ note``, a note for the reader) is loose: only its
      text before the first ``:`` (the whole line if it has none) is compared, with every number in it
      matching any number. Use it for a line whose content varies from run to run.

    In a line with a loose figure, runs of spaces count as one.

    An example that is interactive, needs worker processes or takes long is listed, with the reason,
    in NOT_RUN (never run) or LONG (run only in the slow tier, by the test below).
    """
    run_page(path, capsys, monkeypatch, example_folder, long=False)


@pytest.mark.parametrize("path", [p for p in EXAMPLE_PAGES if any(page == p.name for page, _ in LONG)],
                         ids=lambda p: p.name)
def test_long_console_examples_print_what_they_show(path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    example_folder: Path) -> None:
    """The pages with LONG examples, run in full (with the quick examples, which may write their files)."""
    run_page(path, capsys, monkeypatch, example_folder, long=True)


def test_the_comparison_masks_only_what_it_says() -> None:
    assert line_matches("seconds:   0.020", "seconds:   12.5")
    assert line_matches("nodes:     1,000", "nodes:     1,999")
    assert not line_matches("nodes:     1,000", "nodes:     2,001")
    assert not line_matches("nodes:     1", "nodes:     37,533")
    assert line_matches('{"nodes": 138, "seconds": 0.1}', '{"nodes": 150, "seconds": 0.00088}')
    assert not line_matches('{"nodes": 138, "seconds": 0.1, "from_store": false}', '{"nodes": 138, "seconds": 0.1}')
    assert not line_matches("positions:    7,312", "positions:    7,313")
    assert not line_matches("best move: b2", "best move: b3")
    assert line_matches("in 2,010.1 s at 2026-11-24 11:03:38 UTC", "in 3.0 s at 2027-01-02 00:00:00 UTC")
    assert line_matches("pairs (9): a2-d2 b1-b2   # ~ varies", "pairs (9): a2-b2 b1-b3")
    assert not line_matches("pairs (9): a2-d2   # ~", "unpaired: a2")
    assert output_matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert output_matches(["a", "...", "d"], ["a", "d"])
    assert not output_matches(["a", "d"], ["a", "b", "d"])
    assert not output_matches(["a", "..."], ["b"])


def test_every_listed_example_exists() -> None:
    """NOT_RUN and LONG name examples on their pages, so the lists do not outlive the docs."""
    present = {(e.page, e.command) for path in EXAMPLE_PAGES for e in console_examples(path)}
    stale = sorted(set(NOT_RUN) - present) + sorted(set(LONG) - present)
    assert not stale, "NOT_RUN or LONG name examples no page shows: " + repr(stale)
    assert not set(NOT_RUN) & set(LONG), "an example is both not run and long"


def synopsis() -> dict[str, set[str]]:
    """The options cli.md's synopsis (its first block) gives each command: command -> {"--option", ...}."""
    block = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("```\n", 2)[1]
    options: dict[str, set[str]] = {}
    command = ""
    for line in block.splitlines():
        if line.startswith("kinarow "):
            command = line.split()[1]
        options.setdefault(command, set()).update(re.findall(r"(?<![\w-])--[a-z][a-z-]*", line.split("(see")[0]))
    return options


def test_cli_synopsis_names_every_option_of_every_command() -> None:
    """cli.md's synopsis lists each command with exactly the options its parser takes (besides --help)."""
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    shown = synopsis()
    shown.pop("--version", None)
    wrong = sorted(f"{name}: not a command" for name in shown.keys() - commands.choices.keys())
    for name, sub in commands.choices.items():
        # an option with two spellings (--proof, --out) is listed under either
        spellings = [{o for o in a.option_strings if o.startswith("--")} for a in sub._actions if a.dest != "help"]
        given = shown.get(name, set())
        wrong += [f"{name}: {'/'.join(sorted(s))} is not listed" for s in spellings if s and not s & given]
        wrong += [f"{name}: {o} is no option" for o in sorted(given - set().union(*spellings))]
    assert not wrong, "docs/cli.md's synopsis is stale:\n" + "\n".join(wrong)


def test_cli_md_names_every_key_of_solve_json(capsys: pytest.CaptureFixture[str], example_folder: Path) -> None:
    """Every key that ``solve --json`` prints is named in cli.md's paragraph on ``--json``."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    paragraph = text[text.index("With `--json`, stdout holds"):]
    named = set(re.findall(r"`(\w+)`", paragraph[:paragraph.index("\n\n")]))
    printed: set[str] = set()
    for argv in (["4x4k4"], ["4x4k3:gravity"], ["3x3k9"], ["5x4k4", "--knowledge", "none", "--max-nodes", "5"],
                 ["4x3k3", "--strategy", "s.json", "--proof", "p.json"], ["4x3k3"]):
        code, out, _ = run(capsys, "solve", *argv, "--json")
        assert code == 0
        printed |= set(json.loads(out))
    assert printed <= named, f"cli.md does not name {sorted(printed - named)}"
