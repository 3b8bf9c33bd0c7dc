"""A real headless Chromium (Debian's ``chromium``) driven by Playwright, and a sample graph.

The browser is launched once per session from ``/usr/bin/chromium`` (never a downloaded
build). When it is missing the browser tests are skipped with a reason, except under
``CI=true`` where they fail. Pages are loaded from disk (``file://``) under the page's own
Content-Security-Policy, so Playwright's string-evaluating helpers (``wait_for_function``)
are not used: :func:`wait_until` polls ``page.evaluate`` instead. Screenshots go to
``test-output/browser/`` (git-ignored).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conftest import unavailable
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.export import write_export

from .pagehelp import wait_until

CHROMIUM = os.environ.get("RYVEM_TEST_CHROMIUM", "/usr/bin/chromium")
# WebGL through SwiftShader in the GPU process (software, like a machine without a GPU): with
# --disable-gpu the compositor reads the WebGL canvas back every frame and Chromium logs a
# "GPU stall due to ReadPixels" driver warning the page did not cause.
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# Untrusted text that would run script if it ever reached the page as markup.
XSS_TITLE = "</script><script>window.__pwned='title'</script><!-- \u2028\u2029 & <b>"
XSS_BODY = """Danger zone.

<script>window.__pwned = 'script'; alert('script')</script>

<img src=x onerror="window.__pwned = 'img'; alert('img')">

[click me](javascript:window.__pwned='link';alert('link'))
[data](data:text/html,<script>alert(1)</script>) [vb](vbscript:msgbox(1))

<a href="javascript:alert(1)">raw anchor</a> ![pic](https://example.invalid/pic.png)
"""


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session."""
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        reason = (
            f"no Chromium at {CHROMIUM}: apt-get install chromium "
            "(scripts/run-tests installs it when run as root)"
        )
        unavailable(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            yield b
        finally:
            b.close()


@dataclass
class Sample:
    """The sample graph's ids and the exported page."""

    path: Path
    ids: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return self.path.as_uri()


def build_sample(svc: Service) -> dict[str, str]:
    """A small graph with every shape the page shows; returns named version ids.

    Current: decision/cache (2 versions), page/latency, task/metrics, rule/xss, note/idea
    (board:ideas) — 5 nodes. Retired: rule/old. Current edges: cache→latency (links),
    metrics→latency, metrics→cache (links), metrics→cache (depends-on), xss→latency (about)
    — 5 edges. History adds cache v1, rule/old and the supersedes edge cache v2→v1.
    """
    ids: dict[str, str] = {}
    ids["cache_v1"] = svc.write(
        "decision", "Cache with Redis", key="cache", body="Because [[latency]] matters."
    ).id
    ids["cache"] = svc.write(
        "decision",
        "Cache in process",
        key="cache",
        body="Redis was **overkill**. Read [[latency]] first.",
        data={"status": "accepted", "owner": "ana"},
    ).id
    ids["latency"] = svc.write(
        "page",
        "Latency budget",
        key="latency",
        body="# Latency\n\n* p99 under 50 ms\n* measured at the edge\n\nSee `bench/`.",
    ).id
    ids["metrics"] = svc.write(
        "task", "Add metrics", key="metrics", body="Needs [[latency]] and [[cache]]."
    ).id
    svc.link("task/metrics", "decision/cache", "depends-on")
    ids["xss"] = svc.write("rule", XSS_TITLE, key="xss", body=XSS_BODY).id
    svc.link("rule/xss", "page/latency", "about")
    ids["idea"] = svc.write(
        "note", "An idea on the board", key="idea", scope="board:ideas", body="Just an idea."
    ).id
    ids["old"] = svc.write("rule", "Old rule", key="old", body="No longer applies.").id
    svc.retire("rule/old", reason="replaced by the budget")
    return ids


@pytest.fixture(scope="session")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sample]:
    """The sample graph exported once for the session."""
    root = tmp_path_factory.mktemp("export")
    repo = SqliteRepository.open(root / "ryvem.db")
    try:
        svc = Service(repo)
        ids = build_sample(svc)
        path = write_export(svc, root / "graph.html")
    finally:
        repo.close()
    yield Sample(path, ids)


@dataclass
class Watched:
    """A page with everything it did recorded."""

    page: Any
    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


def _watch(context: Any) -> Watched:
    page = context.new_page()
    w = Watched(page)
    # The layout worker's script is a blob: URL made in the page (memory, not the network).
    page.on("request", lambda r: None if r.url.startswith("blob:") else w.requests.append(r.url))
    page.on(
        "console",
        lambda m: w.console_errors.append(m.text) if m.type in ("error", "warning") else None,
    )
    page.on("pageerror", lambda e: w.console_errors.append(f"uncaught: {e}"))

    def on_dialog(d: Any) -> None:
        w.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", on_dialog)
    return w


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    """``open_page(url, color_scheme="light")`` → a settled, recorded page."""
    contexts: list[Any] = []

    def opener(url: str, color_scheme: str = "light") -> Watched:
        context = browser.new_context(
            viewport={"width": 1280, "height": 800}, color_scheme=color_scheme
        )
        contexts.append(context)
        w = _watch(context)
        w.page.goto(url)
        wait_until(w.page, "() => !!(window.__ryvem && window.__ryvem.settled())")
        return w

    yield opener
    for c in contexts:
        c.close()
