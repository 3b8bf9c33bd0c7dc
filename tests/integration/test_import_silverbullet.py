"""The real corpus: SilverBullet's documentation (277 pages, MIT) imported and checked by hand.

The corpus is vendored in ``tests/fixtures/corpora/silverbullet`` with its licence, so a fresh
clone alone runs these tests. Every link pinned below was verified by reading the markdown.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.application.vault import ImportSummary, import_vault
from ryvem.domain.traversal import discovered_refs

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpora" / "silverbullet"


def digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, ImportSummary]]:
    """The corpus imported once into a fresh SQLite store."""
    repo = SqliteRepository.open(tmp_path_factory.mktemp("sb") / "ryvem.db")
    service = Service(repo)
    try:
        yield service, import_vault(service, CORPUS)
    finally:
        repo.close()


def outs(service: Service, ref: str) -> set[str]:
    return set(discovered_refs(service.get(ref).entity, service.traverse(ref)))


def link_data(service: Service, src: str, dst: str) -> dict[str, object]:
    """The data of the current links edge from one page to another."""
    a, b = service.get(src).entity, service.get(dst).entity
    [edge] = [e for e in service.edges_of(src) if (e.rel, e.src, e.dst) == ("links", a, b)]
    return edge.data


def ins(service: Service, ref: str) -> set[str]:
    return set(discovered_refs(service.get(ref).entity, service.traverse(ref, direction="in")))


def test_the_corpus_imports_cleanly_one_page_per_markdown_file(
    imported: tuple[Service, ImportSummary],
) -> None:
    """Every .md file becomes a page, with no file skipped and no problem reported."""
    service, summary = imported
    markdown = [p for p in CORPUS.rglob("*.md") if not any(s.startswith(".") for s in p.parts)]
    assert len(markdown) == 277
    assert (summary.files, summary.created, summary.skipped) == (277, 277, 0)
    assert summary.problems == []
    assert service.stats().kinds == {"page": 277}


def test_importing_leaves_the_corpus_byte_identical(tmp_path: Path) -> None:
    """Two imports later, every file in the corpus hashes exactly as before."""
    before = digest(CORPUS)
    with SqliteRepository.open(tmp_path / "ryvem.db") as repo:
        service = Service(repo)
        import_vault(service, CORPUS)
        again = import_vault(service, CORPUS, retire_missing=True)
    assert (again.unchanged, again.created, again.retired) == (277, 0, 0)
    assert digest(CORPUS) == before


def test_architecture_links_to_its_fifteen_components_sync_and_http_api(
    imported: tuple[Service, ImportSummary],
) -> None:
    """Architecture.md: aliases, lists and a [[#self]] link; the mermaid fence links nowhere."""
    service, _ = imported
    components = {
        "Client", "Client Bundle Cache", "Datastore", "Editor", "Events", "File System API",
        "Plugs", "Runtime Manager", "Server", "Service Worker", "Services", "Space Files",
        "Space Lua", "Synced Files", "Syscalls",
    }
    assert outs(service, "Architecture") == {f"Architecture/{c}" for c in components} | {
        "Sync", "HTTP API",
    }


def test_link_page_links_only_outside_its_code_spans(
    imported: tuple[Service, ImportSummary],
) -> None:
    """Link.md: examples in backticks and self links make no edge; @positions link the page."""
    service, _ = imported
    assert outs(service, "Link") == {"Names", "Paths", "SilverBullet", "Meta Page", "CHANGELOG"}
    assert service.unresolved("Link") == []
    page = service.get("Link")
    assert page.title == "Link"  # its file name; "# Internal links" is its first section
    assert page.data["tags"] == "glossary"
    assert not page.body.startswith("---")


def test_position_suffixes_link_the_page_and_keep_the_position_as_the_anchor(
    imported: tuple[Service, ImportSummary],
) -> None:
    """[[CHANGELOG@L12c42]] (Link.md) and [[Outline Stress Test@1458]] (API/index.md) resolve."""
    service, _ = imported
    assert link_data(service, "Link", "CHANGELOG") == {
        "target": "changelog", "anchor": "@L12c42",
    }
    assert link_data(service, "API/index", "Outline Stress Test") == {
        "target": "outline stress test", "anchor": "@1458",
    }
    assert link_data(service, "API/index", "Attribute") == {
        "target": "attribute", "anchor": "@1612",
    }


def test_zef_hemel_is_linked_from_the_front_matter_of_every_adr(
    imported: tuple[Service, ImportSummary],
) -> None:
    """deciders/owner: "[[Zef Hemel]]" in ADR/001…010 and the ADR template; Funding's body.

    CONFIG.md names [[Zef Hemel]] only inside a space-lua fence, so it does not link.
    """
    service, _ = imported
    adrs = {p.stem for p in (CORPUS / "ADR").glob("*.md")}
    assert len(adrs) == 10
    assert ins(service, "Zef Hemel") == {f"ADR/{a}" for a in adrs} | {
        "Funding", "Library/Page Templates/ADR",
    }
    assert link_data(service, "ADR/002 Sync Engine", "Zef Hemel") == {
        "target": "zef hemel", "field": "deciders",
    }
    assert link_data(service, "Funding", "Zef Hemel") == {"target": "zef hemel"}


def test_adr_002_links_its_front_matter_relations_and_keeps_them_as_data(
    imported: tuple[Service, ImportSummary],
) -> None:
    """ADR/002's dependsOn and related lists become edges; the front matter stays its data."""
    service, _ = imported
    page = service.get("ADR/002 Sync Engine")
    assert page.data["deciders"] == "[[Zef Hemel]]"
    assert page.data["related"] == ["[[ADR/010 Rust Backend]]"]
    assert {"Zef Hemel", "ADR/001 Offline-First PWA", "ADR/010 Rust Backend", "Sync"} <= outs(
        service, "ADR/002 Sync Engine"
    )
    assert link_data(service, "ADR/002 Sync Engine", "ADR/010 Rust Backend") == {
        "target": "adr/010 rust backend", "field": "related",
    }
    # also linked from the body, but the front matter comes first in the file
    assert link_data(service, "ADR/002 Sync Engine", "ADR/001 Offline-First PWA") == {
        "target": "adr/001 offline-first pwa", "field": "dependsOn",
    }


def test_the_summary_counts_the_links_edges_and_dangling_targets_the_store_holds(
    imported: tuple[Service, ImportSummary],
) -> None:
    """998 edges (962 from bodies before front matter and positions counted), 60 dangling."""
    service, summary = imported
    assert (summary.links_resolved, summary.links_unresolved) == (998, 60)
    assert service.stats().rels["links"] == 998
    pages = [v.key for batch in service.iter_graph() for v, _ in batch if v.key is not None]
    assert sum(len(service.unresolved(k)) for k in pages) == 60


def test_frontmatter_has_twenty_backlinks(imported: tuple[Service, ImportSummary]) -> None:
    """Every page writing [[Frontmatter]] or [[Frontmatter#…]] links to it, and no other."""
    service, _ = imported
    assert ins(service, "Frontmatter") == {
        "API/js", "Attribute", "Best Practices", "CHANGELOG", "Completion",
        "Guide/Task Management", "Knowledge Base", "Library/Development", "Manual",
        "Markdown/Anchor", "Markdown/Extensions", "Metadata", "Migrate from v1", "Object/page",
        "Page Decorations", "Schema", "Share", "SilverBullet", "Slash Templates", "YAML",
    }


def test_page_picker_has_seventeen_backlinks(imported: tuple[Service, ImportSummary]) -> None:
    """Page Picker's backlinks, its own self-link excluded."""
    service, _ = imported
    assert ins(service, "Page Picker") == {
        "Anything Picker", "Aspiring Pages", "CHANGELOG", "Command Palette", "Full Text Search",
        "Knowledge Base", "Manual", "Markdown/Anchor", "Meta Page", "Meta Picker", "Object",
        "Object Index", "Object/anchor", "Page", "Page Decorations", "SilverBullet", "Top Bar",
    }


def test_a_two_hop_walk_crosses_architecture_client(
    imported: tuple[Service, ImportSummary],
) -> None:
    """Architecture/Client.md links to Server, Service Worker and HTTP API: hop 2 shows them."""
    service, _ = imported
    steps = service.traverse("Architecture", depth=2)
    assert {s.dst.ref for s in steps if s.hop == 2 and s.src.ref == "Architecture/Client"} == {
        "Architecture/Server", "Architecture/Service Worker", "HTTP API",
    }
    assert {s.src.ref for s in steps if s.hop == 2} <= {s.dst.ref for s in steps if s.hop == 1}
    assert all(s.direction == "out" and s.rel == "links" for s in steps)
