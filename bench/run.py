"""`python -m bench [--scale tiny|small|full]`: run every section, print one table, write
JSON and markdown under bench/results/ (see docs/benchmarks.md)."""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sqlite3
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import sqlite_suite as sq
from bench.measure import Figure, Row, Skip, clean, print_table, write_report
from bench.workload import Spec, Workload
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ("import", "memory", "supersede", "search", "get", "traversal", "backlinks",
            "as_of", "corpus", "recall", "neo4j", "mcp", "export")

SCALES: dict[str, dict[str, Any]] = {
    "tiny": dict(n=500, mem_sizes=(200, 500), supersedes=100, queries=20, gets=200,
                 starts=10, deep_starts=5, cte_starts=5, naive_starts=3, cte_cap_s=0.5,
                 backlink_sizes=(200, 1000), backlink_reps=20, scan_reps=2,
                 neo4j_n=300, neo4j_dense_n=200, neo4j_supersedes=30,
                 neo4j_queries=30, neo4j_starts=10, export_n=300, export_sizes=(300,),
                 browser_seconds=1.0, corpus_pages=20,
                 mcp_n=300, mcp_supersedes=50, mcp_queries=20, mcp_starts=10),
    "small": dict(n=10_000, mem_sizes=(2_000, 10_000), supersedes=1_000, queries=100,
                  gets=2_000, starts=100, deep_starts=20, cte_starts=20, naive_starts=5,
                  cte_cap_s=2.0, backlink_sizes=(200, 10_000), backlink_reps=200, scan_reps=5,
                  neo4j_n=2_000, neo4j_dense_n=1_000, neo4j_supersedes=300,
                  neo4j_queries=200, neo4j_starts=40, export_n=10_000,
                  export_sizes=(10_000,), browser_seconds=5.0, corpus_pages=60,
                  mcp_n=2_500, mcp_supersedes=300, mcp_queries=100, mcp_starts=100),
    "full": dict(n=100_000, mem_sizes=(5_000, 25_000), supersedes=2_000, queries=100,
                 gets=2_000, starts=100, deep_starts=5, cte_starts=5, naive_starts=5,
                 cte_cap_s=2.0, backlink_sizes=(200, 10_000), backlink_reps=200,
                 scan_reps=5, neo4j_n=5_000, neo4j_dense_n=2_000, neo4j_supersedes=300,
                 neo4j_queries=200, neo4j_starts=40, export_n=10_000,
                 export_sizes=(10_000, 100_000), browser_seconds=5.0,
                 mcp_n=2_500, mcp_supersedes=300, mcp_queries=100, mcp_starts=100),
}


def machine() -> dict[str, Any]:
    mem_gb = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal"):
                    mem_gb = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(), "cpu": cpu, "ram_gb": mem_gb,
        "python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(), "loadavg_at_start": os.getloadavg(),
    }


