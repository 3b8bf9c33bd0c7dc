"""`python -m bench.server_warmup [STORE] [--delay S ...] [--rounds N]`: what an agent's first
``memory_search`` costs a freshly started ``ryvem-mcp``, and the ones after it.

A real server over a byte copy of STORE (default: the documentation store `python -m
bench.recall_hybrid` builds, 100,000 rows with vectors) is started and driven by the MCP SDK's
stdio client; after the handshake the client waits S seconds (default 0 and 3: a host that
asks at once, and one whose agent asks a few seconds into the session), then asks 20 of the
evaluation's questions, hybrid, every scope, top 20. Printed per run: the handshake, the first
call, and p50 / p95 of the 19 after it, in ms. Run it with PYTHONPATH=<old checkout>/src for a
before / after comparison; alternate the two under the CPU lock."""

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


def measure(store: Path, delay: float, questions: list[str]) -> dict[str, float]:
    """One server over a byte copy of ``store``, asked ``questions`` ``delay`` seconds after
    the handshake: the handshake, the first call, p50 / p95 of the rest, in ms."""
    with tempfile.TemporaryDirectory(prefix="ryvem-warmup-") as tmp:
        data_dir = Path(tmp)
        shutil.copyfile(store, data_dir / "dev.db")
        return asyncio.run(_run(data_dir, delay, questions))


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    delays: list[float] = []
    rounds = 1
    paths: list[str] = []
    it = iter(argv)
    for a in it:
        if a == "--delay":
            delays.append(float(next(it)))
        elif a == "--rounds":
            rounds = int(next(it))
        else:
            paths.append(a)
    store = Path(paths[0] if paths else "/tmp/ryvem-recall-stores/docs.db")
    if not store.exists():
        print(f"no store at {store}: run `python -m bench.recall_hybrid` first", file=sys.stderr)
        return 2
    questions = asked()
    with tempfile.TemporaryDirectory(prefix="ryvem-warmup-") as tmp:
        data_dir = Path(tmp)
        shutil.copyfile(store, data_dir / "dev.db")
        for _ in range(rounds):
            for delay in delays or [0.0, 3.0]:
                got = asyncio.run(_run(data_dir, delay, questions))
                print(f"delay {delay:4.1f} s  handshake {got['handshake']:6.0f}  first call "
                      f"{got['first']:6.0f}  next 19 p50 {got['p50']:5.1f} p95 "
                      f"{got['p95']:5.1f} ms", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
