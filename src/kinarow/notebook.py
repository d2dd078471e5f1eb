"""Pictures in Jupyter: games, positions, results, pairings, matching sets, tilings and certificates.

In a notebook (any IPython shell) the objects of ``kinarow`` display as SVG
or HTML; everywhere else, and in ``repr()`` / ``str()``, they stay plain text.

Why formatters registered from here, and not ``_repr_svg_`` methods on the
classes: the pictures are drawn by :mod:`kinarow.svg`, a library module, and
the rules (``game.py``, ``position.py``, ...) and the certificate checkers
(``proofs/``) may import only the rules (``tests/test_layers.py``). So the
classes know nothing of pictures; this module, in the library layer, tells
IPython how to show each of them. It names the types by module and class name
(IPython's ``for_type_by_name``), so registering imports neither the search
(numba) nor the knowledge modules: a type is drawn only once it exists.

``import kinarow`` registers them by itself when it runs inside an IPython
shell; elsewhere ``%load_ext kinarow`` does (:func:`kinarow.load_ipython_extension`).
Each function below returns the picture as text, or None when there is none
(IPython then shows the plain text), so they also work without IPython:

>>> from kinarow import Game
>>> svg_of(Game("3x3k3").position("b2 a1")).startswith("<svg")
True
>>> html_of(Game("3x3k3").position("b2")) is None  # a position is a picture, not HTML
True
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from kinarow import svg
from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position

#: the colour of the best move on a result's board (the heat map's colour of a win)
BEST_MOVE_COLOUR = svg.HEAT_COLOURS["win"]


# -- the pictures, one function per type -------------------------------------------------------
def game_svg(game: Game) -> str:
    """The empty board of ``game``."""
    return svg.board(game.position(), title=str(game))


def position_svg(position: Position) -> str:
    """The position, its stones numbered in the order they were played."""
    return svg.board(position, title=str(position.game))


def _position_of(game: str, moves: str | list[str]) -> Position:
    return Game(game).position(moves)


def _figures(rows: list[tuple[str, str]]) -> str:
    cells = "".join(f"<tr><th style='text-align:left;padding-right:1em'>{escape(name)}</th>"
                    f"<td style='text-align:left'>{escape(value)}</td></tr>" for name, value in rows if value)
    return f"<table>{cells}</table>"


def _div(*parts: str) -> str:
    return "<div class='kinarow'>" + "".join(parts) + "</div>"


def _sentence(text: str) -> str:
    return f"<p><strong>{escape(text)}</strong></p>"


def result_html(result: Any) -> str:
    """A :class:`kinarow.search.solve.Result`: its value in words, the figures of the search, and the board
    with the best move marked."""
    position = _position_of(result.game, result.moves)
    moves = f" after {position.move_text()}" if position.moves else ""
    rows = [
        ("game", f"{result.game}{moves}"),
        ("value", str(result.value)),
        ("best move", result.best_move or ""),
        ("nodes", f"{result.nodes:,}"),
        ("seconds", f"{result.seconds:.3f}"),
        ("search", result.search or ("results store" if result.from_store else "")),
        ("stopped", result.stopped or ""),
        ("certificate", result.proof.what if result.proof is not None else ""),
    ]
    fills: dict[int, str] = {}
    legend: list[tuple[str, str]] = []
    if result.best_move:
        cell = position.geometry.parse_cell(result.best_move)
        fills[cell] = BEST_MOVE_COLOUR
        legend.append((BEST_MOVE_COLOUR, f"best move: {result.best_move}"))
    picture = svg.board(position, fills=fills, legend=legend, title=str(position.game))
    return _div(_sentence(result.describe()), _figures(rows), picture)


def pairing_svg(pairing: Any) -> str:
    """A :class:`kinarow.knowledge.pairing.Pairing`: its pairs drawn over the position."""
    position = _position_of(pairing.game, pairing.moves)
    parse = position.geometry.parse_cell
    cells = [(parse(a), parse(b)) for a, b in pairing.pairs]
    return svg.board(position, pairs=cells, title=f"{pairing.game}: a pairing of {len(cells)} pairs")


def pairing_result_html(result: Any) -> str:
    """A :class:`kinarow.knowledge.pairing.PairingResult`: the answer in words, its figures, and the pairing."""
    after = f" after {result.moves}" if result.moves else ""
    if result.exists:
        words = f"A good pairing exists for {result.game}{after}: the first player cannot win."
    elif result.exists is None:
        words = f"No answer for {result.game}{after}: the search stopped first."
    else:
        words = f"{result.game}{after} has no good pairing."
    rows = [("proved by", result.proved_by), ("found by", result.method), ("live groups", str(result.live_groups)),
            ("unpaired", " ".join(result.unpaired)), ("seconds", f"{result.seconds:.3f}")]
    picture = pairing_svg(result.pairing) if result.pairing is not None else position_svg(
        _position_of(result.game, result.moves))
    return _div(_sentence(words), _figures(rows), picture)


def find_result_html(result: Any) -> str:
    """A :class:`kinarow.knowledge.matching.FindResult` (a Maker-Breaker game on marker groups): who wins, and
    the matching set's groups lettered as in the certificate."""
    if result.breaker_wins is None:
        words = "No answer: the search ran out of its budget."
    elif result.breaker_wins:
        words = "Breaker wins: the groups have a matching set."
    else:
        words = "Maker wins: the groups have no matching set."
    rows = [("markers", str(len(result.markers))), ("groups", str(len(result.groups))),
            ("groups, by marker", " ".join("".join(g) if all(len(m) == 1 for m in g) else ",".join(g)
                                           for g in result.groups)),
            ("nodes", f"{result.nodes:,}"), ("seconds", f"{result.seconds:.3f}")]
    if result.matching_set is not None:
        rows.insert(2, ("main markers", " ".join(result.matching_set.main_markers)))
        rows.insert(3, ("depth", str(result.matching_set.depth)))
    return _div(_sentence(words), _figures(rows))


