"""Node and edge ids: made by the domain, identical in every backend, sortable by creation time.

An id is 13 hex digits of microseconds since the epoch followed by 11 random hex digits,
so ``sorted(ids)`` is creation order to the microsecond and two processes never collide.
The ids one write makes at its instant come from an :class:`IdSequence`, so they also sort
in the order the write made them (a whole import batch shares one microsecond: without it,
the random digits would order its pages).
"""

from __future__ import annotations

import re
import secrets

__all__ = ["ID_PATTERN", "IdSequence", "is_id", "new_id"]

ID_PATTERN = re.compile(r"^[0-9a-f]{24}$")


def new_id(at_us: int) -> str:
    return f"{at_us:013x}{secrets.token_hex(6)[:11]}"


_TAIL = 16**11  # the random part's range
_STEP = 256  # a sequence climbs by 1..256, from a start in the lower half: ~3e10 ids of room


class IdSequence:
    """Ids for one instant that sort in the order they are made (a random start and steps)."""

    __slots__ = ("_at", "_next")

    def __init__(self, at_us: int) -> None:
        self._at = at_us
        self._next = secrets.randbelow(_TAIL // 2)

    @property
    def at(self) -> int:
        return self._at

    def __call__(self) -> str:
        self._next += 1 + secrets.randbelow(_STEP)
        if self._next >= _TAIL:  # never in practice; stay valid rather than overflow
            self._next = secrets.randbelow(_TAIL)
        return f"{self._at:013x}{self._next:011x}"


def is_id(text: str) -> bool:
    return bool(ID_PATTERN.fullmatch(text))  # fullmatch: `$` would accept a trailing newline
