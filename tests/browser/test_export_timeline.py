"""The time slider: the page's instant, from the first version to now (issue 17)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.domain.timeutil import format_us
from ryvem.export import write_export

from .conftest import Sample, build_sample
from .pagehelp import click_node, hook, screenshot, wait_until

pytestmark = pytest.mark.browser

SETTLED = "() => window.__ryvem.settled()"


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Sample, Any, Any]]:
    """The sample graph exported, with every version and edge for a reference count."""
    root = tmp_path_factory.mktemp("timeline")
    repo = SqliteRepository.open(root / "ryvem.db")
    try:
        svc = Service(repo)
        ids = build_sample(svc)
        path = write_export(svc, root / "graph.html")
        versions = [v for batch in svc.iter_graph() for v, _ in batch]
        edges = [e for batch in svc.iter_edges() for e in batch]
    finally:
        repo.close()
    yield Sample(path, ids), versions, edges


def expected_counts(versions: list[Any], edges: list[Any], at: int) -> dict[str, int]:
    """What the page should draw at ``at`` (History off): versions valid then, and the edges
    valid then between two entities that each have a version valid then."""
    live = [v for v in versions if v.valid_from <= at and (v.valid_to is None or at < v.valid_to)]
    entities = {v.entity for v in live}
    drawn = [
        e for e in edges
        if e.rel != "supersedes" and e.valid_from <= at and (e.valid_to is None or at < e.valid_to)
        and e.src in entities and e.dst in entities
    ]
    return {"nodes": len(live), "edges": len(drawn)}


def test_the_timeline_lists_every_moment_the_graph_changed(
    history: tuple[Sample, Any, Any], open_page: Any
) -> None:
    """`timeline()` is every distinct start and end of a version or an edge, in order."""
    sample, versions, edges = history
    w = open_page(sample.url)
    t = hook(w.page, "timeline")
    moments = {v.valid_from for v in versions} | {v.valid_to for v in versions if v.valid_to}
    moments |= {e.valid_from for e in edges} | {e.valid_to for e in edges if e.valid_to}
    want = [format_us(m) for m in sorted(moments)]
    assert t["instants"] == want
    assert (t["first"], t["last"]) == (want[0], want[-1])
    assert hook(w.page, "instant") is None, "the page opens at now"
    assert w.page.input_value("#t-range") == str(len(want) - 1)
    assert w.page.inner_text("#t-label") == "now"


def test_each_instant_draws_what_was_valid_then(
    history: tuple[Sample, Any, Any], open_page: Any
) -> None:
    """At every instant the counts match a reference computed from the store."""
    sample, versions, edges = history
    w = open_page(sample.url)
    for at in hook(w.page, "timeline")["instants"]:
        us = next(
            m for m in [v.valid_from for v in versions] + [v.valid_to or 0 for v in versions]
            + [e.valid_from for e in edges] + [e.valid_to or 0 for e in edges]
            if format_us(m) == at
        )
        got = hook(w.page, "setInstant", at)
        assert got == expected_counts(versions, edges, us), at
        assert w.page.inner_text("#counts") == f"{got['nodes']} nodes · {got['edges']} edges"
    assert hook(w.page, "setInstant", "now") == {"nodes": 5, "edges": 5}


def test_a_node_appears_changes_and_is_retired_as_the_slider_moves(
    history: tuple[Sample, Any, Any], open_page: Any
) -> None:
    """Before the cache was rewritten its panel shows v1; the old rule is there until retired."""
    sample, versions, _ = history
    by_id = {v.id: v for v in versions}
    w = open_page(sample.url)
    page = w.page
    click_node(page, sample.ids["cache"])
    assert page.inner_text("#p-title") == "Cache in process"
    v1 = by_id[sample.ids["cache_v1"]]
    hook(page, "setInstant", format_us(v1.valid_from))
    assert hook(page, "selected") == sample.ids["cache_v1"], "the selection follows its entity"
    assert page.inner_text("#p-title") == "Cache with Redis"
    assert page.inner_text("#p-meta .tag") == "valid then"
    assert hook(page, "visibleIds") == [sample.ids["cache_v1"]]
    old = by_id[sample.ids["old"]]
    assert old.valid_to is not None
    hook(page, "setInstant", format_us(old.valid_to - 1))
    assert sample.ids["old"] in hook(page, "visibleIds")
    assert sample.ids["cache"] in hook(page, "visibleIds")
    hook(page, "setInstant", format_us(old.valid_to))
    assert sample.ids["old"] not in hook(page, "visibleIds"), "retired at its end"
    page.check("#history")
    assert sample.ids["old"] in hook(page, "visibleIds"), "History shows it as a ghost"


def test_the_fragment_keeps_the_instant_and_the_same_instant_gives_the_same_picture(
    history: tuple[Sample, Any, Any], open_page: Any
) -> None:
    """Moving the slider writes `#t=…`; opening that link shows the same graph, pixel for pixel."""
    sample, _, _ = history
    w = open_page(sample.url)
    instants = hook(w.page, "timeline")["instants"]
    middle = instants[len(instants) // 2]
    counts = hook(w.page, "setInstant", middle)
    # written once the instant has rested (150 ms), not at every step of a move
    w.page.wait_for_url(lambda u: u.endswith("#t=" + middle), timeout=5_000)
    url = w.page.url
    shots = []
    for _ in range(2):
        again = open_page(url)
        assert hook(again.page, "instant") == middle
        assert hook(again.page, "counts") == counts
        assert again.page.inner_text("#t-label") != "now"
        shots.append((hook(again.page, "positions"), again.page.screenshot()))
    assert shots[0][0] == shots[1][0], "same instant, same layout"
    assert shots[0][1] == shots[1][1], "same instant, same picture"


def test_play_replays_the_history_and_stops_at_now(
    history: tuple[Sample, Any, Any], open_page: Any
) -> None:
    """▶ starts at the first version, walks every instant at the chosen speed, ends at now."""
    sample, _, _ = history
    w = open_page(sample.url)
    page = w.page
    first = hook(page, "timeline")["first"]
    page.select_option("#t-speed", "1")
    page.click("#t-play")
    assert hook(page, "instant") == first
    assert page.get_attribute("#t-play", "aria-label") == "Pause"
    page.select_option("#t-speed", "10")  # the speed can change while it plays
    seen = set()
    for _ in range(400):
        seen.add(hook(page, "instant"))
        if hook(page, "instant") is None:
            break
        page.wait_for_timeout(20)
    assert hook(page, "instant") is None
    assert len(seen) >= 4, seen
    assert page.get_attribute("#t-play", "aria-label") == "Play"
    assert hook(page, "counts") == {"nodes": 5, "edges": 5}


def test_screenshots_at_three_instants(history: tuple[Sample, Any, Any], open_page: Any) -> None:
    """The first version, the middle of the history and now, for a person to look at."""
    sample, _, _ = history
    w = open_page(sample.url)
    page = w.page
    instants = hook(page, "timeline")["instants"]
    for name, at in (("first", instants[0]), ("middle", instants[len(instants) // 2]),
                     ("now", "now")):
        hook(page, "setInstant", at)
        wait_until(page, SETTLED)
        path: Path = screenshot(page, f"timeline-{name}")
        assert path.stat().st_size > 0
    assert w.console_errors == []
    assert w.requests == [sample.url]


def test_the_layout_runs_in_a_worker_and_draws_with_webgl(
    sample: Sample, open_page: Any
) -> None:
    """In this Chromium the page draws with WebGL and lays out off the main thread."""
    w = open_page(sample.url)
    assert hook(w.page, "renderer") == "webgl"
    assert hook(w.page, "sim")["worker"] is True
    assert w.console_errors == []


def test_the_canvas_fallback_draws_and_answers_clicks(sample: Sample, open_page: Any) -> None:
    """`#r=canvas` forces the 2D renderer (the path taken without WebGL): same graph, same
    panel, search still dims."""
    w = open_page(sample.url + "#r=canvas")
    page = w.page
    assert hook(page, "renderer") == "canvas"
    assert hook(page, "counts") == {"nodes": 5, "edges": 5}
    click_node(page, sample.ids["latency"])
    assert page.inner_text("#p-title") == "Latency budget"
    lit = hook(page, "pixel", sample.ids["latency"])
    assert sum(abs(a - b) for a, b in zip(lit[:3], [247, 247, 245], strict=True)) > 150
    screenshot(page, "canvas-fallback")
    assert w.console_errors == []


def test_without_a_worker_the_layout_runs_on_the_main_thread(
    sample: Sample, open_page: Any
) -> None:
    """`#w=main` takes the path used where no worker can start: the same code, in slices."""
    w = open_page(sample.url + "#w=main")
    page = w.page
    assert hook(page, "sim")["worker"] is False
    assert hook(page, "sim")["ticks"] >= 300
    assert hook(page, "counts") == {"nodes": 5, "edges": 5}
    click_node(page, sample.ids["latency"])
    assert page.inner_text("#p-title") == "Latency budget"
    first = hook(page, "timeline")["first"]
    hook(page, "setInstant", first)
    page.wait_for_url(lambda u: u.endswith("#w=main&t=" + first), timeout=5_000)
    assert w.console_errors == []


def test_moving_the_slider_draws_the_nodes_at_once_and_the_edges_when_it_rests(
    history: tuple[Sample, Any, Any], open_page: Any
) -> None:
    """The frame drawn by a slider move has the new instant's nodes and no edges (a bounded
    redraw); once the slider rests the edges are drawn again and the page settles."""
    sample, _, _ = history
    w = open_page(sample.url)
    page = w.page
    assert hook(page, "frames")["drawnEdges"] == 5
    instants = hook(page, "timeline")["instants"]
    counts = hook(page, "setInstant", instants[-2])
    assert counts["edges"] > 0
    assert hook(page, "frames")["drawnEdges"] == 0, "the move's own frame skips the edges"
    wait_until(page, SETTLED)
    assert hook(page, "frames")["drawnEdges"] == counts["edges"]
    assert w.console_errors == []


def test_an_instant_written_with_a_zone_or_as_a_date_opens_the_same_instant(
    history: tuple[Sample, Any, Any], open_page: Any
) -> None:
    """`#t=` and `setInstant` take what the CLI's `--as-of` takes — a date, a zone offset on
    either side of a DST change, no zone (UTC) — and name the same instant in UTC; a zone in
    the link was ignored and the page opened at now without a word."""
    sample, _, _ = history
    for written, want in (
        ("2026-03-29T03:30:00+02:00", "2026-03-29T01:30:00.000000Z"),  # CEST, just after
        ("2026-10-25T02:30:00+01:00", "2026-10-25T01:30:00.000000Z"),  # CET, the repeated hour
        ("2026-10-25T02:30:00%2B02:00", "2026-10-25T00:30:00.000000Z"),
        ("2026-11-30T12:00:00-0330", "2026-11-30T15:30:00.000000Z"),
        ("2026-11-30T12:00", "2026-11-30T12:00:00.000000Z"),
        ("2026-11-30", "2026-11-30T00:00:00.000000Z"),
    ):
        w = open_page(sample.url + "#t=" + written)
        # The page's history is today's: an instant before its first change is kept as given.
        assert hook(w.page, "instant") == want, written
        assert hook(w.page, "setInstant", "now")
        hook(w.page, "setInstant", written.replace("%2B", "+"))
        assert hook(w.page, "instant") == want, written
    w = open_page(sample.url + "#t=2026-11-31")
    assert hook(w.page, "instant") is None, "not a date: the page opens at now"
