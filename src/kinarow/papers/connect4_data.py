"""The published Connect Four table: who wins on a board of width w and height h (both at least 4, w + h <= 16)
with perfect play, and on which stone the game ends.

Transcribed from the two tables ("Outcome" and "Last Move") of the README of the c4 solver by Christophe
Steininger (github.com/ChristopheSteininger/c4, commit 80baa53): John Tromp's results for every board with
w + h <= 15 (2006) and for 8 x 8 (2015), and c4's own for w + h = 16. The README also gives c4's results on
seven boards with w + h >= 17: they are kept apart, in :data:`BEYOND` (8 x 9 with its outcome only), so that the
table of :data:`PUBLISHED` stays the complete one to w + h = 16. Of the five boards with w + h = 17 that are at
least as wide as high (13 x 4, 12 x 5, 11 x 6, 10 x 7, 9 x 8) none is published.

"Last move" is the number of the stone (counting from the first of the game) that ends the game when both play
perfectly, the winner ending it as soon as it can and the loser as late as it can; for a draw it is w * h, the
last cell filled. A first-player win ends on an odd stone, a second-player win on an even one.

>>> PUBLISHED[(7, 6)]
(<Value.FIRST: 'first'>, 41)
>>> len(PUBLISHED)
45
"""

from __future__ import annotations

from kinarow.values import Value

SOURCE = ("J. Tromp (w + h <= 15, 2006; 8 x 8, 2015) and C. Steininger (w + h = 16), as tabulated in the "
          "README of github.com/ChristopheSteininger/c4")

#: the largest w + h the table covers, and the smallest side
MAX_SUM, MIN_SIDE = 16, 4

_D, _1, _2 = Value.DRAW, Value.FIRST, Value.SECOND

#: the published rows, by height: (outcome, last move) for widths 4, 5, 6, ... up to w + h = 16
_BY_HEIGHT: dict[int, list[tuple[Value, int]]] = {
    4: [(_D, 16), (_D, 20), (_2, 24), (_D, 28), (_2, 32), (_2, 36), (_2, 40), (_2, 44), (_2, 48)],
    5: [(_D, 20), (_D, 25), (_D, 30), (_D, 35), (_1, 39), (_1, 41), (_1, 47), (_1, 51)],
    6: [(_D, 24), (_D, 30), (_2, 36), (_1, 41), (_2, 48), (_2, 52), (_1, 59)],
    7: [(_D, 28), (_D, 35), (_1, 41), (_D, 49), (_1, 53), (_1, 55)],
    8: [(_D, 32), (_D, 40), (_2, 48), (_1, 55), (_2, 62)],
    9: [(_D, 36), (_D, 45), (_1, 53), (_D, 63)],
    10: [(_D, 40), (_D, 50), (_2, 60)],
    11: [(_D, 44), (_D, 55)],
    12: [(_D, 48)],
}

#: (width, height) -> (outcome, last move): every board with both sides at least 4 and w + h <= 16
PUBLISHED: dict[tuple[int, int], tuple[Value, int]] = {
    (MIN_SIDE + i, h): row for h, rows in _BY_HEIGHT.items() for i, row in enumerate(rows)
}


#: c4's results past w + h = 16, from the same README: (width, height) -> (outcome, last move or None where the
#: README gives the outcome only)
BEYOND: dict[tuple[int, int], tuple[Value, int | None]] = {
    (8, 9): (_1, None), (7, 10): (_1, 69), (6, 11): (_1, 63), (5, 12): (_D, 60), (4, 13): (_D, 52),
    (6, 12): (_2, 72), (5, 13): (_D, 65),
}


def boards() -> list[tuple[int, int]]:
    """Every (width, height) of the table, smallest boards first (then the narrower)."""
    return sorted(PUBLISHED, key=lambda wh: (wh[0] * wh[1], wh[0]))
