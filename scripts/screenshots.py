"""Screenshots of the export page for the docs, from a demo store (run by `make docs`).

Builds a small store in a temporary folder through the library (decisions that supersede,
tasks, links), exports it, opens the page in Debian's headless Chromium through Playwright
(``/usr/bin/chromium``, or ``RYVEM_TEST_CHROMIUM``; never a downloaded browser) and writes
docs/img/export-light.png (a node's panel open), export-dark.png (the dark palette) and
export-slider.png (the time slider moved back). Without Chromium or Playwright it says so and
keeps the pictures it has (exit 0), so `make docs` still builds on a machine without them.

Usage: python scripts/screenshots.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import ryvem
from ryvem.export import write_export

OUT = Path(__file__).resolve().parent.parent / "docs" / "img"
CHROMIUM = os.environ.get("RYVEM_TEST_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
        "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def demo_store(db: Path) -> tuple[Any, str]:
    """The demo graph; returns the session and the id of the node whose panel is shown."""
    session = ryvem.open_session(db=str(db))
    svc = session.service("board:shop-api")
    svc.write("decision", "Keep sessions in Redis", key="session-store",
              body="Sessions live in Redis so every web node sees them.", valid_from="2026-11-02")
    svc.write("business-rule", "Carts expire after 30 days", key="cart-ttl",
              body="A cart untouched for **30 days** is emptied.", valid_from="2026-11-03")
    svc.write("codebase-map", "Checkout flow", key="checkout",
              body="`api/checkout.py` → [[payments]] → [[cart-ttl]].", valid_from="2026-11-04")
    svc.write("codebase-map", "Payments", key="payments", body="Stripe, through [[checkout]].",
              valid_from="2026-11-05")
    current = svc.write("decision", "Keep sessions in signed cookies", key="session-store",
                        body="Redis was overkill for [[checkout]]: cookies, signed, 4 KB max.",
                        data={"status": "accepted", "owner": "ana"}, valid_from="2026-11-16")
    svc.write("task", "Move sessions to cookies", key="cookies",
              body="Implements [[session-store]]; see [[checkout]].", valid_from="2026-11-17")
    svc.write("task", "Drop the Redis cluster", key="drop-redis", body="After [[cookies]].",
              valid_from="2026-11-20")
    svc.link("task/cookies", "decision/session-store", rel="implements", valid_from="2026-11-17")
    svc.link("task/drop-redis", "task/cookies", rel="depends-on", valid_from="2026-11-20")
    svc.write("review", "Review of the cookie move", key="review-1",
              body="Looks right; [[cookies]] needs a size check.", valid_from="2026-11-23")
    return session, current.id


def main() -> int:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("screenshots: playwright is not installed; pictures kept as they are")
        return 0
    if not Path(CHROMIUM).exists():
        print(f"screenshots: no Chromium at {CHROMIUM}; pictures kept as they are")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        session, chosen = demo_store(Path(tmp) / "demo.db")
        try:
            page_file = write_export(session.service("board:shop-api"), Path(tmp) / "g.html")
        finally:
            session.close()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                for scheme in ("light", "dark"):
                    ctx = browser.new_context(viewport={"width": 1280, "height": 800},
                                              color_scheme=scheme)
                    page = ctx.new_page()
                    page.goto(page_file.as_uri())
                    settled = "() => !!(window.__ryvem && window.__ryvem.settled())"
                    page.wait_for_function(settled, timeout=60_000)
                    pos = page.evaluate("(id) => window.__ryvem.screenPos(id)", chosen)
                    if pos is not None:
                        page.mouse.click(pos["x"], pos["y"])
                        time.sleep(0.3)
                    page.screenshot(path=str(OUT / f"export-{scheme}.png"))
                    if scheme == "light":
                        page.keyboard.press("Escape")
                        page.locator("#t-range").focus()
                        for _ in range(4):
                            page.keyboard.press("ArrowLeft")
                        page.wait_for_function(settled, timeout=60_000)
                        time.sleep(0.3)
                        page.screenshot(path=str(OUT / "export-slider.png"))
                    ctx.close()
            finally:
                browser.close()
    print(f"screenshots: wrote {', '.join(sorted(p.name for p in OUT.glob('export-*.png')))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
