"""The page's time replay answers as the CLI does, for a vault imported with ``--git-history``.

Everything runs through the faces a person uses: the vault is a real git repository (renames,
a delete and a re-add, commits in several zones and across a DST change), imported and
exported by the ``ryvem`` CLI in a subprocess; the page is opened in Chromium and moved to
each instant of its timeline, and what it draws — the versions and the edges between them —
is compared with ``ryvem graph search "" --as-of T`` and ``ryvem graph links ID --as-of T``
for the same instant (and, for a page exported ``--known-at K``, with the same reads at K).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from gitrepo import GIT, Repo
from support.cli import Cli

from .pagehelp import hook

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(GIT is None, reason="git is not installed"),
]

SCOPE = "board:notes"
AS_OF = "2025-05-15T00:00:00+14:00"  # 2025-05-14T10:00:00Z


@dataclass
class Vault:
    cli: Cli
    now_page: Path
    known_page: Path
    known_at: str
    as_of_page: Path


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Vault]:
    root = tmp_path_factory.mktemp("replay")
    repo = Repo(root / "notes")
    repo.write("home.md", "# Home\n\nSee [[plan]] and [[ideas]].\n")
    repo.write("plan.md", "# Plan\n\nThe plan v1.\n")
    repo.write("ideas.md", "# Ideas\n\nIdeas v1.\n")
    repo.commit("add home, plan, ideas", "2025-01-10T09:00:00+01:00")
    repo.write("plan.md", "# Plan\n\nThe plan v2, see [[old-name]].\n")
    repo.write("old-name.md", "# Naming\n\nA page about naming, long enough to follow a rename.\n")
    repo.commit("plan v2, add old-name", "2025-02-01T23:30:00-08:00")
    repo.git("mv", "old-name.md", "mid-name.md")
    repo.commit("rename old-name to mid-name", "2025-03-30T02:30:00+01:00")
    (root / "notes" / "final").mkdir()
    repo.git("mv", "mid-name.md", "final/new-name.md")
    repo.write("home.md", "# Home\n\nSee [[plan]], [[ideas]] and [[final/new-name]].\n")
    repo.commit("rename mid-name to final/new-name", "2025-04-10T10:00:00+00:00")
    repo.git("rm", "-q", "ideas.md")
    repo.commit("delete ideas", "2025-06-01T12:00:00+05:30")
    repo.write("ideas.md", "# Ideas again\n\nReborn, see [[plan]].\n")
    repo.commit("re-add ideas, before the fall-back", "2025-10-26T02:30:00+02:00")
    repo.write("ideas.md", "# Ideas again\n\nReborn v2, see [[plan]] and [[home]].\n")
    repo.commit("edit ideas, after the fall-back", "2025-10-26T02:15:00+01:00")
    cli = Cli(root, root / "data")
    cli.ok("import", str(repo.root), "--git-history", "--scope", SCOPE, "--no-embed")
    known_at = _iso(datetime.now(UTC) + timedelta(milliseconds=5))
    while _iso(datetime.now(UTC)) <= known_at:
        pass
    # Learned after K: plan was dropped in September; a note held since March.
    cli.ok("retire", "page/plan", "--scope", SCOPE, "--valid-to", "2025-09-01T00:00:00Z")
    cli.ok("put", "note", "--key", "late", "--title", "Late note", "--scope", SCOPE,
           "--body", "About [[home]].", "--valid-from", "2025-03-01T00:00:00+01:00")
    now_page, known_page = root / "now.html", root / "known.html"
    as_of_page = root / "as-of.html"
    cli.ok("export", "--out", str(now_page), "--scope", SCOPE)
    cli.ok("export", "--out", str(known_page), "--scope", SCOPE, "--known-at", known_at)
    cli.ok("export", "--out", str(as_of_page), "--scope", SCOPE, "--as-of", AS_OF)
    yield Vault(cli, now_page, known_page, known_at, as_of_page)


def _keys(page: Path) -> dict[str, str]:
    """Version id → KIND/KEY, read from the page's own data."""
    m = re.search(r'<script type="application/json" id="ryvem-data">(.*?)</script>',
                  page.read_text(encoding="utf-8"), re.S)
    assert m is not None
    data = json.loads(m.group(1))
    nodes = data["nodes"]
    return {
        i: f"{data['strings'][k]}/{key}"
        for i, k, key in zip(nodes["id"], nodes["k"], nodes["key"], strict=True)
    }


