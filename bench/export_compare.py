"""Open exported pages one after the other in headless Chromium and print the export
section's figures for each, one JSON line per page (a comparison under the same load).

    python -m bench.export_compare PAGE.html [PAGE.html ...] [--slider] [--settle S] [--reps N]

For today's page against an older one, export the same store with both versions (e.g. a
worktree of ``main``) and pass both files; add a small export as the floor. Uses the same
launch flags and probes as ``bench/export_suite.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from bench.export_suite import CHROMIUM, LAUNCH_ARGS, PROBE, _first_seen, _slider


def probe(path: Path, *, settle: float, slider: bool, pan: float, layout: float
          ) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    out: dict[str, Any] = {}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            page = b.new_context(viewport={"width": 1280, "height": 800})
            page.add_init_script(PROBE)
            pg = page.new_page()
            t0 = time.perf_counter()
            pg.goto(path.resolve().as_uri(), wait_until="commit", timeout=180_000)
            out["first_frame_ms"], out["first_tick_ms"] = _first_seen(
                pg, "() => !!(window.__ryvem && window.__ryvem.frames().firstFrameMs !== null)", t0)
            out["marks"] = {m["name"]: round(m["startTime"]) for m in pg.evaluate(
                "() => performance.getEntriesByType('mark')"
                ".map(m => ({name: m.name, startTime: m.startTime}))")}
            pg.evaluate("() => window.__benchCount(true)")
            s0 = pg.evaluate("() => window.__ryvem.sim()")
            w0 = time.perf_counter()
            pg.wait_for_timeout(layout * 1000)
            s1 = pg.evaluate("() => window.__ryvem.sim()")
            raf = pg.evaluate("() => window.__benchCount(false)")
            win = time.perf_counter() - w0
            out["ticks_per_s"] = (s1["ticks"] - s0["ticks"]) / win
            out["layout_fps"] = raf / win
            if settle:
                out["settled_s"] = None
                while time.perf_counter() - t0 < settle:
                    if pg.evaluate("() => window.__ryvem.settled()"):
                        out["settled_s"] = time.perf_counter() - t0
                        break
                    pg.wait_for_timeout(100)
                out["ticks_at_end"] = pg.evaluate("() => window.__ryvem.sim().ticks")
            pg.mouse.move(640, 420)
            pg.mouse.down()
            pg.evaluate("() => window.__benchCount(true)")
            p0, i = time.perf_counter(), 0
            while time.perf_counter() - p0 < pan:
                i += 1
                pg.mouse.move(640 + 200 * ((i // 40) % 2 * 2 - 1) * ((i % 40) / 40), 420 + (i % 7))
            out["pan_fps"] = pg.evaluate("() => window.__benchCount(false)") / (
                time.perf_counter() - p0)
            pg.mouse.up()
            if slider:
                out["slider_ms"], out["slider_set_ms"] = _slider(pg)
            longs = pg.evaluate("() => window.__bench.long")
            ff = out["marks"].get("ryvem:first-frame", 0)
            out["longest_task_after_first_frame_ms"] = max(
                (d for t, d in longs if t >= ff), default=0.0)
        finally:
            b.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", nargs="+", type=Path)
    ap.add_argument("--settle", type=float, default=0.0, help="wait up to S s for settled()")
    ap.add_argument("--slider", action="store_true", help="time five slider moves")
    ap.add_argument("--pan", type=float, default=3.0)
    ap.add_argument("--layout", type=float, default=5.0)
    ap.add_argument("--reps", type=int, default=1)
    args = ap.parse_args()
    for _ in range(args.reps):
        for page in args.pages:
            r = probe(page, settle=args.settle, slider=args.slider, pan=args.pan,
                      layout=args.layout)
            r["page"], r["loadavg"] = page.name, os.getloadavg()[0]
            print(json.dumps(r, default=lambda v: round(v, 1)), flush=True)


if __name__ == "__main__":
    main()
