"""Node and edge ids: made by the domain, identical in every backend, sortable by creation time.

An id is 13 hex digits of microseconds since the epoch followed by 11 random hex digits,
so ``sorted(ids)`` is creation order to the microsecond and two processes never collide.
"""

from __future__ import annotations

import re
import secrets

__all__ = ["ID_PATTERN", "is_id", "new_id"]

ID_PATTERN = re.compile(r"^[0-9a-f]{24}$")


def new_id(at_us: int) -> str:
    return f"{at_us:013x}{secrets.token_hex(6)[:11]}"


def is_id(text: str) -> bool:
    return bool(ID_PATTERN.fullmatch(text))  # fullmatch: `$` would accept a trailing newline
