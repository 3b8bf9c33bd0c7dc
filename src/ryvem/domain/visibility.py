"""The visibility rule, defined once: which rows a read at valid time ``as_of`` as known at
``known_at`` sees. Every store renders it from here — SQL for SQLite, Cypher for Neo4j, a
vectorised filter for the in-memory search cache, and Python for a version in hand — so the
two clocks are read one way everywhere.

A row is visible when it was **recorded by** ``known_at``, **began by** ``as_of``, and its
window is **still open at** ``as_of`` as known at ``known_at`` (a closure recorded after
``known_at`` does not count). With neither clock given it is simply "current" (``valid_to IS
NULL``), which the stores' partial indexes serve.

The rule is a small tree of comparisons between a row's fields and the read's parameters;
:func:`render` turns it into query text, :func:`evaluate` into a value with the caller's own
operators (Python booleans, numpy arrays). A row field that is NULL/None never compares true,
as in SQL and Cypher.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Generic, Literal, TypeVar

__all__ = ["All", "AnyOf", "Cmp", "Operators", "evaluate", "render", "window"]

Field = Literal["valid_from", "valid_to", "recorded_at", "closure_recorded_at"]
Param = Literal["as_of", "known_at"]


@dataclass(frozen=True, slots=True)
class Cmp:
    """``field op param``, or ``field IS NULL`` (``op`` "null", no param)."""

    field: Field
    op: Literal["<=", ">", "null"]
    param: Param | None = None


@dataclass(frozen=True, slots=True)
class AnyOf:
    terms: tuple[Cmp, ...]


@dataclass(frozen=True, slots=True)
class All:
    terms: tuple[Cmp | AnyOf, ...]


@cache  # four rules in all; every read asks for one
def window(as_of: bool, known_at: bool) -> All:
    """The rule for a read that gives valid time (``as_of``) and/or known time (``known_at``)."""
    if not as_of and not known_at:
        return All((Cmp("valid_to", "null"),))
    terms: list[Cmp | AnyOf] = []
    still_open: list[Cmp] = [Cmp("valid_to", "null")]
    if known_at:
        terms.append(Cmp("recorded_at", "<=", "known_at"))
    if as_of:
        terms.append(Cmp("valid_from", "<=", "as_of"))
        still_open.append(Cmp("valid_to", ">", "as_of"))
    if known_at:
        still_open.append(Cmp("closure_recorded_at", ">", "known_at"))
    terms.append(AnyOf(tuple(still_open)))
    return All(tuple(terms))


def render(rule: All, column: Callable[[str], str], param: Callable[[str], str]) -> str:
    """Query text for ``rule``: ``column("valid_to")`` names a row's field (``n.valid_to``),
    ``param("as_of")`` a read's parameter (``:as_of``, ``$as_of``)."""

    def cmp(c: Cmp) -> str:
        if c.op == "null":
            return f"{column(c.field)} IS NULL"
        assert c.param is not None
        return f"{column(c.field)} {c.op} {param(c.param)}"

    return " AND ".join(
        cmp(t) if isinstance(t, Cmp) else "(" + " OR ".join(cmp(c) for c in t.terms) + ")"
        for t in rule.terms
    )


V = TypeVar("V")


@dataclass(frozen=True)  # no slots: a subscripted generic sets __orig_class__
class Operators(Generic[V]):
    """How a caller evaluates the rule over its own values (booleans, arrays)."""

    le: Callable[[str, object], V]  # field <= value
    gt: Callable[[str, object], V]  # field > value
    null: Callable[[str], V]  # field IS NULL
    both: Callable[[V, V], V]
    either: Callable[[V, V], V]


def evaluate(rule: All, ops: Operators[V], params: dict[str, object]) -> V:
    """``rule`` over a caller's rows, with the read's ``params`` (``as_of``, ``known_at``)."""

    def cmp(c: Cmp) -> V:
        if c.op == "null":
            return ops.null(c.field)
        assert c.param is not None
        return (ops.le if c.op == "<=" else ops.gt)(c.field, params[c.param])

    def term(t: Cmp | AnyOf) -> V:
        if isinstance(t, Cmp):
            return cmp(t)
        out = cmp(t.terms[0])
        for c in t.terms[1:]:
            out = ops.either(out, cmp(c))
        return out

    result = term(rule.terms[0])
    for t in rule.terms[1:]:
        result = ops.both(result, term(t))
    return result