def _cli_graph(cli: Cli, at: str, known_at: str | None, keys: dict[str, str]) -> tuple[
    set[str], set[tuple[str, str, str]]
]:
    """The versions valid at ``at`` and the edges between them, as the CLI answers."""
    clock = [] if known_at is None else ["--known-at", known_at]
    when = [] if at == "now" else ["--as-of", at]
    ids = {h["id"] for h in cli.json("search", "", "--scope", SCOPE, "--limit", "1000",
                                     *when, *clock)}
    by_key = {keys[i].split("/", 1)[1]: keys[i] for i in ids}
    edges = set()
    for i in sorted(ids):
        for e in cli.json("links", i, "--direction", "out", *when, *clock):
            edges.add((keys[i], by_key[e["to"]], e["rel"]))
    return ids, edges


def _page_graph(page: Any, at: str, keys: dict[str, str]) -> tuple[
    set[str], set[tuple[str, str, str]], int
]:
    counts = hook(page, "setInstant", at)
    ids = set(hook(page, "visibleIds"))
    drawn = hook(page, "edges")
    edges = {(keys[e["from"]], keys[e["to"]], e["rel"]) for e in drawn}
    assert len(drawn) == counts["edges"]
    return ids, edges, len(drawn)


def _instants(page: Any, every: int) -> list[str]:
    tl = hook(page, "timeline")["instants"]
    return [*tl[::every], "now"]


def test_at_each_instant_the_replay_draws_the_versions_and_edges_the_cli_answers(
    vault: Vault, open_page: Any
) -> None:
    """Page and CLI agree on every node and every edge, each edge drawn once."""
    keys = _keys(vault.now_page)
    w = open_page(vault.now_page.as_uri())
    instants = _instants(w.page, 1)
    assert len(instants) >= 8
    for at in instants:
        want_ids, want_edges = _cli_graph(vault.cli, at, None, keys)
        ids, edges, drawn = _page_graph(w.page, at, keys)
        assert ids == want_ids, at
        assert edges == want_edges, at
        assert drawn == len(want_edges), f"{at}: an edge drawn more than once"
    assert w.console_errors == []


def test_a_page_exported_known_at_k_replays_what_the_cli_answered_known_at_k(
    vault: Vault, open_page: Any
) -> None:
    """The late retire and the backdated note are not in the page made --known-at K, at any
    instant; both are in today's page."""
    keys = _keys(vault.known_page)
    w = open_page(vault.known_page.as_uri())
    for at in _instants(w.page, 2):
        want_ids, want_edges = _cli_graph(vault.cli, at, vault.known_at, keys)
        ids, edges, drawn = _page_graph(w.page, at, keys)
        assert (ids, edges, drawn) == (want_ids, want_edges, len(want_edges)), at
    assert "note/late" not in keys.values()
    now_keys = _keys(vault.now_page)
    assert "note/late" in now_keys.values()
    now = open_page(vault.now_page.as_uri())
    ids, _, _ = _page_graph(now.page, "2025-10-01T00:00:00.000000Z", now_keys)
    assert "page/plan" not in {now_keys[i] for i in ids}, "retired in September, as known now"
    ids, _, _ = _page_graph(w.page, "2025-10-01T00:00:00.000000Z", keys)
    assert "page/plan" in {keys[i] for i in ids}, "still current as known at K"


def test_with_history_on_every_supersedes_edge_is_drawn_once(
    vault: Vault, open_page: Any
) -> None:
    """History at now draws each embedded edge once: every version is there, so every edge
    (links, open or closed, and supersedes) has both ends drawn."""
    w = open_page(vault.now_page.as_uri())
    w.page.check("#history")
    drawn = hook(w.page, "edges")
    pairs = [(e["from"], e["to"], e["rel"]) for e in drawn]
    assert len(pairs) == hook(w.page, "totals")["edges"]
    sup = [p for p in pairs if p[2] == "supersedes"]
    assert len(set(sup)) == len(sup) > 0
    assert w.console_errors == []


def test_a_page_exported_as_of_t_opens_on_what_was_true_at_t_and_holds_nothing_after_it(
    vault: Vault, open_page: Any
) -> None:
    """`export --as-of T` is the graph as it stood at T: its "now" draws what
    `search --as-of T` and `links --as-of T` answer (it drew 1 of 5 pages: only the windows
    still open today), and no change after T (a supersede, a delete) is in it."""
    keys = _keys(vault.as_of_page)
    w = open_page(vault.as_of_page.as_uri())
    assert hook(w.page, "instant") is None
    want_ids, want_edges = _cli_graph(vault.cli, "2025-05-14T10:00:00.000000Z", None, keys)
    ids, edges, drawn = _page_graph(w.page, "now", keys)
    assert (ids, edges, drawn) == (want_ids, want_edges, len(want_edges))
    assert len(ids) == 5
    assert hook(w.page, "timeline")["last"] <= "2025-05-14T10:00:00.000000Z"
    html = vault.as_of_page.read_text(encoding="utf-8")
    assert "deleted in commit" not in html, "ideas was deleted in June, after T"
