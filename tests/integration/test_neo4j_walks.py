"""Neo4j's one-query walk against the level-by-level walk it must equal.

``Neo4jRepository.neighbourhood`` reads a walk's whole sub-graph in one query and the service
runs the same ``bfs`` over it in memory. These tests prove the answer is the level-by-level
walk's (on Neo4j and on SQLite) on random graphs with cycles, hubs, dense regions, closed and
retired windows, several scopes and supersedes edges; and that the planner answers the query
with one pruning breadth-first expand from the start, not every path.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends import wipe_neo4j
from ryvem.adapters.neo4j import Neo4jRepository
from ryvem.adapters.neo4j import queries as cypher
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.domain.model import SUPERSEDES, Edge, NodeVersion, Step
from ryvem.ports import GraphRepository, WalksInOneQuery

T0 = 1_700_000_000_000_000
SCOPES = ["global", "board:left", "board:right"]
RELS = ["next", "ref", "links"]


class LevelByLevel:
    """A repository without the one-query capability: the service walks it level by level."""

    def __init__(self, repo: GraphRepository) -> None:
        self._repo = repo

    def __getattr__(self, name: str) -> Any:
        if name == "neighbourhood":
            raise AttributeError(name)
        return getattr(self._repo, name)


def _id(n: int) -> str:
    return f"{n:013x}{0:011x}"


@st.composite
def graphs(draw: st.DrawFn) -> tuple[list[NodeVersion], list[Edge], list[int]]:
    """Entities with one or two versions (some retired), edges with windows, and times."""
    n = draw(st.integers(2, 9))
    counter = iter(range(1, 10_000))
    versions: list[NodeVersion] = []
    edges: list[Edge] = []
    entities: list[str] = []
    for i in range(n):
        scope = draw(st.sampled_from(SCOPES))
        born = T0 + draw(st.integers(0, 5)) * 10
        first = _id(next(counter))
        entities.append(first)
        shape = draw(st.sampled_from(["current", "current", "superseded", "retired"]))
        v1_end = None if shape == "current" else born + draw(st.integers(1, 4)) * 10
        second = _id(next(counter)) if shape == "superseded" else None
        versions.append(NodeVersion(
            id=first, entity=first, kind="page", scope=scope, key=f"k{i}", title=f"K{i}",
            valid_from=born, valid_to=v1_end, superseded_by=second,
            retired_reason="gone" if shape == "retired" else None,
        ))
        if second is not None and v1_end is not None:
            versions.append(NodeVersion(
                id=second, entity=first, kind="page", scope=scope, key=f"k{i}",
                title=f"K{i} again", valid_from=v1_end, supersedes=first,
            ))
            edges.append(Edge(id=_id(next(counter)), rel=SUPERSEDES, src=second, dst=first,
                              valid_from=v1_end))
    # A hub joined to everything, a dense cluster, and random extras (cycles included).
    hub = draw(st.integers(0, n - 1))
    pairs = {(hub, j) for j in range(n) if j != hub and draw(st.booleans())}
    pairs |= {(j, hub) for j in range(n) if j != hub and draw(st.booleans())}
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=3 * n))
    pairs |= {(a, b) for a, b in extra}
    for a, b in sorted(pairs):
        rel = draw(st.sampled_from(RELS))
        start = T0 + draw(st.integers(0, 8)) * 10
        closed = draw(st.booleans()) and draw(st.booleans())
        end = start + draw(st.integers(1, 5)) * 10 if closed else None
        edges.append(Edge(id=_id(next(counter)), rel=rel, src=entities[a], dst=entities[b],
                          valid_from=start, valid_to=end))
        if closed and draw(st.booleans()):  # the same triple again, later, still current
            assert end is not None
            edges.append(Edge(id=_id(next(counter)), rel=rel, src=entities[a],
                              dst=entities[b], valid_from=end + draw(st.integers(0, 2)) * 10))
    times = sorted({v.valid_from for v in versions} | {e.valid_from for e in edges})
    return versions, edges, times


walks = st.fixed_dictionaries({
    "start": st.integers(0, 8),
    "depth": st.sampled_from([1, 2, 3, 4, 10]),
    "direction": st.sampled_from(["out", "in", "both"]),
    "rels": st.one_of(st.none(), st.lists(st.sampled_from(RELS), min_size=1, max_size=2)),
    "all_scopes": st.booleans(),
    "as_of": st.one_of(st.none(), st.integers(0, 12)),
})


@pytest.fixture
def neo_repo(neo: Neo4jRepository) -> Iterator[Neo4jRepository]:
    assert isinstance(neo, WalksInOneQuery)
    yield neo


def _walk(svc: Service, start: NodeVersion, w: dict[str, Any], at: int | None) -> list[Step]:
    return svc.traverse(start.id, depth=w["depth"], direction=w["direction"], rels=w["rels"],
                        as_of=at, all_scopes=w["all_scopes"], scope=start.scope)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(graph=graphs(), plan=st.lists(walks, min_size=4, max_size=8))
def test_the_one_query_walk_equals_the_level_by_level_walk_on_random_graphs(
    neo_repo: Neo4jRepository,
    graph: tuple[list[NodeVersion], list[Edge], list[int]],
    plan: list[dict[str, Any]],
) -> None:
    """Every walk (any start, depth, direction, rels, scope, time) gives the same steps in the
    same order: one query on Neo4j, level by level on Neo4j, level by level on SQLite."""
    versions, edges, times = graph
    wipe_neo4j(neo_repo)
    neo_repo.load([(v, ()) for v in versions], edges)
    with tempfile.TemporaryDirectory() as tmp:
        lite = SqliteRepository.open(Path(tmp) / "walks.db")
        try:
            lite.load([(v, ()) for v in versions], edges)
            one = Service(neo_repo)
            level = Service(LevelByLevel(neo_repo))
            local = Service(lite)
            firsts = [v for v in versions if v.supersedes is None]
            for w in plan:
                entity = firsts[w["start"] % len(firsts)].entity
                at = None if w["as_of"] is None else times[w["as_of"] % len(times)]
                live = [v for v in versions if v.entity == entity
                        and (v.valid_to is None if at is None else v.valid_at(at))]
                if not live:
                    continue  # no version to start from then: every backend says NotFound
                start = live[0]
                expected = _walk(level, start, w, at)
                assert _walk(one, start, w, at) == expected, w
                assert _walk(local, start, w, at) == expected, w
        finally:
            lite.close()


def test_a_dense_cyclic_graph_walks_the_same_at_every_depth(neo_repo: Neo4jRepository) -> None:
    """Forty nodes with six random edges each, walked both ways to depth 10 from each node."""
    import random

    rng = random.Random(7)
    versions = [NodeVersion(id=_id(i + 1), entity=_id(i + 1), kind="task", scope="global",
                            key=f"t{i}", title=f"T{i}", valid_from=T0) for i in range(40)]
    edges = []
    seen = set()
    for i in range(40):
        for _ in range(6):
            j = rng.randrange(40)
            if (i, j) not in seen:
                seen.add((i, j))
                edges.append(Edge(id=_id(1000 + len(edges)), rel="next", src=_id(i + 1),
                                  dst=_id(j + 1), valid_from=T0))
    neo_repo.load([(v, ()) for v in versions], edges)
    one, level = Service(neo_repo), Service(LevelByLevel(neo_repo))
    for i in range(0, 40, 7):
        for depth in (1, 2, 3, 10):
            for direction in ("out", "in", "both"):
                kw = {"depth": depth, "direction": direction}
                assert one.traverse(f"t{i}", **kw) == level.traverse(f"t{i}", **kw), (i, kw)


@pytest.mark.parametrize("direction", ["out", "in", "both"])
def test_the_walk_query_is_planned_as_a_pruning_breadth_first_expand_from_the_start(
    neo: Neo4jRepository, direction: str
) -> None:
    """The planner answers walk_* with VarLengthExpand(Pruning,BFS) from the start node, the
    validity and scope checks inlined: each node visited once, not every path enumerated."""
    text = cypher.with_bound(f"walk_{direction}", 9)
    params = {"start": "x", "reach": 9, "rels": None, "as_of": None, "scope_exact": None,
              "scope_prefix": None, "head_fields": ["id"]}
    with neo._driver.session() as session:
        plan = session.run("EXPLAIN " + text, params).consume().plan
    assert plan is not None
    found: list[tuple[str, str]] = []
    todo = [plan]
    while todo:
        p = todo.pop()
        found.append((p["operatorType"].split("@")[0], p.get("args", {}).get("Details", "")))
        todo += p.get("children", [])
    ops = [op for op, _ in found]
    expands = [details for op, details in found if op.startswith("VarLengthExpand(Pruning,BFS")]
    assert len(expands) == 1, ops
    assert "Version" in expands[0] and "valid_to" in expands[0], expands  # checks inlined
    assert not any(op.startswith(("AllNodesScan", "NodeByLabelScan", "VarLengthExpand(All"))
                   for op in ops), ops
