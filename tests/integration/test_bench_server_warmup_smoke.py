"""`python -m bench.server_warmup` runs end to end against a small store.

A smoke test only: no timing is asserted (speed is judged by `make bench`). It starts a real
``ryvem-mcp`` over a copy of the store, asks the evaluation's questions through the MCP SDK's
client, and prints one line per run; a failed call fails the probe.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import NewNode, Service

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"^delay +0\.0 s +handshake +\d+ +first call +\d+ +next 19 p50 +[\d.]+ "
                  r"p95 +[\d.]+ ms$")


def test_the_server_warm_up_probe_asks_a_real_server_and_prints_one_line_a_run(
    tmp_path: Path,
) -> None:
    store = tmp_path / "small.db"
    repo = SqliteRepository.open(store)
    try:
        Service(repo).write_many([
            NewNode(kind="page", title=f"Page {i}", key=f"p{i}", scope="global",
                    body="Templates, queries and links between pages.")
            for i in range(30)
        ])
    finally:
        repo.close()
    before = store.read_bytes()
    proc = subprocess.run(
        [sys.executable, "-m", "bench.server_warmup", str(store), "--delay", "0"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and LINE.match(lines[0]), proc.stdout
    assert store.read_bytes() == before  # the probe serves a copy
