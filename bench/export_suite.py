"""Export: the HTML page at 10,000 and 100,000 nodes (3 edges per node), today's page (format
2: WebGL, layout in a worker) next to the page before issue 17 (format 1, kept frozen in
``bench/export_v1``).

Per size and page: file size and generation time; then in headless Chromium (SwiftShader
WebGL in the GPU process, as the browser tests run it): time to the first drawn frame and to
the first layout tick, time to a settled layout (capped), frames per second while the layout
runs and while panning, layout ticks per second, the longest main-thread task (a
``longtask`` PerformanceObserver installed before the page's script), the page's JS heap
(CDP ``Performance.getMetrics``; the layout worker's heap is not in it) and, for today's page,
how long moving the time slider takes to redraw. Figures are read through the pages'
read-only test hook ``window.__ryvem`` and today's page's ``ryvem:*`` performance marks
(navigation-relative, so the harness's polling latency is not in them).

The **floor**: the same measurements on a 20-node export, in the same run. On a shared machine
the browser itself (its GPU process, the compositor) is slow, so what the empty page gets —
its frame rate while panning, its time to a first frame, its slider redraw — is the bound the
big pages are compared with.
"""

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
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--use-angle=swiftshader",
               "--enable-unsafe-swiftshader", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# Installed before the page's own script (CDP, not subject to the page's CSP).
PROBE = """
window.__bench = { long: [], raf: 0, counting: false };
try {
  new PerformanceObserver(function (list) {
    list.getEntries().forEach(function (e) {
      window.__bench.long.push([e.startTime, e.duration]);
    });
  }).observe({ type: "longtask", buffered: true });
} catch (e) {}
window.__benchCount = function (on) {
  var b = window.__bench;
  if (on && !b.counting) {
    b.counting = true; b.raf = 0;
    (function tick() { if (!b.counting) return; b.raf++; requestAnimationFrame(tick); })();
  }
  if (!on) b.counting = false;
  return b.raf;
};
"""


def run(tmp: Path, cfg: dict[str, Any], *, browser: bool) -> tuple[list[Row], dict[str, Any]]:
    sizes = cfg.get("export_sizes") or (cfg["export_n"],)
    rows: list[Row] = []
    info: dict[str, Any] = {}
    if browser and Path(CHROMIUM).exists():
        floor = _floor(tmp)
        info["floor"] = floor
        rows.append(Row("export", "export floor (20 nodes) in headless Chromium, today",
                        Figure("ryvem", note=_note(floor)), extra=floor))
    for n in sizes:
        r, i = _one_size(tmp, n, cfg, browser=browser)
        rows.extend(r)
        info[str(n)] = i
    return rows, info


def _one_size(tmp: Path, n: int, cfg: dict[str, Any], *, browser: bool
              ) -> tuple[list[Row], dict[str, Any]]:
    from bench import export_v1

    w = Workload(Spec(n=n, seed=31, edges_per_node=3, links_per_body=0.0, chain_share=0.0,
                      long_chains=0))
    db = tmp / f"export-{n}.db"
    repo = SqliteRepository.open(db)
    svc = Service(repo)
    import_workload(svc, w)
    st = svc.stats()
    edges = st.edges_current + st.edges_closed
    label = f"export {st.current_rows:,} nodes / {edges:,} edges"
    pages: dict[str, dict[str, Any]] = {}
    out_new, out_old = tmp / f"graph-{n}.html", tmp / f"graph-{n}-v1.html"
    if n <= 20_000:  # warm-up (imports, caches); at 100k one run is long enough
        write_export(svc, out_new)
    secs_new, _ = timed(lambda: write_export(svc, out_new))
    again = tmp / f"graph-{n}-again.html"
    write_export(svc, again)
    same = again.read_bytes() == out_new.read_bytes()
    again.unlink()
    secs_old, _ = timed(lambda: export_v1.write_export(svc, out_old))
    repo.close()
    pages["new"] = {"seconds": secs_new, "bytes": out_new.stat().st_size, "same_bytes": same}
    pages["v1"] = {"seconds": secs_old, "bytes": out_old.stat().st_size}
    rows: list[Row] = []
    for key, name in (("new", "today"), ("v1", "before #17")):
        p = pages[key]
        rows.append(Row("export", f"{label}: generation, {name}",
                        Figure("ryvem", note=f"{p['seconds']:.2f} s, {p['bytes'] / 2**20:.1f} MiB"
                               + (", same bytes twice" if p.get("same_bytes") else "")),
                        extra=p))
    if not browser or not Path(CHROMIUM).exists():
        why = "--no-browser" if not browser else f"no Chromium at {CHROMIUM}"
        rows.append(Row("export", f"{label}: in Chromium", Figure("ryvem", note=f"skipped: {why}")))
        return rows, {"nodes": st.current_rows, "edges": edges, "pages": pages, "browser": why}
    big = n > 20_000
    settle_cap = 90.0 if big else 60.0
    pages["new"]["browser"] = _browser(out_new, legacy=False, settle_cap=settle_cap,
                                       slider=not big)
    pages["v1"]["browser"] = _browser(out_old, legacy=True, settle_cap=min(settle_cap, 60.0),
                                      slider=False)
    for key, name in (("new", "today"), ("v1", "before #17")):
        b = pages[key]["browser"]
        rows.append(Row("export", f"{label}: in headless Chromium, {name}",
                        Figure("ryvem", note=_note(b)), extra=b))
    return rows, {"nodes": st.current_rows, "edges": edges, "pages": pages,
                  "loadavg_after": os.getloadavg()}


