"""The Neo4j adapter's queries: one ``.cypher`` file per query, named after it.

Each file starts with ``//`` comment lines naming the query and its parameters. Values are
always ``$parameters``; the only text ever spliced into a query is a variable-length bound
(an ``int`` clamped to [1, 10] by the domain), through :func:`with_bound`, and the window
predicate ``__VALID__(x)``, through :func:`load`.

``__VALID__(x)`` is "row ``x`` (a version node or an ``EDGE``) is visible at (``$as_of``,
``$known_at``)", the one place this adapter reads the two clocks: recorded by ``$known_at``,
begun by ``$as_of``, and its window still open at ``$as_of`` as known at ``$known_at`` (a
closure recorded after ``$known_at`` does not count). It is filled with one of four fixed
texts, chosen by which of the two parameters the query is given (``past``, ``known``), so a
current read stays the plain ``x.valid_to IS NULL``.

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

from ryvem.domain import visibility

__all__ = ["Packed", "compact", "load", "names", "packed", "with_bound"]

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_BOUND = "__MAX_HOPS__"
_VALID = re.compile(r"__VALID__\(([a-z][a-z0-9_]*)\)")
# "Visible at (as_of, known_at)": the one rule of ryvem.domain.visibility rendered as Cypher
# for a row bound to ``{x}``, keyed by (as_of given, known_at given).
_WINDOW = {
    (past, known): "(" + visibility.render(
        visibility.window(past, known), lambda f: "{x}." + f, lambda p: "$" + p
    ) + ")"
    for past in (False, True) for known in (False, True)
}
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
def _text(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"not a query name: {name!r}")
    return resources.files(__package__).joinpath(f"{name}.cypher").read_text("utf-8")


@cache
def load(name: str, *, past: bool = False, known: bool = False, ever: bool = False) -> str:
    """The text of ``cypher/<name>.cypher`` (comment lines kept; Cypher ignores them), its
    ``__VALID__(x)`` predicates filled for a read with ``$as_of`` (``past``) and/or
    ``$known_at`` (``known``) given, or true for every version whenever it held (``ever``)."""
    window = "(true)" if ever else _WINDOW[(past, known)]
    return _VALID.sub(lambda m: window.format(x=m.group(1)), _text(name))


def names(prefix: str = "") -> list[str]:
    """Every query name starting with ``prefix``, sorted."""
    found = []
    for entry in resources.files(__package__).iterdir():
        stem, dot, ext = entry.name.rpartition(".")
        if dot and ext == "cypher" and stem.startswith(prefix):
            found.append(stem)
    return sorted(found)


def with_bound(name: str, max_hops: int, *, past: bool = False, known: bool = False) -> str:
    """A variable-length query with its upper bound filled in (an int in [1, 10] only)."""
    if isinstance(max_hops, bool) or not isinstance(max_hops, int) or not 1 <= max_hops <= 10:
        raise ValueError(f"a variable-length bound must be an int in [1, 10], got {max_hops!r}")
    text = load(name, past=past, known=known)
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


@cache
def compact(text: str) -> str:
    """``text`` as it goes over the wire: without its ``//`` comments and blank lines (string
    literals and quoted names untouched). The server's pre-parser reads every character of a
    query on every run, cached plan or not; the files keep their comments for the reader."""

    def drop(m: re.Match[str]) -> str:
        token = m.group(1)
        if token is not None and token.startswith("//"):
            return ""
        return m.group(0)

    lines = (line.rstrip() for line in _TOKEN.sub(drop, text).splitlines())
    return "\n".join(line for line in lines if line)
