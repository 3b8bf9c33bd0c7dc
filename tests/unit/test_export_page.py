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
BODIES_RE = re.compile(r'<script type="application/json" id="ryvem-b\d+">(.*?)</script>', re.S)


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


def bodies(html: str) -> list[str]:
    """Every version's body HTML, from the page's body blocks, in version order."""
    out: list[str] = []
    for block in BODIES_RE.findall(html):
        out.extend(e if isinstance(e, str) else e[0] for e in json.loads(block))
    return out


def windows(cols: dict[str, list[int]], t0: int) -> list[tuple[int, int | None]]:
    """Decode a format-2 column pair: deltas of starts, and 0 / length + 1 for ends."""
    out: list[tuple[int, int | None]] = []
    t = t0
    for df, u in zip(cols["f"], cols["u"], strict=True):
        t += df
        out.append((t, None if u == 0 else t + u - 1))
    return out


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
    """Superseded and retired versions and every edge (supersedes too) are embedded, with
    their validity windows (format 2: columns, ids as indexes, strings interned)."""
    data = embedded(export_html(svc))
    nodes = data["nodes"]
    edges = data["edges"]
    strings = data["strings"]
    assert isinstance(nodes, dict) and isinstance(edges, dict) and isinstance(strings, list)
    versions = sorted((v for batch in svc.iter_graph() for v, _ in batch), key=lambda v: v.id)
    all_edges = sorted((e for batch in svc.iter_edges() for e in batch), key=lambda e: e.id)
    assert nodes["id"] == [v.id for v in versions]
    t0 = data["t0"]
    assert isinstance(t0, int)
    assert windows(nodes, t0) == [(v.valid_from, v.valid_to) for v in versions]
    assert windows(edges, t0) == [(e.valid_from, e.valid_to) for e in all_edges]
    rels = [strings[r] for r in edges["rel"]]
    assert rels == [e.rel for e in all_edges]
    assert set(rels) == {"supersedes", "links", "about"}
    ids = nodes["id"]
    ent = nodes["ent"]
    for e, a, b in zip(all_edges, edges["a"], edges["b"], strict=True):
        if e.rel == "supersedes":
            assert (ids[a], ids[b]) == (e.src, e.dst)
        else:  # an entity is the index of its first version
            assert (versions[a].entity, versions[b].entity) == (e.src, e.dst)
            assert ent[a] == a and ent[b] == b
    titles = nodes["t"]
    assert [titles[i] for i, sb in enumerate(nodes["sb"]) if sb >= 0] == ["Cache with Redis"]
    retired = [titles[i] for i, u in enumerate(nodes["u"]) if u and nodes["sb"][i] < 0]
    assert retired == ["Old"]


def test_a_scope_narrows_the_export_and_drops_edges_leaving_it(svc: Service) -> None:
    """`scope` keeps one scope's versions and the edges between them."""
    data = build_payload(svc, scope=BOARD)
    assert data["nodes"]["t"] == ["Idea"]
    assert data["edges"]["rel"] == []
    glob = build_payload(svc, scope="global")
    assert "Idea" not in glob["nodes"]["t"]
    assert len(glob["edges"]["rel"]) == 3


def test_embedded_json_cannot_close_its_script_element() -> None:
    """`<`, `>`, `&`, U+2028 and U+2029 are escaped; the JSON still parses back the same."""
    value = {"t": "</script><!-- <script> & \u2028\u2029 é"}
    text = json_for_script(value)
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in text
    assert json.loads(text) == value


