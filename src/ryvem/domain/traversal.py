"""Breadth-first traversal, one definition for every backend.

The walk expands each node once, level by level: hop *n* reports every edge (of the chosen
rels, valid at the chosen time) incident to a node first reached at hop *n-1*; nodes first
reached at hop *n* form the next level. So a cycle terminates, every edge is reported at
most once, and ``both`` lists a level's out-edges before its in-edges. Adapters supply one
batched neighbour query per level (``expand``); this module owns order and de-duplication.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from ryvem.domain.model import NodeHead, Step
from ryvem.errors import InvalidInput

__all__ = [
    "MAX_DEPTH",
    "EdgeRow",
    "Expand",
    "Level",
    "Side",
    "bfs",
    "clamp_depth",
    "discovered_heads",
    "discovered_refs",
    "expand_within",
    "parse_direction",
]

MAX_DEPTH = 10
DIRECTIONS = ("out", "in", "both")
_INTEGER = re.compile(r"\s*[+-]?[0-9]{1,20}\s*\Z")


def clamp_depth(depth: object) -> int:
    """Depth is an integer (or its decimal spelling); outside [1, 10] it is clamped."""
    if isinstance(depth, str) and _INTEGER.match(depth):
        depth = int(depth)
    if isinstance(depth, bool) or not isinstance(depth, int):
        raise InvalidInput(f"depth must be an integer, got {_show(depth)}")
    return max(1, min(MAX_DEPTH, depth))


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def parse_direction(direction: object) -> Literal["out", "in", "both"]:
    if direction == "out":
        return "out"
    if direction == "in":
        return "in"
    if direction == "both":
        return "both"
    raise InvalidInput(f"unknown direction {_show(direction)}: use out, in or both")


EdgeRow = tuple[str, str, str, str]
"""(edge id, rel, src entity, dst entity): one edge as an adapter's ``expand`` reports it.

Plain tuples, because a deep walk meets hundreds of thousands of edges and the store's own
row tuples can be passed on untouched (docs/benchmarks.md)."""

Side = Literal["out", "in"]
Expand = Callable[[Sequence[str], Side], Sequence[EdgeRow]]
"""Given frontier entities and a side, every matching edge incident to them (``out``: leaving
them, ``in``: entering them) whose far end is a node valid at the walk's time and inside its
scope filter, in any order."""

Level = tuple[int, Side, list[EdgeRow]]
"""(hop, side, edges): the edges one level of a walk reported on one side, in order."""

_ENDS: dict[Side, tuple[int, int]] = {"out": (2, 3), "in": (3, 2)}  # (near, far) in an EdgeRow


def bfs(
    start: str, depth: int, direction: Literal["out", "in", "both"], expand: Expand
) -> list[Level]:
    """The walk from ``start`` as ordered levels; see the module docstring.

    Within a level and side, edges are ordered by their near end's position in the frontier,
    then rel, then far end, then edge id, so every backend gives the same answer.
    """
    visited = {start}
    frontier = [start]
    seen_edges: set[str] = set()
    out: list[Level] = []
    sides: tuple[Side, ...] = ("out", "in") if direction == "both" else (direction,)
    for hop in range(1, depth + 1):
        if not frontier:
            break
        position = {entity: i for i, entity in enumerate(frontier)}
        discovered: list[str] = []
        for side in sides:
            near, far = _ENDS[side]
            found = [r for r in expand(frontier, side) if r[0] not in seen_edges]
            found.sort(key=lambda r: (position[r[near]], r[1], r[far], r[0]))
            kept: list[EdgeRow] = []
            for r in found:
                if r[0] in seen_edges:
                    continue
                seen_edges.add(r[0])
                kept.append(r)
                if r[far] not in visited:
                    visited.add(r[far])
                    discovered.append(r[far])
            out.append((hop, side, kept))
        frontier = discovered
    return out


def expand_within(edges: Iterable[EdgeRow]) -> Expand:
    """An ``expand`` answered from a sub-graph already in memory.

    Given every edge a walk can touch (those incident, on the walk's sides, to the nodes
    within depth - 1 hops of the start, far ends valid and in scope), ``bfs`` over this
    expand gives exactly the level-by-level walk: each level's frontier lies within the
    sub-graph, and ``expand`` returns the same edges for it. Duplicate rows are dropped.
    """
    by_end: dict[Side, dict[str, dict[str, EdgeRow]]] = {"out": {}, "in": {}}
    for r in edges:
        by_end["out"].setdefault(r[2], {})[r[0]] = r
        by_end["in"].setdefault(r[3], {})[r[0]] = r

    def expand(frontier: Sequence[str], side: Side) -> Sequence[EdgeRow]:
        index = by_end[side]
        return [r for entity in frontier for r in index.get(entity, {}).values()]

    return expand


def discovered_heads(start_entity: str, steps: Sequence[Step]) -> list[NodeHead]:
    """The nodes a walk discovered, each once, in the order of :func:`discovered_refs`."""
    out: dict[str, NodeHead] = {}
    for side in ("out", "in"):
        for s in steps:
            if s.direction != side:
                continue
            far = s.dst if side == "out" else s.src
            if far.entity != start_entity:
                out.setdefault(far.entity, far)
    return list(out.values())


def discovered_refs(start_entity: str, steps: Sequence[Step]) -> list[str]:
    """The refs of the nodes a walk discovered, each once, in order of discovery.

    The far ends of the out-edges come first, then those of the in-edges (so for ``both``
    "what this links to" precedes "what links here"); the start node is not listed.
    """
    return list(dict.fromkeys(h.ref for h in discovered_heads(start_entity, steps)))
