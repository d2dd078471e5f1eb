"""The misère table's parametric evidence: certificates, each checked once, that settle whole families.

:func:`certificates` lists the invariant certificates kinarow builds for a k
(take-even: the second player wins every even height at every width ``>= k``,
on the plane and on cylinders; delayed take-even for k >= 3: every odd height
``>= 3``, the second player on even widths ``>= k`` and the first on odd ones,
on cylinders from ``2k + 1``; the checker rejects the first player's on
cylinders for k = 3, where the unpaired column's stone meets its
neighbours across the seam); :func:`proven` the checked ones that
cover a board, each with the checker's verdict (:mod:`kinarow.proofs.invariant`),
so that a cell of the table says which certificate settled it;
:func:`narrow_draw` the narrow-board draw (``w < k``, :mod:`kinarow.proofs.narrow`).

>>> [(cert.strategy, verdict.ok) for cert, verdict in proven(4, 7, 6)]
[('take-even', True)]
>>> [(cert.strategy, str(cert.player)) for cert, verdict in proven(4, 7, 5)]
[('delayed-take-even', 'first')]
"""

from __future__ import annotations

from functools import cache

from kinarow.proofs import Verdict, check_data
from kinarow.proofs.invariant import InvariantCertificate, delayed_take_even_certificate, take_even_certificate
from kinarow.proofs.narrow import NarrowDraw


def certificates(k: int, cylinder: bool = False) -> list[InvariantCertificate]:
    """The invariant certificates kinarow builds for misère Connect-k (on cylinders if ``cylinder``)."""
    found = [take_even_certificate(k, cylinder)] if k >= 2 else []
    if k >= 3:
        found += [delayed_take_even_certificate(k, False, cylinder), delayed_take_even_certificate(k, True, cylinder)]
    return found


@cache
def _checked(k: int, cylinder: bool) -> tuple[tuple[InvariantCertificate, Verdict], ...]:
    return tuple((cert, check_data(cert.to_json())) for cert in certificates(k, cylinder))


@cache
def _narrow(k: int) -> tuple[NarrowDraw, Verdict]:
    cert = NarrowDraw(k)
    return cert, check_data(cert.to_json())


def narrow_draw(k: int, w: int, h: int, cylinder: bool = False) -> tuple[NarrowDraw, Verdict] | None:
    """The checked narrow-board draw certificate covering the board (``W < k``, not a cylinder), or None."""
    if cylinder or not 1 <= w < k:
        return None
    cert, verdict = _narrow(k)
    return (cert, verdict) if verdict.ok else None


def proven(k: int, w: int, h: int, cylinder: bool = False) -> list[tuple[InvariantCertificate, Verdict]]:
    """The certificates for ``WxHkK:gravity,misere`` (``,cylinder``) whose family holds the board and whose
    check passed."""
    return [(cert, verdict) for cert, verdict in _checked(k, cylinder)
            if verdict.ok and cert.covers(k, w, h, cylinder)]