def test_a_hostile_body_does_not_end_the_data_block(svc: Service) -> None:
    """The page has exactly its own script elements (data, body blocks, code) however the
    nodes are written."""
    html = export_html(svc)
    blocks = len(BODIES_RE.findall(html))
    assert blocks == 1
    assert html.lower().count("<script") == 2 + blocks
    assert html.lower().count("</script") == 2 + blocks
    nodes = embedded(html)["nodes"]
    assert isinstance(nodes, dict)
    idea = nodes["t"].index("Idea")
    assert bodies(html)[idea] == "<p>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"


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
    write_export(svc, out)
    out.chmod(0o644)
    svc.write("task", "Written after the first export", key="later")
    path = write_export(svc, out)
    assert path == out.resolve()
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "Written after the first export" in path.read_text(encoding="utf-8")
    assert sorted(p.name for p in out.parent.iterdir()) == ["graph.html"]
    assert path.stat().st_mode & 0o044 == 0o044


def test_an_empty_graph_exports_a_page_with_no_nodes(tmp_path: Path) -> None:
    """A brand-new store still gives a valid page."""
    repo = SqliteRepository.open(tmp_path / "empty.db")
    try:
        data = embedded(export_html(Service(repo)))
    finally:
        repo.close()
    nodes, edges = data["nodes"], data["edges"]
    assert isinstance(nodes, dict) and isinstance(edges, dict)
    assert nodes["id"] == [] and edges["rel"] == []


def test_past_bodies_are_left_out_unless_asked_for(svc: Service) -> None:
    """Every version's title and window is embedded; a past version's body only with
    ``with_history_bodies`` (``--with-history-bodies``)."""
    default, full = export_html(svc), export_html(svc, with_history_bodies=True)
    titles = embedded(default)["nodes"]["t"]  # type: ignore[index]
    old = titles.index("Cache with Redis")
    assert bodies(default)[old] == ""
    assert "latency" in bodies(full)[old]
    assert bodies(default)[titles.index("Cache in process")] == bodies(full)[
        titles.index("Cache in process")
    ]
    assert embedded(full)["historyBodies"] is True
    entries = [e for b in BODIES_RE.findall(default) for e in json.loads(b)]
    assert entries[titles.index("Cache in process")][1] == [["n", "1"]], "data rides with it"


def test_bodies_come_in_blocks_of_a_thousand(tmp_path: Path) -> None:
    """The page parses only the body blocks it needs: 2,500 versions make three blocks."""
    from ryvem.domain.model import NodeVersion

    repo = SqliteRepository.open(tmp_path / "many.db")
    try:
        repo.load(
            [
                (NodeVersion(id=f"{i:024x}", entity=f"{i:024x}", kind="page", scope="global",
                             title=f"P{i}", body=f"body {i}", valid_from=1_000 + i), ())
                for i in range(2500)
            ],
            [],
        )
        html = export_html(Service(repo))
    finally:
        repo.close()
    assert [len(json.loads(b)) for b in BODIES_RE.findall(html)] == [1000, 1000, 500]
    assert bodies(html)[2499] == "<p>body 2499</p>\n"


def test_the_csp_lets_the_layout_worker_start_from_a_blob_and_nothing_else(svc: Service) -> None:
    """`worker-src blob:` is the one addition; every other directive stays closed."""
    html = export_html(svc)
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp is not None
    directives = dict(d.strip().split(" ", 1) for d in csp.group(1).split(";"))
    assert directives["worker-src"] == "blob:"
    assert directives["default-src"] == "'none'"
    assert directives["img-src"] == "data:"
    assert directives["style-src"] == "'unsafe-inline'"
    assert directives["script-src"].startswith("'sha256-")
    assert "connect-src" not in directives


def test_the_body_blocks_come_after_the_pages_script(svc: Service) -> None:
    """The browser runs the page's script (and draws the first picture) before it has read
    the bodies, which make most of a big file: every body block follows the script."""
    html = export_html(svc)
    script = html.index("<script>")
    blocks = [m.start() for m in re.finditer(r'<script type="application/json" id="ryvem-b', html)]
    assert blocks and all(b > script for b in blocks)
    assert html.index('id="ryvem-data"') < script, "the graph itself comes before the script"
    assert html.rstrip().endswith("</html>")
