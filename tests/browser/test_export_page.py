"""The exported page in a real headless Chromium, loaded from disk."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.export import write_export

from .conftest import XSS_TITLE, Sample
from .pagehelp import click_node, hook, next_frame, screenshot, spread, wait_until

pytestmark = pytest.mark.browser

SETTLED = "() => window.__ryvem.settled()"


def counts_text(page: Any) -> str:
    return str(page.inner_text("#counts"))


def pixel(page: Any, version_id: str) -> list[int]:
    """The graph layer's pixel (RGBA) at the centre of a node (WebGL or 2D, read by the hook)."""
    return list(hook(page, "pixel", version_id))


def test_the_page_loads_from_disk_with_no_request_no_console_error_and_no_dialog(
    sample: Sample, open_page: Any
) -> None:
    """Loading the file fetches nothing but itself, logs no error and opens no dialog."""
    w = open_page(sample.url)
    screenshot(w.page, "overview-light")
    assert w.requests == [sample.url]
    assert w.console_errors == []
    assert w.dialogs == []


def test_the_header_counts_the_current_nodes_and_edges(sample: Sample, open_page: Any) -> None:
    """The header shows `N nodes · M edges` for what is drawn: current rows only at first."""
    w = open_page(sample.url)
    assert counts_text(w.page) == "5 nodes · 5 edges"
    assert hook(w.page, "counts") == {"nodes": 5, "edges": 5}
    assert hook(w.page, "totals") == {"nodes": 7, "edges": 6}


def test_untrusted_text_runs_no_script_and_shows_as_text(sample: Sample, open_page: Any) -> None:
    """Script tags, onerror handlers and javascript: links in a node stay inert text."""
    w = open_page(sample.url)
    click_node(w.page, sample.ids["xss"])
    wait_until(w.page, "() => !document.getElementById('panel').hidden")
    page = w.page
    assert page.inner_text("#p-title") == XSS_TITLE
    body = page.inner_text("#p-body")
    assert "<script>window.__pwned = 'script'" in body
    assert "<img src=x onerror=" in body
    assert "[click me](javascript:" in body
    assert page.locator("#p-body script, #p-body img, #p-body iframe").count() == 0
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
    assert hrefs, "the body's one safe link (the image) should be an anchor"
    assert all(h.startswith(("https:", "http:", "mailto:", "#")) for h in hrefs), hrefs
    assert page.locator("#p-body a.img").get_attribute("href") == "https://example.invalid/pic.png"
    page.click("#p-body >> text=raw anchor")
    page.click("#p-body >> text=click me")
    assert page.evaluate("() => window.__pwned === undefined")
    assert w.dialogs == []
    assert w.console_errors == []
    assert w.requests == [sample.url]


def test_clicking_a_node_opens_its_panel_with_rendered_markdown(
    sample: Sample, open_page: Any
) -> None:
    """A click on the canvas opens the node: title, rendered markdown, data summary."""
    w = open_page(sample.url)
    page = w.page
    assert page.is_hidden("#panel")
    click_node(page, sample.ids["latency"])
    assert hook(page, "selected") == sample.ids["latency"]
    assert page.is_visible("#panel")
    assert page.inner_text("#p-title") == "Latency budget"
    assert page.inner_text("#p-body h1") == "Latency"
    items = page.locator("#p-body li").all_inner_texts()
    assert items == ["p99 under 50 ms", "measured at the edge"]
    assert page.inner_text("#p-body code") == "bench/"
    click_node(page, sample.ids["cache"])
    assert page.inner_text("#p-body strong") == "overkill"
    assert page.locator("#p-data dt").all_inner_texts() == ["owner", "status"]
    assert page.locator("#p-data dd").all_inner_texts() == ["ana", "accepted"]
    screenshot(page, "node-panel")


def test_the_panel_walks_the_supersede_chain_in_a_history_timeline(
    sample: Sample, open_page: Any
) -> None:
    """A superseded node's panel lists every version, tagged, with timestamps."""
    w = open_page(sample.url)
    page = w.page
    click_node(page, sample.ids["cache"])
    items = page.locator("#p-history li")
    assert items.count() == 2
    assert items.nth(0).locator(".tag").inner_text() == "superseded"
    assert "Cache with Redis" in items.nth(0).inner_text()
    assert items.nth(1).locator(".tag").inner_text() == "current"
    assert "Cache in process" in items.nth(1).inner_text()
    assert all("Z" in t for t in page.locator("#p-history time").all_inner_texts())
    click_node(page, sample.ids["latency"])
    assert page.is_hidden("#p-history"), "a node without predecessors has no timeline"
    click_node(page, sample.ids["cache"])
    page.click("#p-history li >> nth=0 >> button")
    assert hook(page, "selected") == sample.ids["cache_v1"]
    assert page.is_checked("#history"), "visiting an old version brings History in"
    assert page.inner_text("#p-meta .tag") == "superseded"


