"""Benchmark peers and housekeeping on a Neo4j server, outside the production adapter.

``reachable`` runs the adapter's ``reach_varlength`` query: one variable-length pattern the
planner answers with ``VarLengthExpand(Pruning,BFS)``. It returns only the reached set — no
edges, no hops, no check that the far ends are valid or in scope — so the walk does not use
it; the benchmark compares it with the level-by-level walk. ``wipe`` empties the database
(the schema stays) before and after a benchmark run.
"""

from __future__ import annotations

from typing import Any

from neo4j import RoutingControl

from ryvem.adapters.neo4j import Neo4jRepository
from ryvem.adapters.neo4j import queries as cypher


def _run(repo: Neo4jRepository, text: str, params: dict[str, Any], *, write: bool) -> list[Any]:
    driver = repo._driver  # the benchmark drives the adapter's own connection pool
    records, _, _ = driver.execute_query(
        text, params, database_=repo._database,
        routing_=RoutingControl.WRITE if write else RoutingControl.READ,
    )
    return records


def reachable(repo: Neo4jRepository, start: str, depth: int) -> set[str]:
    """Entities reachable from ``start`` over current out-edges within ``depth`` hops."""
    text = cypher.with_bound("reach_varlength", depth)
    return {r["id"] for r in _run(repo, text, {"start": start}, write=False)}


def wipe(repo: Neo4jRepository) -> None:
    """Delete every node and edge; constraints and indexes stay."""
    # In batches (an auto-commit query): one transaction deleting a 100k-node benchmark graph
    # needs a large heap.
    with repo._driver.session(database=repo._database) as session:
        session.run(
            "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"
        ).consume()
