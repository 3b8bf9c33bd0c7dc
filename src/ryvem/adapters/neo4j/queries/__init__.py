"""The Neo4j adapter's queries: one ``.cypher`` file per query, named after it.

Each file starts with ``//`` comment lines naming the query and its parameters. Values are
always ``$parameters``; the only text ever spliced into a query is a variable-length bound
(an ``int`` clamped to [1, 10] by the domain), through :func:`with_bound`.

The adapter sends every query through :func:`packed`: each ``$name`` becomes ``$p.name`` and
the values travel as one map parameter ``p``. Neo4j 5 keys its plan cache on the query text
*and* on each top-level parameter's type and size (an empty list, a list of 1, of 20, of 500
are different entries), so a write whose lists vary in length — every write — would replan
``apply_plan`` (seconds of planning) again and again; one map parameter keeps one plan per
text.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import NamedTuple

__all__ = ["Packed", "load", "names", "packed", "with_bound"]

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_BOUND = "__MAX_HOPS__"
# A string literal, a quoted name or a comment (left as they are), or a $parameter.
_TOKEN = re.compile(
    r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`|//[^\n]*)|\$([A-Za-z_][A-Za-z0-9_]*)"""
)
PACK = "p"
"""The name of the one map parameter a packed query reads its values from."""


class Packed(NamedTuple):
    """A query rewritten to read ``$p.name`` for each ``$name``, and the names it reads."""

    text: str
    names: frozenset[str]


@cache
def load(name: str) -> str:
    """The text of ``cypher/<name>.cypher`` (comment lines kept; Cypher ignores them)."""
    if not _NAME.match(name):
        raise ValueError(f"not a query name: {name!r}")
    return resources.files(__package__).joinpath(f"{name}.cypher").read_text("utf-8")


def names(prefix: str = "") -> list[str]:
    """Every query name starting with ``prefix``, sorted."""
    found = []
    for entry in resources.files(__package__).iterdir():
        stem, dot, ext = entry.name.rpartition(".")
        if dot and ext == "cypher" and stem.startswith(prefix):
            found.append(stem)
    return sorted(found)


def with_bound(name: str, max_hops: int) -> str:
    """A variable-length query with its upper bound filled in (an int in [1, 10] only)."""
    if isinstance(max_hops, bool) or not isinstance(max_hops, int) or not 1 <= max_hops <= 10:
        raise ValueError(f"a variable-length bound must be an int in [1, 10], got {max_hops!r}")
    text = load(name)
    if _BOUND not in text:
        raise ValueError(f"query {name!r} has no {_BOUND} placeholder")
    return text.replace(_BOUND, str(max_hops))


@cache
def packed(text: str) -> Packed:
    """``text`` with every ``$name`` outside string literals, quoted names and comments
    rewritten to ``$p.name`` (see the module docstring), and the set of names it reads."""
    names: set[str] = set()

    def swap(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return m.group(1)
        names.add(m.group(2))
        return f"${PACK}.{m.group(2)}"

    return Packed(_TOKEN.sub(swap, text), frozenset(names))
