"""Export: generation time and size of the HTML page for a 10,000-node / 30,000-edge graph,
then, in headless Chromium, time to first paint and layout ticks per second (read through
the page's read-only test hook ``window.__ryvem``)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from bench.measure import Figure, Row, timed
from bench.sqlite_suite import import_workload
from bench.workload import Spec, Workload
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.export import write_export

CHROMIUM = os.environ.get("RYVEM_BENCH_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def run(tmp: Path, cfg: dict[str, Any], *, browser: bool) -> tuple[list[Row], dict[str, Any]]:
    n = cfg["export_n"]
    w = Workload(Spec(n=n, seed=31, edges_per_node=3, links_per_body=0.0, chain_share=0.0,
                      long_chains=0))
    repo = SqliteRepository.open(tmp / "export.db")
    svc = Service(repo)
    import_workload(svc, w)
    st = svc.stats()
    edges = st.edges_current + st.edges_closed
    out = tmp / "graph.html"
    write_export(svc, out)  # warm-up (imports, caches)
    secs, _ = timed(lambda: write_export(svc, out))
    repo.close()
    size = out.stat().st_size
    info: dict[str, Any] = {"nodes": st.current_rows, "edges": edges, "seconds": secs,
                            "bytes": size}
    rows = [Row("export", f"export {st.current_rows:,} nodes / {edges:,} edges: generation",
                Figure("ryvem", note=f"{secs:.2f} s, {size / 2**20:.1f} MiB"),
                extra=info)]
    if not browser:
        rows.append(Row("export", "export in Chromium", Figure("ryvem", note="skipped: "
                                                                "--no-browser")))
        info["browser"] = "skipped: --no-browser"
        return rows, info
    if not Path(CHROMIUM).exists():
        rows.append(Row("export", "export in Chromium",
                        Figure("ryvem", note=f"skipped: no Chromium at {CHROMIUM}")))
        info["browser"] = f"skipped: no Chromium at {CHROMIUM}"
        return rows, info
    info["browser"] = _browser(out, cfg["browser_seconds"])
    b = info["browser"]
    rows.append(Row("export", "export in headless Chromium: first paint / hook ready",
                    Figure("ryvem", note=f"FCP {b['first_contentful_paint_ms']:.0f} ms, "
                           f"first tick {b['first_tick_ms']:.0f} ms"), extra=b))
    if b["window_s"] > 0:
        fig = Figure.of_rate("ryvem", b["ticks"], b["window_s"], "ticks/s")
    else:
        fig = Figure("ryvem", note=f"settled before the first sample ({b['total_ticks']} ticks)")
    rows.append(Row("export", f"export in headless Chromium: layout ({b['window_s']:.1f} s "
                    "window)", fig))
    return rows, info


def _browser(page_path: Path, seconds: float) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            page = b.new_page(viewport={"width": 1280, "height": 800})
            t0 = time.perf_counter()
            page.goto(page_path.as_uri(), wait_until="load", timeout=120_000)
            page.wait_for_function("window.__ryvem && window.__ryvem.sim().ticks > 0",
                                   timeout=120_000, polling=5)
            first_tick = (time.perf_counter() - t0) * 1e3
            paints = dict(page.evaluate(
                "performance.getEntriesByType('paint').map(e => [e.name, e.startTime])"))
            # Poll the hook: ticks per second while the layout runs (it stops when settled).
            samples = [(time.perf_counter(), page.evaluate("window.__ryvem.sim()"))]
            end = samples[0][0] + seconds
            while time.perf_counter() < end and samples[-1][1]["running"]:
                page.wait_for_timeout(100)
                samples.append((time.perf_counter(), page.evaluate("window.__ryvem.sim()")))
            running = [s for s in samples if s[1]["running"]] or samples[:1]
            last = samples[-1] if samples[-1][1]["running"] else samples[min(len(running),
                                                                             len(samples) - 1)]
            window = last[0] - samples[0][0]
            ticks = last[1]["ticks"] - samples[0][1]["ticks"]
            s1 = samples[-1][1]
            counts = page.evaluate("window.__ryvem.totals()")
        finally:
            b.close()
    return {
        "first_paint_ms": paints.get("first-paint", float("nan")),
        "first_contentful_paint_ms": paints.get("first-contentful-paint", float("nan")),
        "first_tick_ms": first_tick,
        "ticks": ticks,
        "total_ticks": s1["ticks"],
        "window_s": window,
        "still_running": s1["running"],
        "totals": counts,
    }