def default_corpus() -> Path | None:
    env = os.environ.get("RYVEM_BENCH_CORPUS")
    if env:
        return Path(env)
    vendored = ROOT / "tests" / "fixtures" / "corpora" / "silverbullet"
    return vendored if vendored.is_dir() else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    ap.add_argument("--scale", choices=sorted(SCALES), default="small")
    ap.add_argument("--nodes", type=int, help="override the graph size")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument("--no-neo4j", action="store_true")
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--only", action="append", choices=SECTIONS,
                    help="run only these sections (repeatable); the others are reported skipped")
    ap.add_argument("--keep", action="store_true", help="keep the temporary databases")
    args = ap.parse_args(argv)
    cfg = dict(SCALES[args.scale])
    if args.nodes:
        cfg["n"] = args.nodes
    want = set(args.only or SECTIONS)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    tmp = Path(tempfile.mkdtemp(prefix="ryvem-bench-"))
    rows: list[Row] = []
    sections: dict[str, dict[str, Any]] = {}
    t_start = time.perf_counter()

    def section(name: str, fn: Callable[[], list[Row] | tuple[list[Row], dict[str, Any]]]
                ) -> None:
        if name not in want:
            sections[name] = {"status": "skipped", "reason": "not selected (--only)"}
            return
        print(f"bench: {name} …", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            out = fn()
        except Skip as e:
            sections[name] = {"status": "skipped", "reason": str(e)}
            rows.append(Row(name, f"{name}: skipped", Figure("ryvem", note=str(e))))
            print(f"bench: {name} skipped: {e}", file=sys.stderr)
            return
        except Exception as e:  # a broken section is reported, the others still run
            traceback.print_exc()
            sections[name] = {"status": "error", "reason": f"{type(e).__name__}: {e}"}
            note = f"{type(e).__name__}: {e}"
            rows.append(Row(name, f"{name}: ERROR", Figure("ryvem", note=note)))
            return
        info: dict[str, Any] = {}
        if isinstance(out, tuple):
            out, info = out
        rows.extend(out)
        sections[name] = {"status": "ok", "seconds": round(time.perf_counter() - t0, 2), **info}

    w = Workload(Spec(n=cfg["n"]))
    main_db = tmp / "main.db"
    state: dict[str, Any] = {}

    def do_import() -> tuple[list[Row], dict[str, Any]]:
        repo = SqliteRepository.open(main_db)
        svc = Service(repo)
        res = sq.import_workload(svc, w)
        counts = sq.count_rows(main_db)
        total = sum(counts.values())
        state.update(svc=svc, between=res["between"])
        raw_s, raw_rows = sq.raw_import(main_db, tmp / "raw-import.db")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{tmp / 'raw-import.db'}{suffix}").unlink(missing_ok=True)
        row = Row("import", f"bulk import, {cfg['n']:,} nodes ({total:,} rows)",
                  Figure.of_rate("ryvem write_many", total, res["seconds"], "rows/s"),
                  Figure.of_rate("raw executemany", raw_rows, raw_s, "rows/s"),
                  kind="ratio_min", target=0.3, extra={**counts, **res}).judge()
        return [row], {"rows": counts, "ryvem_seconds": res["seconds"], "raw_seconds": raw_s}

    def need_main() -> Service:
        if "svc" not in state:
            raise Skip("needs the import section")
        svc: Service = state["svc"]
        return svc

    def do_memory() -> tuple[list[Row], dict[str, Any]]:
        peaks = [sq.memory_peak(tmp, n, seed=42) for n in cfg["mem_sizes"]]
        a, b = peaks
        row = Row("import", f"import peak memory (tracemalloc) {a['nodes']:,} → {b['nodes']:,} "
                  "nodes", Figure("ryvem", note=f"{a['peak_mb']:.1f} MB → {b['peak_mb']:.1f} MB "
                                  f"(x{b['peak_mb'] / a['peak_mb']:.2f} for x"
                                  f"{b['rows'] / a['rows']:.1f} rows)"),
                  kind="info", extra={"peaks": peaks})
        growth = b["peak_mb"] / a["peak_mb"]
        row.ratio = growth
        # "Independent of size": 5x the rows may not even grow the peak by half.
        row.met = growth < 1.5
        row.target = 1.5
        row.kind = "ratio_max"
        return [row], {"peaks": peaks}

    def do_supersede() -> list[Row]:
        svc = need_main()
        rows_ = sq.bench_supersede(svc, main_db, tmp / "raw-supersede.db", w, cfg["supersedes"])
        for suffix in ("", "-wal", "-shm"):
            Path(f"{tmp / 'raw-supersede.db'}{suffix}").unlink(missing_ok=True)
        return rows_

    def raw_conn() -> sqlite3.Connection:
        return sq.raw_connect(main_db)

    def do_search() -> list[Row]:
        svc = need_main()
        conn = raw_conn()
        try:
            return sq.bench_search(svc, conn, w, cfg["queries"], state["between"])
        finally:
            conn.close()

    def do_get() -> list[Row]:
        svc = need_main()
        conn = raw_conn()
        try:
            return sq.bench_gets(svc, conn, w, cfg["gets"])
        finally:
            conn.close()

    def do_traversal() -> tuple[list[Row], dict[str, Any]]:
        svc = need_main()
        conn = raw_conn()
        try:
            return sq.bench_traversal(svc, conn, cfg, state["between"])
        finally:
            conn.close()

    def do_backlinks() -> list[Row]:
        return sq.bench_backlinks(tmp, cfg["backlink_sizes"], cfg["backlink_reps"],
                                  cfg["scan_reps"])

    def do_corpus() -> list[Row]:
        return sq.bench_corpus(tmp, default_corpus())

    def do_recall() -> tuple[list[Row], dict[str, Any]]:
        from bench.recall_suite import bench_recall

        return bench_recall(need_main(), main_db, tmp, w, cfg, default_corpus())

    def do_neo4j() -> tuple[list[Row], dict[str, Any]]:
        if args.no_neo4j:
            raise Skip("--no-neo4j")
        from bench import neo4j_suite

        return neo4j_suite.run(tmp, cfg)

    def do_mcp() -> tuple[list[Row], dict[str, Any]]:
        if args.no_neo4j:
            raise Skip("--no-neo4j")
        from bench import mcp_faces

        return mcp_faces.run(tmp, cfg)

    def do_export() -> tuple[list[Row], dict[str, Any]]:
        from bench import export_suite

        return export_suite.run(tmp, cfg, browser=not args.no_browser)

    section("import", do_import)
    section("memory", do_memory)
    section("supersede", do_supersede)
    section("search", do_search)
    section("get", do_get)
    section("traversal", do_traversal)
    # as-of rows are produced by the search and traversal sections (next to current ones)
    sections["as_of"] = {"status": "ok" if any(r.section == "as-of" for r in rows) else
                         "skipped", "reason": "reported by search and traversal"}
    section("backlinks", do_backlinks)
    section("corpus", do_corpus)
    section("recall", do_recall)
    if "svc" in state:
        state["svc"].repo.close()
    section("neo4j", do_neo4j)
    section("mcp", do_mcp)
    section("export", do_export)

    total_s = time.perf_counter() - t_start
    title = f"ryvem bench — scale {args.scale} ({cfg['n']:,} nodes), {total_s:,.0f} s"
    report = {
        "format": 1, "scale": args.scale, "nodes": cfg["n"], "config": cfg,
        "started": stamp, "seconds": round(total_s, 1), "machine": machine(),
        "sections": sections,
        "targets": {"met": sum(r.met is True for r in rows),
                    "missed": sum(r.met is False for r in rows)},
    }
    report = clean(report)
    print_table(rows, title)
    jpath, mpath = write_report(args.out, f"bench-{args.scale}-{stamp}", report, rows, title)
    for name in (f"latest-{args.scale}.json", f"latest-{args.scale}.md"):
        shutil.copyfile(jpath if name.endswith(".json") else mpath, args.out / name)
    print(f"bench: wrote {jpath} and {mpath} ({total_s:,.0f} s)", file=sys.stderr)
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"bench: kept {tmp}", file=sys.stderr)
    return 0
