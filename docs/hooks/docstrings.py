"""A griffe extension for the API reference (mkdocs.yml): the package's docstrings, written for Sphinx and
doctest, read as Markdown.

* A doctest (lines from ``>>>`` to the next blank line) becomes a fenced ``pycon`` block, so its output is
  shown as code, not read as Markdown (``[['a1', 'a2']]`` would otherwise be taken for a link).
* A Sphinx role (:func:`solve`, :class:`~kinarow.game.Game`) becomes inline code (`solve`, `Game`).

Only the text mkdocstrings renders changes; the source is left as it is.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj|const|ref|term):`(~?)([^`]+)`")


def _role(match: re.Match[str]) -> str:
    short, target = match.group(1), match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if short else target}`"


def markdown(text: str) -> str:
    """``text`` with its doctests fenced and its Sphinx roles as inline code."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append(f"{indent}```")
            continue
        out.append(ROLE.sub(_role, line))
        i += 1
    return "\n".join(out)


class DoctestsAsCode(griffe.Extension):
    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
