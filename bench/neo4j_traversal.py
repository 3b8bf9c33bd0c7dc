"""Neo4j adapter benchmark: depth-10 walks on a dense cyclic graph, and copy rates.

    RYVEM_NEO4J_URI=bolt://127.0.0.1:7687 RYVEM_NEO4J_PASSWORD=... \
        .venv/bin/python -m bench.neo4j_traversal [NODES] [OUT_DEGREE]

WIPES the database it is pointed at. Builds NODES current nodes (default 2,000) with
OUT_DEGREE random out-edges each (default 10), then times:

* ``Service.traverse(depth=10)`` — the level-by-level walk (one batched ``expand`` per level);
* ``neo4j_peers.reachable(depth=10)`` — one variable-length query the planner runs as
  ``VarLengthExpand(Pruning,BFS)``;
* ``copy_graph`` SQLite -> Neo4j and Neo4j -> SQLite (rows per second).
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from pathlib import Path

from bench.neo4j_peers import reachable, wipe
from ryvem.adapters.neo4j import Neo4jRepository
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.copy import copy_graph
from ryvem.application.service import Service
from ryvem.domain.ids import new_id
from ryvem.domain.model import Edge, NodeVersion


def graph(n: int, degree: int) -> tuple[list[NodeVersion], list[Edge]]:
    rng = random.Random(42)
    t0 = time.time_ns() // 1000
    nodes = [
        NodeVersion(id=(i_id := new_id(t0 + i)), entity=i_id, kind="task", scope="global",
                    key=f"t{i}", title=f"Task {i}", body=f"body of task {i}", valid_from=t0 + i)
        for i in range(n)
    ]
    edges = []
    for i, a in enumerate(nodes):
        for j, k in enumerate(rng.sample([x for x in range(n) if x != i], degree)):
            at = t0 + n + i * degree + j
            edges.append(Edge(id=new_id(at), rel="next", src=a.entity, dst=nodes[k].entity,
                              valid_from=at))
    return nodes, edges


def timed(label: str, fn, repeat: int = 3):  # type: ignore[no-untyped-def]
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    print(f"{label:<58} {best * 1000:9.1f} ms")
    return result


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    degree = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    neo = Neo4jRepository.connect(
        os.environ.get("RYVEM_NEO4J_URI", "bolt://127.0.0.1:7687"),
        os.environ.get("RYVEM_NEO4J_USER", "neo4j"),
        os.environ.get("RYVEM_NEO4J_PASSWORD", ""),
        os.environ.get("RYVEM_NEO4J_DATABASE") or None,
    )
    wipe(neo)
    nodes, edges = graph(n, degree)
    print(f"graph: {n} nodes x out-degree {degree} = {len(edges)} edges")
    with tempfile.TemporaryDirectory() as tmp:
        lite = SqliteRepository.open(Path(tmp) / "bench.db")
        lite.load([(v, ()) for v in nodes], edges)
        start = time.perf_counter()
        report = copy_graph(lite, neo)
        took = time.perf_counter() - start
        rows = report.versions_read + report.edges_read
        print(f"{'copy sqlite -> neo4j (' + str(rows) + ' rows)':<58} {took * 1000:9.1f} ms"
              f"  = {rows / took:,.0f} rows/s, counts match: {report.counts_match}")
        back = SqliteRepository.open(Path(tmp) / "back.db")
        start = time.perf_counter()
        report = copy_graph(neo, back)
        took = time.perf_counter() - start
        print(f"{'copy neo4j -> sqlite (' + str(rows) + ' rows)':<58} {took * 1000:9.1f} ms"
              f"  = {rows / took:,.0f} rows/s, counts match: {report.counts_match}")
        svc = Service(neo)
        start_entity = nodes[0].entity
        steps = timed("traverse depth 10 out (level-by-level expand)",
                      lambda: svc.traverse(start_entity, depth=10))
        reached = {s.dst.entity for s in steps}
        print(f"  {len(steps)} edges reported, {len(reached)} nodes reached")
        via = timed("reachable depth 10 (variable-length, pruning BFS)",
                    lambda: reachable(neo, start_entity, 10))
        print(f"  {len(via)} nodes reached; same set as the walk: {via == reached}")
        steps = timed("traverse depth 3 out (level-by-level expand)",
                      lambda: svc.traverse(start_entity, depth=3))
        via = timed("reachable depth 3 (variable-length, pruning BFS)",
                    lambda: reachable(neo, start_entity, 3))
        print(f"  same set: {via == {s.dst.entity for s in steps}}")
        svc_lite = Service(back)
        timed("traverse depth 10 out on SQLite (same graph)",
              lambda: svc_lite.traverse(start_entity, depth=10))
        lite.close()
        back.close()
    wipe(neo)
    neo.close()


if __name__ == "__main__":
    main()