def matching_proof_svg(proof: Any) -> str:
    """A :class:`kinarow.proofs.matching.MatchingProof`: every cover's markers lettered, its groups drawn."""
    position = _position_of(proof.game, proof.moves)
    markers = [m for _, ms in proof.covers for m in ms.markers]
    groups = [g for _, ms in proof.covers for g in ms.groups]
    return svg.matching_set(position, list(dict.fromkeys(markers)), groups,
                            title=f"{position.game}: {proof.conclusion()}")


def tiling_svg(tiling: Any) -> str:
    """A :class:`kinarow.proofs.tiling.Tiling`: a patch of the plane with its groups and longest runs."""
    from kinarow.knowledge.infinite import tiling as tilings

    return tilings.svg(tiling)


def certificate_picture(data: dict[str, Any]) -> str | None:
    """The picture of a certificate (its JSON object): pairs for a pairing, lettered markers for a matching set,
    the position for the others; None when it names no board."""
    kind = str(data.get("format", ""))
    if kind == "kinarow.tiling":
        from kinarow.proofs.tiling import Tiling

        return tiling_svg(Tiling.from_json(data))
    if "game" not in data:
        return None
    moves = data.get("moves", [])
    position = _position_of(str(data["game"]), moves if isinstance(moves, list | str) else [])
    if kind == "kinarow.pairing":
        parse = position.geometry.parse_cell
        pairs = [(parse(a), parse(b)) for a, b in data.get("pairs", [])]
        return svg.board(position, pairs=pairs, title=f"{position.game}: {data.get('claim', 'a pairing')}")
    if kind == "kinarow.matching":
        from kinarow.proofs.matching import MatchingProof

        return matching_proof_svg(MatchingProof.from_json(data))
    claim = data.get("claim")
    return svg.board(position, title=f"{position.game}: {claim}" if claim else str(position.game))


def proof_html(proof: Any) -> str:
    """A :class:`kinarow.search.certify.Proof` (``result.proof``): what it proves, its format, and its picture."""
    rows = [("kind", proof.kind or ""), ("format", proof.format or "")]
    if proof.data is not None:
        rows += [("game", str(proof.data.get("game", ""))), ("claim", str(proof.data.get("claim", "")))]
    picture = certificate_picture(proof.data) if proof.data is not None else None
    return _div(_sentence(proof.what[:1].upper() + proof.what[1:]), _figures(rows), picture or "")


def verdict_html(verdict: Any) -> str:
    """A checker's :class:`kinarow.proofs.Verdict`: accepted or rejected, with its reason and figures."""
    mark, colour = ("accepted", "#2ca02c") if verdict.ok else ("rejected", "#d62728")
    head = f"<p><strong style='color:{colour}'>{mark}</strong>: {escape(verdict.reason)}</p>"
    rows = [("format", verdict.format or "")] + [(str(k), str(v)) for k, v in verdict.details.items()]
    return _div(head, _figures(rows))


#: (module, class name) -> (MIME type, drawing function); the types are named, not imported
FORMATTERS: dict[tuple[str, str], tuple[str, Callable[[Any], str]]] = {
    ("kinarow.game", "Game"): ("image/svg+xml", game_svg),
    ("kinarow.position", "Position"): ("image/svg+xml", position_svg),
    ("kinarow.search.result", "Result"): ("text/html", result_html),
    ("kinarow.search.certify", "Proof"): ("text/html", proof_html),
    ("kinarow.knowledge.pairing", "Pairing"): ("image/svg+xml", pairing_svg),
    ("kinarow.knowledge.pairing", "PairingResult"): ("text/html", pairing_result_html),
    ("kinarow.knowledge.matching", "FindResult"): ("text/html", find_result_html),
    ("kinarow.proofs.matching", "MatchingProof"): ("image/svg+xml", matching_proof_svg),
    ("kinarow.proofs.tiling", "Tiling"): ("image/svg+xml", tiling_svg),
    ("kinarow.proofs", "Verdict"): ("text/html", verdict_html),
}


def _draw(value: Any, kind: str) -> str | None:
    for cls in type(value).__mro__:
        found = FORMATTERS.get((cls.__module__, cls.__name__))
        if found is not None:
            mime, function = found
            if mime != kind:
                return None
            try:
                return function(value)
            except KinarowError:  # e.g. a board too large to draw: the plain text stands
                return None
    return None


def svg_of(value: Any) -> str | None:
    """The SVG picture of a kinarow object, or None when it has none (or is drawn as HTML)."""
    return _draw(value, "image/svg+xml")


def html_of(value: Any) -> str | None:
    """The HTML of a kinarow object, or None when it has none (or is drawn as SVG)."""
    return _draw(value, "text/html")


def register(shell: Any) -> None:
    """Tell an IPython shell how to draw each type in :data:`FORMATTERS` (its display formatters)."""
    formatters = shell.display_formatter.formatters
    for (module, name), (mime, _) in FORMATTERS.items():
        formatters[mime].for_type_by_name(module, name, svg_of if mime == "image/svg+xml" else html_of)
