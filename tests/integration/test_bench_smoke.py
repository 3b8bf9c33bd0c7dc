"""The benchmark harness runs end to end at a tiny scale and writes a well-formed report.

A smoke test only: no timing is asserted (CI machines are noisy). Neo4j and Chromium are left
out here (their sections must then say "skipped"); `make bench` runs them.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SQLITE_SECTIONS = ("import", "memory", "supersede", "search", "get", "traversal", "backlinks",
                   "as_of", "export")
ALL_SECTIONS = (*SQLITE_SECTIONS, "corpus", "neo4j", "mcp")


def test_bench_tiny_scale_writes_a_complete_report(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_BENCH_NEO4J")}
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--scale", "tiny", "--no-neo4j", "--no-browser",
         "--out", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads((tmp_path / "latest-tiny.json").read_text())
    markdown = (tmp_path / "latest-tiny.md").read_text()

    assert report["scale"] == "tiny" and report["nodes"] == 500
    for key in ("cpus", "ram_gb", "python", "sqlite"):
        assert report["machine"][key]
    assert set(ALL_SECTIONS) <= set(report["sections"])
    for name in SQLITE_SECTIONS:
        assert report["sections"][name]["status"] == "ok", (name, report["sections"][name])
    assert report["sections"]["neo4j"]["status"] == "skipped"
    assert report["sections"]["mcp"]["status"] == "skipped"
    assert report["sections"]["corpus"]["status"] in ("ok", "skipped")

    rows = report["rows"]
    assert {r["section"] for r in rows} >= {"import", "write", "search", "get", "traversal",
                                            "backlinks", "as-of", "export"}
    judged = [r for r in rows if r["target"] is not None]
    assert len(judged) >= 15
    for r in rows:
        assert r["name"] and r["ryvem"]["label"]
        for fig in (r["ryvem"], r["bound"]):
            if fig is None:
                continue
            for k in ("p50_ms", "p95_ms", "rate"):
                v = fig[k]
                assert v is None or (isinstance(v, int | float) and math.isfinite(v) and v >= 0)
        if r["target"] is not None:
            assert r["ratio"] is not None and r["verdict"] in ("met", "MISSED"), r
    for depth in (1, 3, 6, 10):
        for direction in ("out", "both"):
            assert any(r["name"].startswith(f"traverse {direction} d{depth} (")
                       and r["bound"] and r["bound"]["label"] == "raw BFS" for r in rows)
    assert any("naive recursive CTE" in r["name"] for r in rows)
    assert any("networkx" in r["name"] for r in rows)
    assert markdown.startswith("# ryvem bench") and markdown.count("\n|") >= len(rows)
