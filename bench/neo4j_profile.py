"""Where one Neo4j call's time goes: round trips, server time, the wire, Python, commit.

``probe()`` counts every Bolt exchange the driver makes (an auto-commit query is one round
trip, RUN and PULL pipelined; an explicit transaction adds BEGIN and COMMIT) and sums the
server's own times for each query (``t_first`` + ``t_last`` from the result summary). With
the loopback round trip measured on ``RETURN 1``, a call's wall time splits into
server + round trips x wire + the rest, which is Python (driver decoding, mapping, rules).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import neo4j


@dataclass
class Tally:
    round_trips: int = 0
    queries: int = 0
    results: list[Any] = field(default_factory=list)

    def server_ms(self) -> float:
        total = 0.0
        for r in self.results:
            meta = getattr(r, "_metadata", {}) or {}
            total += float(meta.get("t_first") or 0) + float(meta.get("t_last") or 0)
        return total


@contextmanager
def probe() -> Iterator[Tally]:
    """Count round trips and collect results of every query run while inside."""
    tally = Tally()
    s_run, t_run = neo4j.Session.run, neo4j.Transaction.run
    begin, commit = neo4j.Session.begin_transaction, neo4j.Transaction.commit

    def session_run(self: Any, *a: Any, **k: Any) -> Any:
        result = s_run(self, *a, **k)
        tally.round_trips += 1
        tally.queries += 1
        tally.results.append(result)
        return result

    def tx_run(self: Any, *a: Any, **k: Any) -> Any:
        result = t_run(self, *a, **k)
        tally.round_trips += 1
        tally.queries += 1
        tally.results.append(result)
        return result

    def tx_begin(self: Any, *a: Any, **k: Any) -> Any:
        tally.round_trips += 1
        return begin(self, *a, **k)

    def tx_commit(self: Any, *a: Any, **k: Any) -> Any:
        tally.round_trips += 1
        return commit(self, *a, **k)

    neo4j.Session.run = session_run  # type: ignore[method-assign]
    neo4j.Transaction.run = tx_run  # type: ignore[method-assign]
    neo4j.Session.begin_transaction = tx_begin  # type: ignore[method-assign]
    neo4j.Transaction.commit = tx_commit  # type: ignore[method-assign]
    try:
        yield tally
    finally:
        neo4j.Session.run = s_run  # type: ignore[method-assign]
        neo4j.Transaction.run = t_run  # type: ignore[method-assign]
        neo4j.Session.begin_transaction = begin  # type: ignore[method-assign]
        neo4j.Transaction.commit = commit  # type: ignore[method-assign]


def wire_ms(driver: Any, database: str | None, reps: int = 50) -> float:
    """The median wall time of an auto-commit ``RETURN 1`` less its server time: one round
    trip on this connection, with the driver's own per-query cost."""
    samples = []
    with driver.session(database=database) as session:
        for _ in range(reps):
            t0 = time.perf_counter()
            result = session.run("RETURN 1 AS one")
            result.consume()
            wall = (time.perf_counter() - t0) * 1e3
            meta = result._metadata
            samples.append(wall - float(meta.get("t_first") or 0)
                           - float(meta.get("t_last") or 0))
    return statistics.median(samples)


def commit_floor_ms(driver: Any, database: str | None, reps: int = 30) -> float:
    """The median wall time of the smallest durable write: one auto-commit query setting one
    property on one node. The server forces its transaction log to disk before it answers, so
    no write through any query shape is faster; a supersede is this plus one read."""
    samples = []
    with driver.session(database=database) as session:
        for _ in range(reps):
            t0 = time.perf_counter()
            session.run("MERGE (n:BenchFloor {id: 1}) SET n.writes = coalesce(n.writes, 0) + 1"
                        ).consume()
            samples.append((time.perf_counter() - t0) * 1e3)
        session.run("MATCH (n:BenchFloor) DELETE n").consume()
    return statistics.median(samples)


def profile(calls: list[Callable[[], Any]], wire: float) -> dict[str, float]:
    """Per call (medians): wall ms, round trips, the server's query time, the wire, Python
    (this process's CPU time: rules, driver encoding and decoding) and the rest — waiting on
    the server beyond its reported query time, which for a write is mostly its commit (the
    transaction log forced to disk)."""
    walls, trips, servers, cpus = [], [], [], []
    for call in calls:
        with probe() as tally:
            c0, t0 = time.process_time(), time.perf_counter()
            call()
            walls.append((time.perf_counter() - t0) * 1e3)
            cpus.append((time.process_time() - c0) * 1e3)
        trips.append(tally.round_trips)
        servers.append(tally.server_ms())
    wall, rt = statistics.median(walls), statistics.median(trips)
    server, cpu = statistics.median(servers), statistics.median(cpus)
    return {"wall_ms": round(wall, 2), "round_trips": rt, "server_ms": round(server, 2),
            "wire_ms": round(rt * wire, 2), "python_ms": round(cpu, 2),
            "other_ms": round(max(0.0, wall - server - rt * wire - cpu), 2)}


def describe(p: dict[str, float]) -> str:
    return (f"{p['wall_ms']:.1f} ms = {p['round_trips']:g} round trips: server queries "
            f"{p['server_ms']:.1f} ms, wire {p['wire_ms']:.1f} ms, Python {p['python_ms']:.1f} ms, "
            f"other waiting (commit) {p['other_ms']:.1f} ms")
