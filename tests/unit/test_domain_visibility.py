"""The one visibility rule and its renderings: SQL, Cypher text, numpy and a version in hand
all say the same thing for every row and read (the Cypher text runs on Neo4j in the
contract suite's clock cases)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ryvem.adapters.neo4j import queries as cypher
from ryvem.adapters.sqlite import repository as sqlite_repository
from ryvem.adapters.sqlite.postings import NEVER
from ryvem.domain import visibility
from ryvem.domain.model import NodeVersion

Row = tuple[int, int | None, int, int | None]  # valid_from, valid_to, recorded, closure

instant = st.integers(-50, 50)


@st.composite
def rows(draw: st.DrawFn) -> Row:
    valid_from, recorded = draw(instant), draw(instant)
    if draw(st.booleans()):
        return valid_from, None, recorded, None
    valid_to = draw(st.integers(valid_from, 60))
    closure = draw(st.integers(recorded, 70))  # a store holds no closed window without it
    return valid_from, valid_to, recorded, closure


reads = st.tuples(st.one_of(st.none(), instant), st.one_of(st.none(), instant))


def _version(r: Row) -> NodeVersion:
    valid_from, valid_to, recorded, closure = r
    return NodeVersion.model_construct(
        id="0" * 24, entity="0" * 24, kind="note", scope="global", key=None, title="t",
        body="", data={}, valid_from=valid_from, valid_to=valid_to, superseded_by=None,
        supersedes=None, retired_reason=None, recorded_at=recorded,
        closure_recorded_at=closure,
    )


def _sql(db: Path, batch: list[Row], as_of: int | None, known_at: int | None) -> list[bool]:
    where = sqlite_repository._WINDOW[(as_of is not None, known_at is not None)].format(t="n")
    with sqlite3.connect(db) as con:
        con.execute("DROP TABLE IF EXISTS n")
        con.execute("CREATE TABLE n (i INTEGER PRIMARY KEY, valid_from, valid_to, "
                    "recorded_at, closure_recorded_at)")
        con.executemany("INSERT INTO n VALUES (?, ?, ?, ?, ?)",
                        [(i, *r) for i, r in enumerate(batch)])
        seen = {i for (i,) in con.execute(f"SELECT i FROM n WHERE {where}",
                                          {"as_of": as_of, "known_at": known_at})}
    return [i in seen for i in range(len(batch))]


def _numpy(batch: list[Row], as_of: int | None, known_at: int | None) -> list[bool]:
    cols: dict[str, Any] = {
        name: np.array([NEVER if r[i] is None else r[i] for r in batch], np.int64)
        for i, name in enumerate(("valid_from", "valid_to", "recorded_at", "closure_recorded_at"))
    }
    ops = visibility.Operators[Any](
        le=lambda f, x: cols[f] <= x, gt=lambda f, x: cols[f] > x,
        null=lambda f: cols[f] == NEVER, both=lambda a, b: a & b, either=lambda a, b: a | b,
    )
    rule = visibility.window(as_of is not None, known_at is not None)
    mask = visibility.evaluate(rule, ops, {"as_of": as_of, "known_at": known_at})
    return [bool(x) for x in np.broadcast_to(mask, (len(batch),))]


def _reference(r: Row, as_of: int | None, known_at: int | None) -> bool:
    """The rule as the README states it, written out by hand (an oracle apart from the tree):
    recorded by known_at, begun by as_of, and not closed by as_of as known at known_at."""
    valid_from, valid_to, recorded, closure = r
    if known_at is not None and recorded > known_at:
        return False
    closed_as_known = valid_to is not None and (
        known_at is None or closure is None or closure <= known_at
    )
    if as_of is None:
        return not closed_as_known
    if valid_from > as_of:
        return False
    return not closed_as_known or valid_to is None or as_of < valid_to


@settings(max_examples=150, deadline=None)
@given(st.lists(rows(), min_size=1, max_size=30), reads)
def test_sql_numpy_and_a_version_in_hand_see_the_same_rows(
    tmp_path_factory: Any, batch: list[Row], read: tuple[int | None, int | None]
) -> None:
    as_of, known_at = read
    db = tmp_path_factory.mktemp("vis") / "rows.sqlite"
    in_hand = [_version(r).visible(as_of, known_at) for r in batch]
    assert in_hand == [_reference(r, as_of, known_at) for r in batch]
    assert _sql(db, batch, as_of, known_at) == in_hand
    assert _numpy(batch, as_of, known_at) == in_hand


def test_a_read_on_neither_clock_sees_the_current_rows_only() -> None:
    assert _version((0, None, 0, None)).visible(None, None)
    assert not _version((0, 5, 0, 5)).visible(None, None)


def test_a_closure_recorded_after_the_known_time_does_not_count() -> None:
    closed_later = _version((0, 10, 0, 30))  # closed at valid 10, learned at 30
    assert closed_later.visible(20, 25) and not closed_later.visible(20, 35)


def test_both_clocks_render_as_one_where_clause_in_sql_and_in_cypher() -> None:
    sql = sqlite_repository._WINDOW[(True, True)].format(t="n")
    assert sql == ("n.recorded_at <= :known_at AND n.valid_from <= :as_of AND (n.valid_to IS NULL"
                   " OR n.valid_to > :as_of OR n.closure_recorded_at > :known_at)")
    assert cypher._WINDOW[(True, True)].format(x="v") == "(" + sql.replace("n.", "v.").replace(
        ":", "$") + ")"
    assert sqlite_repository._WINDOW[(False, False)] == "{t}.valid_to IS NULL"  # the partial index
