"""Proof objects (certificates) and their checkers.

Checkers import the rules (game, geometry, position) and never the search code.
"""

from typing import Any

from kinarow.errors import KinarowError


def require_format(data: Any, fmt: str, version: int, kind: str) -> None:
    """Raise one clear sentence unless ``data`` is a certificate of format ``fmt`` and ``version``."""
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise KinarowError(f"this is not a {kind} certificate; its 'format' must be '{fmt}'")
    if data.get("version") != version:
        raise KinarowError(f"{kind} certificate version {data.get('version')!r} is not supported; expected {version}")
