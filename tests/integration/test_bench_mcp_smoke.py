"""The benchmark's MCP section runs end to end at a tiny scale against a real Neo4j server.

A smoke test only: no timing is asserted (speed is judged by `make bench`, not by tests). It
starts two real ``ryvem-mcp`` servers (SQLite and Neo4j) through ``python -m bench --only
mcp``; the bench empties the Neo4j database it is given, as the tests' own fixtures do.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

from backends import Neo4jServer

ROOT = Path(__file__).resolve().parents[2]


def test_the_mcp_section_reports_neo4j_against_sqlite_with_the_same_answers(
    tmp_path: Path, neo4j_server: Neo4jServer
) -> None:
    env = {**os.environ, "RYVEM_BENCH_NEO4J_URI": neo4j_server.uri,
           "RYVEM_BENCH_NEO4J_USER": neo4j_server.user,
           "RYVEM_BENCH_NEO4J_PASSWORD": neo4j_server.password}
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--scale", "tiny", "--only", "mcp", "--out",
         str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads((tmp_path / "latest-tiny.json").read_text())

    section = report["sections"]["mcp"]
    assert section["status"] == "ok", section
    assert section["disagreements"] == []
    assert section["checks"]["neo4j"]["walk_steps"] > 0
    assert section["checks"]["neo4j"]["search_hits"] > 0
    rows = [r for r in report["rows"] if r["section"] == "mcp"]
    assert [r["name"].split(":")[0] for r in rows] == [
        "MCP memory_write", "MCP memory_write", "MCP memory_search", "MCP memory_navigate"]
    for r in rows:
        assert (r["ryvem"]["label"], r["bound"]["label"]) == ("neo4j", "sqlite")
        assert r["target"] is not None and r["verdict"] in ("met", "MISSED")
        assert isinstance(r["ratio"], float) and math.isfinite(r["ratio"]) and r["ratio"] > 0