def test_clicking_a_connection_or_a_wikilink_navigates_to_it(
    sample: Sample, open_page: Any
) -> None:
    """The panel's connections and [[links]] select and centre the node they name."""
    w = open_page(sample.url)
    page = w.page
    click_node(page, sample.ids["metrics"])
    conns = page.locator("#p-connections button").all_inner_texts()
    assert sorted(conns) == sorted([
        "→ depends-on Cache in process", "→ links Cache in process", "→ links Latency budget",
    ])
    page.click("#p-connections button:has-text('depends-on')")
    assert hook(page, "selected") == sample.ids["cache"]
    assert page.inner_text("#p-title") == "Cache in process"
    assert hook(page, "centred") == sample.ids["cache"]
    page.click("#p-body a.wikilink")
    assert hook(page, "selected") == sample.ids["latency"]


def test_search_dims_the_rest_and_enter_centres_the_strongest_match(
    sample: Sample, open_page: Any
) -> None:
    """`/` focuses search; matches stay lit, others dim; Enter centres; Esc clears."""
    w = open_page(sample.url)
    page = w.page
    other = sample.ids["metrics"]
    before = pixel(page, other)
    page.keyboard.press("/")
    assert page.evaluate("() => document.activeElement.id") == "search"
    page.keyboard.type("latency budget")
    assert hook(page, "matches") == [sample.ids["latency"]]
    next_frame(page)
    dimmed = pixel(page, other)
    lit = pixel(page, sample.ids["latency"])
    bg = [247, 247, 245]
    assert sum(abs(a - b) for a, b in zip(dimmed[:3], bg, strict=True)) < sum(
        abs(a - b) for a, b in zip(before[:3], bg, strict=True)
    ) / 3, (before, dimmed)
    assert sum(abs(a - b) for a, b in zip(lit[:3], bg, strict=True)) > 150, lit
    page.keyboard.press("Enter")
    assert hook(page, "centred") == sample.ids["latency"]
    pos = hook(page, "screenPos", sample.ids["latency"])
    # The graph area (#stage): until the next redraw the canvas itself is moved by a CSS
    # transform (panning never waits for a redraw), so its own box is not the area.
    box = page.locator("#stage").bounding_box()
    assert abs(pos["x"] - (box["x"] + box["width"] / 2)) < 1
    assert abs(pos["y"] - (box["y"] + box["height"] / 2)) < 1
    page.keyboard.press("Escape")
    assert page.input_value("#search") == ""
    assert hook(page, "matches") == []


def test_slash_focuses_search_after_the_time_slider_or_a_checkbox_was_used(
    sample: Sample, open_page: Any
) -> None:
    """A range, checkbox or select holding the focus is not typing: `/` still focuses the
    search (it stayed on the slider or the History box, so a person who had just moved
    through time could not search by keyboard)."""
    w = open_page(sample.url)
    page = w.page
    for control in ("#t-range", "#history", "#t-speed"):
        page.click(control)
        page.keyboard.press("Escape")  # a select's list, if it opened
        page.keyboard.press("/")
        assert page.evaluate("() => document.activeElement.id") == "search", control
        page.keyboard.type("latency")
        assert page.input_value("#search") == "latency", control
        assert hook(page, "matches") != [], control
        page.keyboard.press("Escape")
    assert w.console_errors == []


def test_toggling_a_kind_or_history_changes_the_header_count(
    sample: Sample, open_page: Any
) -> None:
    """The legend hides a kind; History adds superseded and retired versions as ghosts."""
    w = open_page(sample.url)
    page = w.page
    legend = page.locator("#legend button[data-kind='decision']")
    assert legend.locator(".count").inner_text() == "1"
    legend.click()
    assert counts_text(page) == "4 nodes · 2 edges"
    legend.click()
    assert counts_text(page) == "5 nodes · 5 edges"
    page.check("#history")
    assert counts_text(page) == "7 nodes · 6 edges"
    wait_until(page, SETTLED)
    screenshot(page, "history-ghosts")
    assert legend.locator(".count").inner_text() == "2"
    assert sample.ids["old"] in hook(page, "visibleIds")
    page.uncheck("#history")
    assert counts_text(page) == "5 nodes · 5 edges"


