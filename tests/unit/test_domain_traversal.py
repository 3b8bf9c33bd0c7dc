"""The one breadth-first walk every backend shares: order, de-duplication, depth."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import pytest

from ryvem.domain.traversal import MAX_DEPTH, EdgeRow, bfs, clamp_depth, parse_direction
from ryvem.errors import InvalidInput

Side = Literal["out", "in"]


class Graph:
    """An in-memory edge list answering the batched neighbour query bfs asks for."""

    def __init__(self, edges: list[tuple[str, str, str]]) -> None:
        self.edges = [(f"e{i}", rel, src, dst) for i, (src, rel, dst) in enumerate(edges)]
        self.calls: list[tuple[tuple[str, ...], Side]] = []

    def expand(self, frontier: Sequence[str], side: Side) -> list[EdgeRow]:
        self.calls.append((tuple(frontier), side))
        near = 2 if side == "out" else 3
        return [
            e
            for e in reversed(self.edges)  # arbitrary store order; bfs must impose its own
            if e[near] in frontier
        ]


def walk(g: Graph, start: str, depth: int, direction: Literal["out", "in", "both"]) -> list[str]:
    return [f"{hop}:{src}-{rel}->{dst}:{side}"
            for hop, side, rows in bfs(start, depth, direction, g.expand)
            for _eid, rel, src, dst in rows]


def test_the_walk_goes_level_by_level_in_a_stable_order() -> None:
    """Hop 1 before hop 2; within a level, by frontier position, rel, then far end."""
    g = Graph([("a", "x", "c"), ("a", "x", "b"), ("a", "about", "d"), ("b", "x", "e"),
               ("c", "x", "f")])
    assert walk(g, "a", 2, "out") == [
        "1:a-about->d:out", "1:a-x->b:out", "1:a-x->c:out", "2:b-x->e:out", "2:c-x->f:out",
    ]


def test_a_cycle_terminates_and_reports_each_edge_once() -> None:
    """Each node is expanded once, so a cycle ends and no edge repeats."""
    g = Graph([("a", "x", "b"), ("b", "x", "c"), ("c", "x", "a")])
    assert walk(g, "a", 10, "out") == ["1:a-x->b:out", "2:b-x->c:out", "3:c-x->a:out"]
    assert len(g.calls) == 3  # stops once the frontier is empty


def test_both_lists_out_edges_before_in_edges_and_never_an_edge_twice() -> None:
    """With both, a level's out-edges come first; an edge seen from both ends counts once."""
    g = Graph([("a", "x", "b"), ("c", "x", "a"), ("b", "x", "c")])
    assert walk(g, "a", 2, "both") == ["1:a-x->b:out", "1:c-x->a:in", "2:b-x->c:out"]


def test_depth_bounds_the_walk_and_one_query_is_made_per_level_and_side() -> None:
    """Depth n asks the store at most n times per side, with the whole frontier at once."""
    g = Graph([("a", "x", "b"), ("a", "x", "c"), ("b", "x", "d"), ("d", "x", "e")])
    assert walk(g, "a", 1, "out") == ["1:a-x->b:out", "1:a-x->c:out"]
    g.calls.clear()
    walk(g, "a", 2, "both")
    assert g.calls == [(("a",), "out"), (("a",), "in"), (("b", "c"), "out"), (("b", "c"), "in")]


def test_an_isolated_start_has_no_steps() -> None:
    """A node without edges yields an empty walk."""
    assert walk(Graph([("b", "x", "c")]), "a", 3, "both") == []


@pytest.mark.parametrize(
    "depth, expected",
    [(1, 1), (3, 3), (MAX_DEPTH, MAX_DEPTH), (0, 1), (-5, 1), (11, MAX_DEPTH), (10**9, MAX_DEPTH),
     ("2", 2), (" 4 ", 4), ("+3", 3), ("-1", 1)],
)
def test_depth_is_an_integer_clamped_to_one_through_ten(depth: object, expected: int) -> None:
    """Integers and their decimal spellings are clamped into [1, 10]."""
    assert clamp_depth(depth) == expected


@pytest.mark.parametrize("depth", [True, None, 2.5, "two", "", "1e3", "9" * 30, [2]])
def test_a_depth_that_is_not_an_integer_is_invalid_input(depth: object) -> None:
    """Booleans, floats, words and absurd numbers are refused."""
    with pytest.raises(InvalidInput, match="depth"):
        clamp_depth(depth)


def test_direction_is_out_in_or_both() -> None:
    """The three directions parse; anything else is InvalidInput."""
    assert [parse_direction(d) for d in ("out", "in", "both")] == ["out", "in", "both"]
    for bad in ("OUT", "up", "", None):
        with pytest.raises(InvalidInput, match="direction"):
            parse_direction(bad)