def _note(b: dict[str, Any]) -> str:
    settled = (f"settled {b['settled_s']:.1f} s" if b["settled_s"] is not None
               else f"not settled in {b['settle_cap_s']:.0f} s")
    marks = b.get("marks") or {}
    in_page = (f" (in page {marks['first-frame']:.0f} ms)" if "first-frame" in marks else "")
    tick_in_page = (f" (in page {marks['first-tick']:.0f} ms)" if "first-tick" in marks else "")
    note = (f"first frame {b['first_frame_ms']:.0f} ms{in_page}, first tick "
            f"{b['first_tick_ms']:.0f} ms{tick_in_page}, {settled}, "
            f"{b['ticks_per_s']:.1f} ticks/s, "
            f"{b['layout_fps']:.0f} fps while laying out ({b['layout_draws_per_s']:.1f} "
            f"redraws/s), {b['pan_fps']:.1f} fps panning, longest task "
            f"{b['longest_task_ms']:.0f} ms (after the first frame "
            f"{b['longest_task_after_first_frame_ms']:.0f} ms) "
            f"({b['long_tasks_over_200ms']} > 200 ms), JS heap {b['js_heap_mb']:.0f} MB")
    if b.get("slider_ms") is not None:
        note += (f", slider redraw max {b['slider_ms']:.0f} ms (setInstant itself "
                 f"{b['slider_set_ms']:.0f} ms)")
    return note


def _floor(tmp: Path) -> dict[str, Any]:
    """The browser figures of a 20-node page: what the browser gives an empty graph now."""
    w = Workload(Spec(n=20, seed=31, edges_per_node=3, links_per_body=0.0, chain_share=0.0,
                      long_chains=0))
    repo = SqliteRepository.open(tmp / "export-floor.db")
    try:
        svc = Service(repo)
        import_workload(svc, w)
        out = write_export(svc, tmp / "graph-floor.html")
    finally:
        repo.close()
    return _browser(out, legacy=False, settle_cap=30.0, slider=True)