def test_the_scope_selector_narrows_to_one_scope(sample: Sample, open_page: Any) -> None:
    """Choosing board:ideas leaves only that board's node."""
    w = open_page(sample.url)
    page = w.page
    options = page.locator("#scope option").all_inner_texts()
    assert options == ["All scopes", "board:ideas", "global"]
    page.select_option("#scope", "board:ideas")
    assert counts_text(page) == "1 nodes · 0 edges"
    assert hook(page, "visibleIds") == [sample.ids["idea"]]
    page.select_option("#scope", "*")
    assert counts_text(page) == "5 nodes · 5 edges"


def test_the_theme_follows_the_system_and_the_toggle_switches_it(
    sample: Sample, open_page: Any
) -> None:
    """A dark system preference starts dark; the toggle turns the page light."""
    w = open_page(sample.url, color_scheme="dark")
    page = w.page
    bg = "() => getComputedStyle(document.body).backgroundColor"
    assert hook(page, "theme") == "dark"
    dark_bg = page.evaluate(bg)
    screenshot(page, "overview-dark")
    page.click("#theme")
    assert hook(page, "theme") == "light"
    assert page.evaluate(bg) != dark_bg
    assert open_page(sample.url, color_scheme="light").page.evaluate(
        "() => window.__ryvem.theme()"
    ) == "light"


def test_the_gear_opens_live_sliders_that_change_and_reheat_the_simulation(
    sample: Sample, open_page: Any
) -> None:
    """Each force slider is live: moving it changes the parameter and re-heats the layout."""
    w = open_page(sample.url)
    page = w.page
    assert page.is_hidden("#settings")
    page.click("#gear")
    assert page.is_visible("#settings")
    labels = page.locator("#sliders label").all_inner_texts()
    names = [label.splitlines()[0].strip() for label in labels]
    assert [n.rstrip("0123456789.").strip() for n in names] == [
        "Repulsion", "Link distance", "Link strength", "Gravity", "Collision", "Friction",
    ]
    start = hook(page, "sim")
    assert not start["running"]
    compact = spread(page)
    page.locator("#s-repulsion").fill("400")
    sim = hook(page, "sim")
    assert sim["params"]["repulsion"] == 400
    wait_until(page, SETTLED)
    # Re-heated to alpha 0.5, the layout runs ~200 more ticks before it cools below 0.001.
    assert hook(page, "sim")["ticks"] - start["ticks"] > 150, "moving a slider re-heats"
    assert spread(page) > compact * 1.3, "more repulsion spreads the nodes out"
    for slider, value, param in [
        ("#s-link-distance", "200", "linkDistance"),
        ("#s-link-strength", "0.5", "linkStrength"),
        ("#s-gravity", "0.2", "gravity"),
        ("#s-collision", "0.3", "collision"),
        ("#s-friction", "0.8", "friction"),
    ]:
        page.locator(slider).fill(value)
        assert hook(page, "sim")["params"][param] == float(value)
    page.click("#reset")
    assert hook(page, "sim")["params"] == start["defaults"]
    assert page.input_value("#s-repulsion") == str(start["defaults"]["repulsion"])


def test_dragging_moves_a_node_and_the_canvas_pans_and_zooms(
    sample: Sample, open_page: Any
) -> None:
    """Drag a node to move it, drag empty canvas to pan, scroll to zoom."""
    w = open_page(sample.url)
    page = w.page
    node = sample.ids["idea"]
    p = hook(page, "screenPos", node)
    page.mouse.move(p["x"], p["y"])
    page.mouse.down()
    page.mouse.move(p["x"] + 60, p["y"] + 40, steps=5)
    next_frame(page)
    moved = hook(page, "screenPos", node)
    assert abs(moved["x"] - (p["x"] + 60)) < 2 and abs(moved["y"] - (p["y"] + 40)) < 2
    page.mouse.up()
    assert hook(page, "selected") is None, "a drag is not a click"
    wait_until(page, SETTLED)
    view = hook(page, "view")
    page.mouse.move(5, 790)
    page.mouse.down()
    page.mouse.move(105, 740, steps=4)
    page.mouse.up()
    panned = hook(page, "view")
    assert (round(panned["x"] - view["x"]), round(panned["y"] - view["y"])) == (100, -50)
    page.mouse.move(640, 400)
    page.mouse.wheel(0, -300)
    wait_until(page, f"() => window.__ryvem.view().k > {panned['k']}")


