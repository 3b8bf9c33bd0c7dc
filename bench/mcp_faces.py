"""Neo4j and SQLite through the MCP face: the interface issue 14 measured and set targets on.

Two real ``ryvem-mcp`` servers run over stdio, driven by the MCP SDK's own client (as
tests/integration/test_mcp_server.py drives one): one on a fresh SQLite file, one on the
bench's Neo4j (``RYVEM_BENCH_NEO4J_URI``; the database is WIPED first, as the neo4j section
does). The same workload is loaded into both through the library before the servers start,
then each measurement runs on both in the same run, each after a warm-up:

- single supersede: ``memory_write`` on one key with a changing body, one call each;
  rate = calls / total time (that key's chain grows by one version a call);
- the same on a different existing keyed node each call (each chain grows by one, as the
  library's neo4j section measures): the issue's "supersede one identity, one call each"
  reads either way, so both are judged against its target;
- search top 20: ``memory_search`` (lexical, every scope), p50/p95;
- walk depth 3 both directions: ``memory_navigate op=traverse`` (every scope), p50/p95.

Semantic search is off in both servers (``RYVEM_EMBEDDING=off``): a long-lived server embeds
written rows in a background thread, which would compete with the measured calls.
Every call is bounded by a timeout; the servers talk to Neo4j over loopback only.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from bench.measure import Figure, Row, Skip
from bench.sqlite_suite import import_workload, supersede_pairs
from bench.workload import NodeSpec, Spec, Workload, search_queries
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service

CALL_TIMEOUT_S = 60.0
"""No single tool call may take longer (a hung server fails the section, not the bench)."""

TARGETS: dict[str, tuple[str, float]] = {
    # issue 14's targets: Neo4j against SQLite, same run, through the same interface
    "supersede": ("ratio_min", 0.25),
    "supersede many": ("ratio_min", 0.25),
    "search": ("ratio_max", 3.0),
    "walk both d3": ("ratio_max", 3.0),
}


class McpServer:
    """One running ``ryvem-mcp`` and a synchronous, timed face over its client session."""

    def __init__(self, portal: Any, session: Any, name: str) -> None:
        self.portal = portal
        self.session = session
        self.name = name

    def call(self, tool: str, **arguments: Any) -> Any:
        """Call a tool that must succeed; its JSON result."""
        import anyio

        async def go() -> Any:
            with anyio.fail_after(CALL_TIMEOUT_S):
                return await self.session.call_tool(tool, arguments)

        r = self.portal.call(go)
        text = r.content[0].text if r.content else ""
        if r.is_error:
            raise RuntimeError(f"{self.name} {tool} failed: {text[:300]}")
        return json.loads(text)

    def timed(self, tool: str, argsets: list[dict[str, Any]]) -> tuple[list[float], list[Any]]:
        """Seconds per call (client send to parsed reply), and the replies."""
        secs, out = [], []
        clock = time.perf_counter
        for a in argsets:
            t0 = clock()
            out.append(self.call(tool, **a))
            secs.append(clock() - t0)
        return secs, out


WARM_WRITES = 100
"""Writes of the one-key chain run (and discarded) before its 300 are timed."""

WARM_ROUNDS = 3
"""Rounds of the search questions run (and discarded) before one round is timed."""


def _in_turns(servers: dict[str, McpServer], tool: str, argsets: list[dict[str, Any]]
              ) -> dict[str, tuple[list[float], list[Any]]]:
    """``McpServer.timed`` for every server, the servers taking turns on each argument set."""
    out: dict[str, tuple[list[float], list[Any]]] = {name: ([], []) for name in servers}
    for a in argsets:
        for name, srv in servers.items():
            secs, replies = srv.timed(tool, [a])
            out[name][0].extend(secs)
            out[name][1].extend(replies)
    return out


def _ryvem_mcp() -> str:
    found = shutil.which("ryvem-mcp", path=str(Path(sys.executable).parent))
    if found is None:
        raise Skip("the ryvem-mcp console script is not installed next to python")
    return found


@asynccontextmanager
async def _session(command: str, cwd: Path, env: dict[str, str], log: Path
                   ) -> AsyncIterator[Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command, args=[], cwd=cwd, env=env)
    with log.open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as streams,
            ClientSession(*streams) as session,
        ):
            await session.initialize()
            yield session


@contextmanager
def serve(portal: Any, name: str, cwd: Path, env: dict[str, str]) -> Iterator[McpServer]:
    """A ``ryvem-mcp`` subprocess for the life of the block (stderr in ``cwd``)."""
    base = {"HOME": str(cwd), "RYVEM_EMBEDDING": "off", "PATH": os.environ.get("PATH", "")}
    if os.environ.get("PYTHONPATH"):  # the servers run the code the bench runs (before/after)
        base["PYTHONPATH"] = os.environ["PYTHONPATH"]
    cm = _session(_ryvem_mcp(), cwd, {**base, **env}, cwd / f"{name}-server.log")
    with portal.wrap_async_context_manager(cm) as session:
        yield McpServer(portal, session, name)


def _write_args(n: NodeSpec) -> dict[str, Any]:
    return {"kind": n.kind, "title": n.title, "key": n.key, "scope": n.scope, "body": n.body,
            "data": n.data}


def _walk_size(reply: list[dict[str, Any]]) -> int:
    """How many steps a traverse reply says the walk found (shown, or the total when cut)."""
    last = reply[-1] if reply else {}
    if last.get("type") == "truncated":
        return int(last["total"])
    return len(reply)


def run(tmp: Path, cfg: dict[str, Any]) -> tuple[list[Row], dict[str, Any]]:
    from anyio.from_thread import start_blocking_portal

    from bench.neo4j_suite import _connect

    _ryvem_mcp()  # skip at once when the console script is missing
    neo, uri, user, password = _connect()  # wiped
    n = cfg["mcp_n"]
    w = Workload(Spec(n=n))
    info: dict[str, Any] = {"uri": uri, "nodes": n}
    home = tmp / "mcp-faces"
    lite_dir = home / "sqlite-data"
    lite_dir.mkdir(parents=True, exist_ok=True)
    lite = SqliteRepository.open(lite_dir / "dev.db")  # the file the server opens
    try:
        lite_svc = Service(lite)
        for name, svc in (("sqlite", lite_svc), ("neo4j", Service(neo))):
            info[f"{name}_load_s"] = round(import_workload(svc, w)["seconds"], 2)
        starts = [v.id for batch in lite_svc.iter_graph() for v, _ in batch
                  if v.is_current and v.key is not None]
        picked = [lite_svc.get(i) for i in random.Random(5).sample(
            starts, min(cfg["mcp_starts"], len(starts)))]
        refs = [(f"{v.kind}/{v.key}", v.scope) for v in picked]
    finally:
        lite.close()
        neo.close()

    envs = {
        "sqlite": {"RYVEM_BACKEND": "sqlite", "RYVEM_DATA_DIR": str(lite_dir)},
        "neo4j": {"RYVEM_BACKEND": "neo4j", "RYVEM_DATA_DIR": str(home / "neo4j-data"),
                  "RYVEM_NEO4J_URI": uri, "RYVEM_NEO4J_USER": user,
                  "RYVEM_NEO4J_PASSWORD": password},
    }
    supersedes = cfg["mcp_supersedes"]
    # a different existing keyed node each call (as the library's neo4j section does); the
    # warm-up's versions are never repeated by the measured writes
    pairs = supersede_pairs(w, supersedes, seed=13)
    warm_pairs = [w.node(x.i, 900 + k)
                  for k, x in enumerate(supersede_pairs(w, WARM_WRITES, 31))]
    queries = search_queries(w, cfg["mcp_queries"])
    fig: dict[str, dict[str, Figure]] = {"sqlite": {}, "neo4j": {}}
    checks: dict[str, dict[str, Any]] = {"sqlite": {}, "neo4j": {}}
    rows: list[Row] = []
    try:
        with start_blocking_portal() as portal, \
                serve(portal, "sqlite", home, envs["sqlite"]) as s_lite, \
                serve(portal, "neo4j", home, envs["neo4j"]) as s_neo:
            servers = {"sqlite": s_lite, "neo4j": s_neo}
            # Every figure is timed in turns (SQLite's call, then Neo4j's, for each argument
            # set), so a spell of load on the machine falls on both servers alike; each server
            # first runs a warm-up of the same calls (discarded), as the neo4j section does.

            def write(i: int, tag: str) -> dict[str, Any]:
                return {"kind": "decision", "title": "MCP bench supersede",
                        "key": "mcp-bench-supersede", "scope": "global",
                        "body": f"{tag} body number {i}: the decision changed again."}

            _in_turns(servers, "memory_write", [write(i, "warm") for i in range(WARM_WRITES)])
            timed = _in_turns(servers, "memory_write",
                              [write(i, "measured") for i in range(supersedes)])
            for name, (secs, replies) in timed.items():
                fig[name]["supersede"] = Figure.of_rate(
                    name, supersedes, sum(secs), "tx/s",
                    note=f"p50 {sorted(secs)[len(secs) // 2] * 1e3:.1f} ms")
                chain = servers[name].call("memory_history", ref="decision/mcp-bench-supersede",
                                           scope="global", limit=1)
                checks[name]["versions"] = chain["total"]
                assert len({r["id"] for r in replies}) == supersedes, "a write made no version"
            _in_turns(servers, "memory_write", [_write_args(n) for n in warm_pairs])
            timed = _in_turns(servers, "memory_write", [_write_args(n) for n in pairs])
            for name, (secs, replies) in timed.items():
                fig[name]["supersede many"] = Figure.of_rate(
                    name, len(pairs), sum(secs), "tx/s",
                    note=f"p50 {sorted(secs)[len(secs) // 2] * 1e3:.1f} ms")
                checks[name]["superseded_keys"] = sum(r["supersedes"] is not None
                                                      for r in replies)
            args = [{"text": q, "scope": "*", "limit": 20, "mode": "lexical"} for q in queries]
            _in_turns(servers, "memory_search", args * WARM_ROUNDS)
            for name, (secs, replies) in _in_turns(servers, "memory_search", args).items():
                fig[name]["search"] = Figure.of_latencies(name, secs)
                checks[name]["search_hits"] = sum(len(r["items"]) for r in replies)
            args = [{"op": "traverse", "ref": r, "scope": s, "depth": 3,
                     "direction": "both", "all_scopes": True} for r, s in refs]
            _in_turns(servers, "memory_navigate", args)
            for name, (secs, replies) in _in_turns(servers, "memory_navigate", args).items():
                fig[name]["walk both d3"] = Figure.of_latencies(name, secs)
                checks[name]["walk_steps"] = sum(_walk_size(r) for r in replies)
    finally:
        neo2, *_ = _connect()  # connecting wipes what the bench wrote, as the neo4j section does
        neo2.close()
    info["checks"] = checks
    # The same data and calls must give the same answers (ids differ: each load minted its own).
    check_of = {"supersede": "versions", "supersede many": "superseded_keys",
                "search": "search_hits", "walk both d3": "walk_steps"}
    differ = {k for k, c in check_of.items() if checks["sqlite"][c] != checks["neo4j"][c]}
    info["disagreements"] = sorted(differ)
    labels = {
        "supersede": f"MCP memory_write: single supersede, one key ({supersedes} calls)",
        "supersede many": f"MCP memory_write: single supersede, a different key each call "
                          f"({len(pairs)} calls)",
        "search": f"MCP memory_search: lexical top 20, every scope ({len(queries)} queries)",
        "walk both d3": f"MCP memory_navigate: traverse both d3 ({len(refs)} starts)",
    }
    for k, label in labels.items():
        kind, target = TARGETS[k]
        note = " — ANSWERS DIFFER between the backends" if k in differ else ""
        rows.append(Row("mcp", f"{label}, {n:,}-node graph{note}", fig["neo4j"][k],
                        fig["sqlite"][k], kind=kind, target=target,
                        extra={"checks": {b: checks[b] for b in checks}}).judge())
    return rows, info
