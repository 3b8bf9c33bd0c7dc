"""The pure model of ryvem: no I/O, no drivers, no faces (checked by import-linter)."""

from ryvem.domain.model import (
    LINKS,
    SUPERSEDES,
    Direction,
    Edge,
    Identity,
    NodeVersion,
    SearchHit,
    Stats,
    Step,
)
from ryvem.domain.scopes import GLOBAL, ScopeFilter, parse_scope, parse_scope_filter

__all__ = [
    "GLOBAL",
    "LINKS",
    "SUPERSEDES",
    "Direction",
    "Edge",
    "Identity",
    "NodeVersion",
    "ScopeFilter",
    "SearchHit",
    "Stats",
    "Step",
    "parse_scope",
    "parse_scope_filter",
]