def test_a_current_nodes_connections_leave_out_a_retired_node_as_links_does(
    open_page: Any, tmp_path: Path
) -> None:
    """Retiring b keeps the a→b edge open (a revival brings it back), but the side panel, like
    `ryvem graph links`, lists only current edges to current nodes; History shows it again."""
    repo = SqliteRepository.open(tmp_path / "r.db")
    try:
        svc = Service(repo)
        a = svc.write("task", "A", key="a").id
        svc.write("task", "B", key="b")
        svc.write("task", "C", key="c")
        svc.link("task/a", "task/b", "about")
        svc.link("task/a", "task/c", "about")
        svc.retire("task/b")
        assert [s.dst.key for s in svc.traverse("task/a")] == ["c"]
        path = write_export(svc, tmp_path / "g.html")
    finally:
        repo.close()
    page = open_page(path.as_uri()).page
    click_node(page, a)
    assert page.locator("#p-connections button").all_inner_texts() == ["→ about C"]


def test_the_page_says_when_each_version_held_and_what_was_erased_and_a_snapshot_says_so(
    open_page: Any, tmp_path: Path
) -> None:
    """A sweep as a person trusting the page: a single-version node showed no date at all, a
    purged node read "current … (no body)", an edge's data was not in the file, and an
    `--as-of` export said "now" like the live graph. Each is said now."""
    repo = SqliteRepository.open(tmp_path / "r.db")
    try:
        svc = Service(repo)
        plan = svc.write("task", "Add Redis", key="redis", valid_from="2026-01-11").id
        cache = svc.write("decision", "Cache in process", key="cache",
                          valid_from="2026-01-11").id
        svc.link("task/redis", "decision/cache", "implements", data={"pr": 42},
                 valid_from="2026-01-12")
        svc.retire("task/redis", reason="no Redis", valid_to="2026-02-02")
        gone = svc.write("note", "Pasted token", key="tok", body="ghp_secretsecret").id
        svc.purge("note/tok", reason="a secret")
        live = write_export(svc, tmp_path / "live.html")
        past = write_export(svc, tmp_path / "past.html", as_of="2026-01-20")
    finally:
        repo.close()
    assert b"ghp_secretsecret" not in live.read_bytes()
    page = open_page(live.as_uri()).page
    assert page.locator("#snapshot").count() == 0
    assert page.inner_text("#t-label") == "now"
    page.check("#history")
    click_node(page, cache)
    assert page.locator("#p-connections .edge-data").all_inner_texts() == ["pr: 42"]
    click_node(page, gone)
    assert page.locator("#p-meta .tag").all_inner_texts() == ["current", "purged"]
    assert page.inner_text("#p-body") == "(content erased by a purge)"
    click_node(page, plan)
    assert re.fullmatch(  # backdated: recorded later than its window began
        r"valid 2026-01-11 00:00:00Z → 2026-02-02 00:00:00Z · recorded "
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ", page.inner_text("#p-meta .when"))
    snap = open_page(past.as_uri()).page
    assert snap.inner_text("#snapshot") == "snapshot · as of 2026-01-20 00:00:00Z"
    assert snap.inner_text("#t-label") == "as of 2026-01-20 00:00:00Z"
    assert snap.title().endswith("· as of 2026-01-20T00:00:00.000000Z")


@pytest.mark.parametrize("renderer", ["", "#r=canvas"])
def test_history_draws_a_retired_ghost_grey_and_a_superseded_one_in_its_kinds_colour(
    open_page: Any, tmp_path: Path, renderer: str
) -> None:
    """The sweep found both ghosts drawn alike (the same faded kind colour): a person could
    tell a dropped fact from a revised one only by opening each. A retired version's ghost is
    now the muted grey; a superseded one keeps its kind's colour. Both renderers."""
    repo = SqliteRepository.open(tmp_path / "r.db")
    try:
        svc = Service(repo)
        old = svc.write("task", "Queue in SQLite", key="queue").id
        svc.write("task", "Queue in Postgres", key="queue")
        dropped = svc.write("task", "Add Redis", key="redis").id
        svc.retire("task/redis", reason="no Redis")
        path = write_export(svc, tmp_path / "g.html")
    finally:
        repo.close()
    page = open_page(path.as_uri() + renderer).page
    page.check("#history")
    next_frame(page)

    def chroma(version_id: str) -> int:
        r, g, b = pixel(page, version_id)[:3]
        return max(r, g, b) - min(r, g, b)

    assert chroma(dropped) < 12, pixel(page, dropped)  # grey, blended with the background
    assert chroma(old) > 25, pixel(page, old)  # the task kind's hue, faded
