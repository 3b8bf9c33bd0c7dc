"""Scopes are a column, not a folder: ``global``, ``repo:<uuid>`` or ``board:<slug>``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ryvem.domain.validation import SLUG, shorten
from ryvem.errors import InvalidInput

__all__ = ["GLOBAL", "ScopeFilter", "parse_scope", "parse_scope_filter"]

GLOBAL = "global"
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")


def parse_scope(text: str) -> str:
    """Validate one scope and return its canonical spelling."""
    if not isinstance(text, str):
        raise InvalidInput(f"scope must be a string, got {type(text).__name__}")
    if text == GLOBAL:
        return text
    shape, sep, rest = text.partition(":")
    if sep and shape == "repo" and _UUID.match(rest.lower()):
        return f"repo:{rest.lower()}"
    if sep and shape == "board" and SLUG.match(rest) and len(rest) <= 64:
        return text
    return _bad(text)


def _bad(text: str) -> str:
    raise InvalidInput(
        f"invalid scope {shorten(text)!r}: use 'global', 'repo:<uuid>' or 'board:<slug>'"
    )


@dataclass(frozen=True, slots=True)
class ScopeFilter:
    """Which scopes a read looks at: one exact scope, one shape (``repo:*``), or all."""

    exact: str | None = None
    shape: str | None = None  # "repo" or "board" (or "global")

    @property
    def is_all(self) -> bool:
        return self.exact is None and self.shape is None

    def matches(self, scope: str) -> bool:
        if self.exact is not None:
            return scope == self.exact
        if self.shape is not None:
            if self.shape == GLOBAL:
                return scope == GLOBAL
            return scope.startswith(self.shape + ":")
        return True

    @property
    def prefix(self) -> str | None:
        """``repo:`` for ``repo:*``; None otherwise."""
        return None if self.shape in (None, GLOBAL) else f"{self.shape}:"


ALL_SCOPES = ScopeFilter()


def parse_scope_filter(text: str | None) -> ScopeFilter:
    """``None``/``*``: all scopes; ``repo:*``/``board:*``: one shape; else one exact scope."""
    if text is None or text == "*":
        return ALL_SCOPES
    if text in ("repo:*", "board:*"):
        return ScopeFilter(shape=text[:-2])
    try:
        return ScopeFilter(exact=parse_scope(text))
    except InvalidInput:
        if not isinstance(text, str):
            raise
        # a filter takes the shapes too: say so where a write's message would not
        raise InvalidInput(
            f"invalid scope {shorten(text)!r}: use 'global', 'repo:<uuid>', 'board:<slug>', "
            "a shape ('repo:*', 'board:*') or '*' for every scope"
        ) from None
