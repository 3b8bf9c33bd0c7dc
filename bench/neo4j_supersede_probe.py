"""Where a Neo4j supersede's time goes, next to SQLite's, in one process (issue 14).

    RYVEM_BENCH_NEO4J_URI=bolt://127.0.0.1:7693 python -m bench.neo4j_supersede_probe

WIPES that database, imports the neo4j section's 2,000-node workload into it and into a
temporary SQLite file, warms up with 30 supersedes, then twice: 300 supersedes of different
keys (each key once per pass, so the second pass writes each key a second time in this
process) and 300 of one key, on both stores. Prints mean/p50/p90/p99 per write and, for
Neo4j, how many planned-write queries each kind ran and their p50 (``write_context``,
``apply_plan``). ``--profile`` runs one pass of different keys under cProfile instead.
Run it under the CPU lock; compare code versions by running it with ``PYTHONPATH`` pointing
at each version's ``src`` in turn.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.neo4j_peers import wipe
from bench.sqlite_suite import import_workload, supersede_pairs
from bench.workload import NodeSpec, Spec, Workload
from ryvem.adapters.neo4j import Neo4jRepository
from ryvem.adapters.neo4j import repository as adapter
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service

spent: dict[str, list[float]] = defaultdict(list)


def _timed_once() -> None:
    real = adapter._Tx._once

    def once(self: Any, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        t0 = time.perf_counter()
        try:
            return real(self, name, params)
        finally:
            spent[name].append(time.perf_counter() - t0)

    adapter._Tx._once = once  # type: ignore[method-assign]


def run(label: str, svc: Service, items: list[NodeSpec]) -> float:
    spent.clear()
    secs = []
    for n in items:
        t0 = time.perf_counter()
        svc.write(n.kind, n.title, key=n.key, scope=n.scope, body=n.body, data=n.data)
        secs.append(time.perf_counter() - t0)
    q = statistics.quantiles(secs, n=100)
    line = (f"{label:26s} n={len(secs)} mean {1000 * statistics.mean(secs):.2f} "
            f"p50 {1000 * q[49]:.2f} p90 {1000 * q[89]:.2f} p99 {1000 * q[98]:.2f} ms")
    for name, xs in spent.items():
        line += (f" | {name} n={len(xs)} p50 {1000 * statistics.median(xs):.2f}"
                 f" per write {1000 * sum(xs) / len(secs):.2f}")
    print(line, flush=True)
    return statistics.mean(secs)


def main() -> None:
    uri = os.environ.get("RYVEM_BENCH_NEO4J_URI", "bolt://127.0.0.1:7687")
    neo = Neo4jRepository.connect(uri, os.environ.get("RYVEM_BENCH_NEO4J_USER", "neo4j"),
                                  os.environ.get("RYVEM_BENCH_NEO4J_PASSWORD",
                                                 "ryvem-test-password"))
    wipe(neo)
    w = Workload(Spec(n=2000))
    svc = Service(neo)
    lite = Service(SqliteRepository.open(Path(tempfile.mkdtemp()) / "probe.db"))
    import_workload(svc, w)
    import_workload(lite, w)
    _timed_once()
    for n in (w.node(x.i, 900 + k) for k, x in enumerate(supersede_pairs(w, 30, 31))):
        for s in (svc, lite):
            s.write(n.kind, n.title, key=n.key, scope=n.scope, body=n.body, data=n.data)
    many = supersede_pairs(w, 300, seed=13)
    if "--profile" in sys.argv:
        pr = cProfile.Profile()
        pr.enable()
        run("neo4j many keys (profiled)", svc, [w.node(x.i, 7000 + k) for k, x in enumerate(many)])
        pr.disable()
        pstats.Stats(pr).sort_stats("cumulative").print_stats(40)
        return
    for rep in range(2):
        items = [w.node(x.i, 3000 + 400 * rep + k) for k, x in enumerate(many)]
        a, b = run("neo4j many keys", svc, items), run("sqlite many keys", lite, items)
        print(f"   many keys: neo4j at {b / a:.1%} of sqlite's rate")
        items = [w.node(many[0].i, 5000 + 400 * rep + k) for k in range(300)]
        a, b = run("neo4j one key", svc, items), run("sqlite one key", lite, items)
        print(f"   one key: neo4j at {b / a:.1%} of sqlite's rate")
    neo.close()


if __name__ == "__main__":
    main()
