"""Helpers for driving the exported page through its read-only test hook ``window.__ryvem``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "browser"


def wait_until(page: Any, js: str, timeout: float = 60.0) -> Any:
    """Poll a JS function until it returns something truthy; return it."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(js)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {js}")
        time.sleep(0.02)


def hook(page: Any, expr: str, *args: Any) -> Any:
    """Call ``window.__ryvem.<expr>`` with arguments."""
    return page.evaluate(f"(args) => window.__ryvem.{expr}(...args)", list(args))


def click_node(page: Any, version_id: str) -> None:
    """Click a node where the canvas draws it, once the layout has come to rest.

    A toggle just before (History, a kind filter) reheats the layout; reading a node's place
    while it still moves and clicking there a moment later could miss it (a CI run did). The
    click is then checked to have selected that node, so a miss fails here and says so.
    """
    wait_until(page, "() => window.__ryvem.settled()")
    pos = hook(page, "screenPos", version_id)
    assert pos is not None, f"{version_id} is not drawn"
    page.mouse.click(pos["x"], pos["y"])
    picked = page.evaluate("() => window.__ryvem.selected()")
    assert picked == version_id, f"clicked {version_id} at {pos}, selected {picked}"


def next_frame(page: Any) -> None:
    """Wait until the page has drawn two more animation frames."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def screenshot(page: Any, name: str) -> Path:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def spread(page: Any) -> float:
    """Mean distance of the drawn nodes from their centroid, in layout units."""
    pos = list(hook(page, "positions").values())
    cx = sum(p[0] for p in pos) / len(pos)
    cy = sum(p[1] for p in pos) / len(pos)
    return float(sum(((p[0] - cx) ** 2 + (p[1] - cy) ** 2) ** 0.5 for p in pos) / len(pos))
