"""The export document: complete, deterministic, self-contained, and safe to embed data in."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.export import build_payload, export_html, json_for_script, write_export

BOARD = "board:ideas"
DATA_RE = re.compile(r'<script type="application/json" id="ryvem-data">(.*?)</script>', re.S)


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[Service]:
    """A small graph: a superseded decision, a page it links to, a board note, a retired rule."""
    repo = SqliteRepository.open(tmp_path / "a.db")
    s = Service(repo)
    s.write("decision", "Cache with Redis", key="cache", body="Because [[latency]].")
    s.write("decision", "Cache in process", key="cache", body="See [[latency]].", data={"n": 1})
    s.write("page", "Latency budget", key="latency", body="# p99")
    s.write("note", "Idea", key="idea", scope=BOARD, body="</script><script>alert(1)</script>")
    s.write("rule", "Old", key="old")
    s.retire("rule/old")
    s.link("decision/cache", "page/latency", "about")
    try:
        yield s
    finally:
        repo.close()


def embedded(html: str) -> dict[str, object]:
    m = DATA_RE.search(html)
    assert m is not None
    data: dict[str, object] = json.loads(m.group(1))
    return data


def test_two_exports_of_the_same_graph_are_byte_identical(svc: Service, tmp_path: Path) -> None:
    """No timestamp, no random: exporting twice gives the same bytes."""
    a = write_export(svc, tmp_path / "a.html").read_bytes()
    b = write_export(svc, tmp_path / "b.html").read_bytes()
    assert a == b


def test_a_verbatim_copy_of_the_graph_exports_to_the_same_bytes(
    svc: Service, tmp_path: Path
) -> None:
    """The page depends on the graph only, not on the store file or the insertion order."""
    copy = SqliteRepository.open(tmp_path / "copy.db")
    try:
        versions = [p for batch in svc.iter_graph() for p in batch]
        edges = [e for batch in svc.iter_edges() for e in batch]
        copy.load(reversed(versions), reversed(edges))
        assert export_html(Service(copy)) == export_html(svc)
    finally:
        copy.close()


def test_a_changed_graph_changes_the_file(svc: Service) -> None:
    """One more version makes a different document."""
    before = export_html(svc)
    svc.write("page", "Latency budget", key="latency", body="# p95 now")
    assert export_html(svc) != before


def test_every_version_and_every_edge_is_in_the_page(svc: Service) -> None:
    """Superseded and retired versions and every edge (supersedes too) are embedded."""
    data = embedded(export_html(svc))
    nodes = data["nodes"]
    edges = data["edges"]
    assert isinstance(nodes, list) and isinstance(edges, list)
    all_versions = sorted(v.id for batch in svc.iter_graph() for v, _ in batch)
    all_edges = sorted(e.id for batch in svc.iter_edges() for e in batch)
    assert [n["id"] for n in nodes] == all_versions
    assert [e["id"] for e in edges] == all_edges
    assert {e["rel"] for e in edges} == {"supersedes", "links", "about"}
    superseded = [n for n in nodes if "sb" in n]
    assert [n["t"] for n in superseded] == ["Cache with Redis"]
    assert [n["t"] for n in nodes if "u" in n and "sb" not in n] == ["Old"]


def test_a_scope_narrows_the_export_and_drops_edges_leaving_it(svc: Service) -> None:
    """`scope` keeps one scope's versions and the edges between them."""
    data = build_payload(svc, scope=BOARD)
    assert [n["t"] for n in data["nodes"]] == ["Idea"]
    assert data["edges"] == []
    glob = build_payload(svc, scope="global")
    assert "Idea" not in [n["t"] for n in glob["nodes"]]
    assert len(glob["edges"]) == 3


def test_embedded_json_cannot_close_its_script_element() -> None:
    """`<`, `>`, `&`, U+2028 and U+2029 are escaped; the JSON still parses back the same."""
    value = {"t": "</script><!-- <script> & \u2028\u2029 é"}
    text = json_for_script(value)
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in text
    assert json.loads(text) == value


def test_a_hostile_body_does_not_end_the_data_block(svc: Service) -> None:
    """The page has exactly its two script elements however the nodes are written."""
    html = export_html(svc)
    assert html.lower().count("<script") == 2
    assert html.lower().count("</script") == 2
    nodes = embedded(html)["nodes"]
    assert isinstance(nodes, list)
    idea = next(n for n in nodes if n["t"] == "Idea")
    assert idea["h"] == "<p>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"


def test_the_page_references_nothing_outside_itself(svc: Service) -> None:
    """No src=, no stylesheet link, no @import or url(): everything is inline."""
    html = export_html(svc)
    without_data = DATA_RE.sub("", html)
    assert not re.search(r"\ssrc\s*=", without_data)
    assert not re.search(r"@import|url\(", without_data)
    assert re.findall(r"<link[^>]*>", without_data) == ['<link rel="icon" href="data:,">']


def test_the_content_security_policy_allows_only_the_pages_own_script(svc: Service) -> None:
    """The CSP carries the hash of the inline script, and nothing may be fetched."""
    html = export_html(svc)
    script = html.rsplit("<script>", 1)[1].split("</script>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp is not None
    assert f"script-src 'sha256-{digest}'" in csp.group(1)
    assert "default-src 'none'" in csp.group(1)


def test_writing_replaces_the_file_atomically_and_leaves_no_temporary_file(
    svc: Service, tmp_path: Path
) -> None:
    """The target is replaced whole, readable by others, and nothing else is left behind."""
    out = tmp_path / "deep" / "er" / "graph.html"
    out.parent.mkdir(parents=True)
    out.write_text("old")
    path = write_export(svc, out)
    assert path == out.resolve()
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in out.parent.iterdir()) == ["graph.html"]
    assert path.stat().st_mode & 0o044 == 0o044


def test_an_empty_graph_exports_a_page_with_no_nodes(tmp_path: Path) -> None:
    """A brand-new store still gives a valid page."""
    repo = SqliteRepository.open(tmp_path / "empty.db")
    try:
        data = embedded(export_html(Service(repo)))
    finally:
        repo.close()
    assert data["nodes"] == [] and data["edges"] == []
