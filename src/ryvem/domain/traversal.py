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
from dataclasses import dataclass
from typing import Literal

from ryvem.domain.model import Step
from ryvem.errors import InvalidInput

__all__ = ["MAX_DEPTH", "Neighbour", "bfs", "clamp_depth", "discovered_refs", "parse_direction"]

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


@dataclass(frozen=True, slots=True)
class Neighbour:
    """An edge incident to a frontier node, as an adapter reports it."""

    edge_id: str
    rel: str
    src: str  # entity
    dst: str  # entity
    direction: Literal["out", "in"]  # relative to the frontier node

    @property
    def near(self) -> str:
        return self.src if self.direction == "out" else self.dst

    @property
    def far(self) -> str:
        return self.dst if self.direction == "out" else self.src


Expand = Callable[[Sequence[str], Literal["out", "in"]], Iterable[Neighbour]]
"""Given frontier entities and a direction, every matching edge incident to them, where the
far end is a node valid at the traversal's time and inside its scope filter."""


def bfs(
    start: str, depth: int, direction: Literal["out", "in", "both"], expand: Expand
) -> list[tuple[int, Neighbour]]:
    """Ordered (hop, edge) pairs reached from ``start``; see the module docstring."""
    visited = {start}
    frontier = [start]
    seen_edges: set[str] = set()
    out: list[tuple[int, Neighbour]] = []
    sides: tuple[Literal["out", "in"], ...] = (
        ("out", "in") if direction == "both" else (direction,)
    )
    for hop in range(1, depth + 1):
        if not frontier:
            break
        position = {entity: i for i, entity in enumerate(frontier)}
        discovered: list[str] = []
        for side in sides:
            found = [n for n in expand(frontier, side) if n.edge_id not in seen_edges]
            found.sort(key=lambda n: (position[n.near], n.rel, n.far, n.edge_id))
            for n in found:
                if n.edge_id in seen_edges:
                    continue
                seen_edges.add(n.edge_id)
                out.append((hop, n))
                if n.far not in visited:
                    visited.add(n.far)
                    discovered.append(n.far)
        frontier = discovered
    return out


def discovered_refs(start_entity: str, steps: Sequence[Step]) -> list[str]:
    """The refs of the nodes a walk discovered, each once, in order of discovery.

    The far ends of the out-edges come first, then those of the in-edges (so for ``both``
    "what this links to" precedes "what links here"); the start node is not listed.
    """
    out: dict[str, None] = {}
    for side in ("out", "in"):
        for s in steps:
            if s.direction != side:
                continue
            far = s.dst if side == "out" else s.src
            if far.entity != start_entity:
                out.setdefault(far.ref, None)
    return list(out)
