"""`python -m bench.server_warmup [STORE] [--delay S ...] [--rounds N] [--kept]`: what an
agent's first ``memory_search`` costs a freshly started ``ryvem-mcp``, and the ones after it.

A real server over a byte copy of STORE (default: the documentation store `python -m
bench.recall_hybrid` builds, 100,000 rows with vectors) is started and driven by the MCP SDK's
stdio client; after the handshake the client waits S seconds (default 0 and 3: a host that
asks at once, and one whose agent asks a few seconds into the session), then asks 20 of the
evaluation's questions, hybrid, every scope, top 20. Printed per run: the handshake, the first
call, and p50 / p95 of the 19 after it, in ms. Each server runs on a new copy holding nothing
an earlier process kept of the search index (migration_008); with ``--kept``, what a process
that only warmed up kept (the common words; none of the questions asked). Run it with
PYTHONPATH=<old checkout>/src for a before / after comparison; alternate the two under the CPU
lock."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench.docs_workload import eval_questions
from bench.measure import pct

RYVEM_MCP = shutil.which("ryvem-mcp", path=str(Path(sys.executable).parent))


def asked() -> list[str]:
    """The 20 questions asked: the first distinct ones of the evaluation, shuffled as the
    documentation workload shuffles them."""
    return list(dict.fromkeys(eval_questions(100)))[:20]


async def _run(data_dir: Path, delay: float, questions: list[str]) -> dict[str, float]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    assert RYVEM_MCP is not None, "ryvem-mcp is not installed next to this python"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    env.update(RYVEM_DATA_DIR=str(data_dir), RYVEM_BACKEND="sqlite")
    params = StdioServerParameters(command=RYVEM_MCP, args=[], env=env, cwd=str(data_dir))
    t0 = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as streams, \
                ClientSession(*streams) as session:
            await session.initialize()
            handshake = time.perf_counter() - t0
            await asyncio.sleep(delay)
            took = []
            for q in questions:
                t = time.perf_counter()
                r = await session.call_tool("memory_search", {"text": q, "limit": 20,
                                                              "scope": "*"})
                took.append(time.perf_counter() - t)
                assert not r.is_error, r
    rest = took[1:]
    return {"handshake": handshake * 1e3, "first": took[0] * 1e3,
            "p50": pct(rest, 50) * 1e3, "p95": pct(rest, 95) * 1e3}


def measure(store: Path, delay: float, questions: list[str], kept: bool = False
            ) -> dict[str, float]:
    """One server over a byte copy of ``store``, asked ``questions`` ``delay`` seconds after
    the handshake: the handshake, the first call, p50 / p95 of the rest, in ms. The copy
    holds nothing an earlier process kept of its search index (migration_008) — or, with
    ``kept``, what a process that only warmed up kept: the store's common words, none of
    these questions asked (``prepare``)."""
    with tempfile.TemporaryDirectory(prefix="ryvem-warmup-") as tmp:
        data_dir = Path(tmp)
        held = prepare(store, data_dir / "dev.db", kept)
        return {**asyncio.run(_run(data_dir, delay, questions)), "kept": float(held)}


def prepare(store: Path, copy: Path, kept: bool) -> bool:
    """``copy`` made from ``store`` with nothing kept of its search index, then, with
    ``kept``, opened by a process that warms up (as a server does after its handshake), lets
    its filler read the common words and keep them, and closes — as a server that ran
    before and was restarted leaves the store. Whether anything is kept (a small store has
    no common word)."""
    from bench.recall_suite import clear_kept, wait_kept
    from ryvem.adapters.sqlite import SqliteRepository

    shutil.copyfile(store, copy)
    clear_kept(copy)
    if not kept:
        return False
    repo = SqliteRepository.open(copy)
    try:
        repo.warm(None)
        repo.settle(300)
        held = repo._postings is not None and bool(repo._postings.postings)
        return held and wait_kept(copy) is not None
    finally:
        repo.close()


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    delays: list[float] = []
    rounds = 1
    kept = False
    paths: list[str] = []
    it = iter(argv)
    for a in it:
        if a == "--delay":
            delays.append(float(next(it)))
        elif a == "--rounds":
            rounds = int(next(it))
        elif a == "--kept":
            kept = True
        else:
            paths.append(a)
    store = Path(paths[0] if paths else "/tmp/ryvem-recall-stores/docs.db")
    if not store.exists():
        print(f"no store at {store}: run `python -m bench.recall_hybrid` first", file=sys.stderr)
        return 2
    questions = asked()
    for _ in range(rounds):
        for delay in delays or [0.0, 3.0]:
            with tempfile.TemporaryDirectory(prefix="ryvem-warmup-") as tmp:
                data_dir = Path(tmp)
                prepare(store, data_dir / "dev.db", kept)  # each server on a new copy
                got = asyncio.run(_run(data_dir, delay, questions))
                print(f"delay {delay:4.1f} s  handshake {got['handshake']:6.0f}  first call "
                      f"{got['first']:6.0f}  next 19 p50 {got['p50']:5.1f} p95 "
                      f"{got['p95']:5.1f} ms", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