def _browser(page_path: Path, *, legacy: bool, settle_cap: float, slider: bool
             ) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    drawn = ("() => window.__ryvem && window.__ryvem.sim().ticks > 0" if legacy else
             "() => !!(window.__ryvem && window.__ryvem.frames().firstFrameMs !== null)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            ctx = b.new_context(viewport={"width": 1280, "height": 800})
            ctx.add_init_script(PROBE)
            page = ctx.new_page()
            cdp = ctx.new_cdp_session(page)
            cdp.send("Performance.enable")
            t0 = time.perf_counter()
            page.goto(page_path.as_uri(), wait_until="commit", timeout=180_000)
            first_frame, first_tick = _first_seen(page, drawn, t0)
            in_page = {} if legacy else page.evaluate("() => window.__ryvem.frames()")
            # While the layout runs: browser frames (rAF) and the page's own redraws.
            page.evaluate("() => window.__benchCount(true)")
            s0 = page.evaluate("() => window.__ryvem.sim()")
            f0 = 0 if legacy else page.evaluate("() => window.__ryvem.frames().frames")
            w0 = time.perf_counter()
            page.wait_for_timeout(3000)
            s1 = page.evaluate("() => window.__ryvem.sim()")
            f1 = 0 if legacy else page.evaluate("() => window.__ryvem.frames().frames")
            raf = page.evaluate("() => window.__benchCount(false)")
            win = time.perf_counter() - w0
            ticks_per_s = (s1["ticks"] - s0["ticks"]) / win
            layout_fps = raf / win
            layout_draws = (f1 - f0) / win if not legacy else layout_fps
            # Settled?
            settled_s = None
            deadline = t0 + settle_cap
            while time.perf_counter() < deadline:
                if page.evaluate("() => window.__ryvem.settled()"):
                    settled_s = time.perf_counter() - t0
                    break
                page.wait_for_timeout(100)
            # Panning: drag the empty corner of the canvas for 3 s.
            page.mouse.move(640, 420)
            page.mouse.down()
            page.evaluate("() => window.__benchCount(true)")
            p0 = time.perf_counter()
            i = 0
            while time.perf_counter() - p0 < 3.0:
                i += 1
                page.mouse.move(640 + 200 * ((i // 40) % 2 * 2 - 1) * ((i % 40) / 40),
                                420 + (i % 7))
            raf = page.evaluate("() => window.__benchCount(false)")
            pan_fps = raf / (time.perf_counter() - p0)
            page.mouse.up()
            slider_ms = slider_set_ms = None
            if slider and not legacy:
                slider_ms, slider_set_ms = _slider(page)
            marks = {} if legacy else {
                m["name"].removeprefix("ryvem:"): m["startTime"] for m in page.evaluate(
                    "() => performance.getEntriesByType('mark')"
                    ".map(m => ({name: m.name, startTime: m.startTime}))")}
            longs = page.evaluate("() => window.__bench.long")
            metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
            renderer = "canvas (2D)" if legacy else page.evaluate("() => window.__ryvem.renderer()")
            worker = False if legacy else s1.get("worker", False)
        finally:
            b.close()
    return {
        "renderer": renderer, "worker": worker,
        "first_frame_ms": first_frame, "first_tick_ms": first_tick, "in_page": in_page,
        "settled_s": settled_s, "settle_cap_s": settle_cap,
        "ticks_per_s": ticks_per_s, "layout_fps": layout_fps, "layout_draws_per_s": layout_draws,
        "pan_fps": pan_fps, "pan_moves": i,
        "longest_task_ms": max((d for _, d in longs), default=0.0),
        # after the first drawn frame (in-page clock; the format-1 page has no such mark)
        "longest_task_after_first_frame_ms": max(
            (d for t, d in longs if t >= (in_page.get("firstFrameMs") or 0)), default=0.0),
        "long_tasks_over_200ms": sum(1 for _, d in longs if d > 200),
        "long_tasks": longs[:50],
        "js_heap_mb": metrics.get("JSHeapUsedSize", 0) / 2**20,
        "slider_ms": slider_ms, "slider_set_ms": slider_set_ms, "marks": marks,
        "loadavg": os.getloadavg(),
    }


def _slider(page: Any) -> tuple[float, float]:
    """The slowest of five slider moves: setInstant, then the next two frames; and the
    slowest setInstant call alone (recompute and the nodes' redraw submitted)."""
    times = page.evaluate("""async () => {
        const t = window.__ryvem.timeline(), n = t.instants.length, out = [], set = [];
        for (const f of [0.1, 0.3, 0.5, 0.7, 0.9]) {
            const a = performance.now();
            window.__ryvem.setInstant(t.instants[Math.floor(f * (n - 1))]);
            set.push(performance.now() - a);
            await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
            out.push(performance.now() - a);
        }
        window.__ryvem.setInstant("now");
        return [out, set];
    }""")
    return float(max(times[0])), float(max(times[1]))


def _first_seen(page: Any, drawn: str, t0: float) -> tuple[float, float]:
    """Harness ms (from before the navigation) at which the first drawn frame and the first
    layout tick were each first seen, polled together: polling the tick only once the frame
    was seen made the tick's figure at least the frame's, whatever their order in the page.
    A poll is answered only when the page's main thread is free, so these are later than the
    page's own ``ryvem:first-frame`` / ``ryvem:first-tick`` marks (when the page had them)."""
    js = f"() => [({drawn})(), !!(window.__ryvem && window.__ryvem.sim().ticks > 0)]"
    seen: list[float | None] = [None, None]
    deadline = time.perf_counter() + 180.0
    while seen[0] is None or seen[1] is None:
        got = page.evaluate(js)
        now = (time.perf_counter() - t0) * 1e3
        for k in (0, 1):
            if got[k] and seen[k] is None:
                seen[k] = now
        if time.perf_counter() > deadline:
            raise TimeoutError(js)
        time.sleep(0.005)
    return float(seen[0] or 0.0), float(seen[1] or 0.0)


def _poll(page: Any, js: str, timeout: float, every: float) -> None:
    deadline = time.perf_counter() + timeout
    while not page.evaluate(js):
        if time.perf_counter() > deadline:
            raise TimeoutError(js)
        time.sleep(every)
