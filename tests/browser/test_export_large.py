"""A 10,000-node, 30,000-edge export opens and responds in the real browser (no timing asserted).

How fast the layout settles at this size is measured by the benchmarks, not here.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.domain.model import Edge, NodeVersion
from ryvem.export import write_export

from .pagehelp import hook, next_frame, wait_until

pytestmark = pytest.mark.browser

NODES, EDGES = 10_000, 30_000
KINDS = ["task", "decision", "page", "pr", "review", "branch", "business-rule", "codebase-map"]
T0 = 1_700_000_000_000_000


def _id(i: int) -> str:
    return f"{T0 + i:013x}{i:011x}"


@pytest.fixture(scope="module")
def large_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded random graph loaded verbatim, then exported."""
    root = tmp_path_factory.mktemp("large")
    rng = random.Random(7)
    versions = [
        (
            NodeVersion(
                id=_id(i), entity=_id(i), kind=KINDS[i % len(KINDS)], scope="global",
                key=f"n{i}", title=f"Node {i}", body=f"Body of *node {i}*.", valid_from=T0 + i,
            ),
            (),
        )
        for i in range(NODES)
    ]
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < EDGES:
        a = rng.randrange(NODES)
        b = (a + int(rng.gauss(0, 60))) % NODES if rng.random() < 0.8 else rng.randrange(NODES)
        if a != b:
            pairs.add((a, b))
    edges = [
        Edge(id=_id(NODES + j), rel="depends-on", src=_id(a), dst=_id(b), valid_from=T0 + NODES + j)
        for j, (a, b) in enumerate(sorted(pairs))
    ]
    repo = SqliteRepository.open(root / "large.db")
    try:
        repo.load(versions, edges)
        return write_export(Service(repo), root / "large.html")
    finally:
        repo.close()


def test_a_ten_thousand_node_graph_opens_counts_and_answers_a_click(
    large_page: Path, browser: Any
) -> None:
    """At 10k nodes / 30k edges the page loads cleanly, counts right and selects a clicked node."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(large_page.as_uri())
        assert page.inner_text("#counts") == "10000 nodes · 30000 edges"
        wait_until(page, "() => window.__ryvem.sim().ticks > 3")
        # Freeze the picture for a deterministic click: hide every kind but one, then wait for
        # that smaller layout to settle, and click one of its nodes.
        for kind in KINDS[1:]:
            page.click(f"#legend button[data-kind='{kind}']")
        assert page.inner_text("#counts").startswith("1250 nodes · ")
        wait_until(page, "() => window.__ryvem.settled()", timeout=300)
        target = hook(page, "visibleIds")[600]
        pos = hook(page, "screenPos", target)
        page.mouse.click(pos["x"], pos["y"])
        next_frame(page)
        assert hook(page, "selected") == target
        assert page.is_visible("#panel")
        # The time slider at this size: halfway through, about half of the nodes were there.
        instants = hook(page, "timeline")["instants"]
        assert len(instants) == NODES + EDGES
        half = hook(page, "setInstant", instants[NODES // 2])
        assert 500 < half["nodes"] < 750 and half["edges"] == 0, half
        assert hook(page, "setInstant", "now")["nodes"] == 1250
        assert hook(page, "renderer") == "webgl" and hook(page, "sim")["worker"] is True
        assert errors == []
    finally:
        context.close()
