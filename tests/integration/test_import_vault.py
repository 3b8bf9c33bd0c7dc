"""Importing a markdown vault: the fixture vault end to end, idempotence, changes, bad files."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from ryvem.application.service import Service
from ryvem.application.vault import import_vault, parse_page
from ryvem.domain.traversal import discovered_refs
from ryvem.errors import InvalidInput, NotFound

VAULT = Path(__file__).resolve().parent.parent / "fixtures" / "vault"
PAGES = 15  # the .md files outside .obsidian


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file below root: its sha256 and mtime (ns)."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            out[str(path.relative_to(root))] = (
                hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns
            )
    return out


def out_refs(service: Service, ref: str) -> set[str]:
    return set(discovered_refs(service.get(ref).entity, service.traverse(ref)))


def in_refs(service: Service, ref: str) -> set[str]:
    steps = service.traverse(ref, direction="in")
    return set(discovered_refs(service.get(ref).entity, steps))


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A writable copy of the fixture vault."""
    copy = tmp_path / "vault"
    shutil.copytree(VAULT, copy)
    return copy


def test_the_fixture_vault_imports_every_page_once(service: Service) -> None:
    """Every .md file outside dot-folders becomes one page; the two odd front matters warn."""
    summary = import_vault(service, VAULT)
    assert (summary.files, summary.created, summary.pages) == (PAGES, PAGES, PAGES)
    assert (summary.superseded, summary.unchanged, summary.retired, summary.skipped) == (0, 0, 0, 0)
    assert sorted(p.path for p in summary.problems) == [
        "broken-front-matter.md", "list-front-matter.md",
    ]
    assert "invalid front matter" in summary.problems[0].message
    assert "not a mapping" in summary.problems[1].message
    assert service.stats().kinds == {"page": PAGES}
    with pytest.raises(NotFound):
        service.get(".obsidian/workspace")


def test_title_body_and_data_follow_the_documented_rules(service: Service) -> None:
    """Title from front matter, else the file name (headings are sections); data is JSON."""
    import_vault(service, VAULT)
    home = service.get("page/Home")
    assert home.title == "Home Page"
    assert home.body.startswith("# Welcome\n")
    assert home.data == {
        "title": "Home Page", "tags": ["start", "index"], "created": "2024-05-01",
        "reviewed": "2024-05-01T10:20:30+00:00",
    }
    assert service.get("Alpha").title == "Alpha"  # its "# Alpha Heading" is a section
    assert service.get("notes/deep/Gamma").title == "Gamma"
    assert service.get("Café").title == "Café"
    broken = service.get("broken-front-matter")
    assert broken.title == "broken-front-matter" and broken.data == {}
    assert broken.body == (VAULT / "broken-front-matter.md").read_text(encoding="utf-8")


def test_every_grammar_case_and_resolution_rule_holds_end_to_end(service: Service) -> None:
    """Home's links of every form resolve as the rule says; non-links and ghosts make none."""
    summary = import_vault(service, VAULT)
    assert out_refs(service, "Home") == {
        "Alpha",  # exact key beats archive/old/Alpha
        "notes/Beta",  # alias, md link and bare [[Beta]] (fewest segments)
        "notes/deep/Gamma",  # heading link and ./relative md link
        "Diagram",  # embed
        "Library",  # caret
        "Topic Notes",  # escaped pipe in a table
        "My Page",  # percent-encoded and <angled> md links
        "Café",  # NFD, upper case
        "projects/x/Topic",  # the key ending with the written path
    }
    assert service.unresolved("Home") == ["not yet written"]
    assert out_refs(service, "notes/Beta") == {"Alpha", "notes/deep/Gamma"}
    assert out_refs(service, "archive/old/Beta") == {"notes/Beta"}
    assert in_refs(service, "Alpha") == {
        "Home", "notes/Beta", "archive/old/Alpha", "broken-front-matter",
    }
    assert in_refs(service, "areas/y/Topic") == set()
    assert (summary.links_resolved, summary.links_unresolved) == (15, 1)
    assert summary.unresolved == [("Home", "not yet written")]


def test_import_leaves_the_vault_byte_identical(service: Service) -> None:
    """Importing reads the vault only: every file's bytes and mtime are unchanged, none added."""
    before = snapshot(VAULT)
    import_vault(service, VAULT)
    import_vault(service, VAULT, retire_missing=True)
    assert snapshot(VAULT) == before


def test_reimporting_an_unchanged_vault_writes_nothing(service: Service, vault: Path) -> None:
    """A second import of the same files reports every page unchanged and adds no version."""
    import_vault(service, vault)
    before = service.stats()
    again = import_vault(service, vault)
    assert (again.created, again.superseded, again.unchanged) == (0, 0, PAGES)
    assert service.stats() == before
    assert len(service.history("Home")) == 1


def test_a_changed_file_supersedes_and_its_links_follow(service: Service, vault: Path) -> None:
    """Editing a file supersedes its page and moves its links; the past keeps the old ones."""
    import_vault(service, vault)
    old = service.get("Alpha")
    (vault / "Alpha.md").write_text("# Alpha Heading\n\nNow about [[Diagram]].\n", "utf-8")
    summary = import_vault(service, vault)
    assert (summary.superseded, summary.unchanged) == (1, PAGES - 1)
    assert out_refs(service, "Alpha") == {"Diagram"}
    assert "Alpha" not in in_refs(service, "Home")
    past = service.traverse("Alpha", as_of=old.valid_from)
    assert [s.dst.ref for s in past] == ["Home"]


def test_a_new_file_resolves_links_written_before_it(service: Service, vault: Path) -> None:
    """A dangling link resolves once the page it names is imported."""
    import_vault(service, vault)
    (vault / "Not Yet Written.md").write_text("Here at last.\n", "utf-8")
    summary = import_vault(service, vault)
    assert (summary.created, summary.links_unresolved) == (1, 0)
    assert in_refs(service, "Not Yet Written") == {"Home"}
    assert service.unresolved("Home") == []


def test_a_removed_file_is_retired_only_when_asked(service: Service, vault: Path) -> None:
    """A deleted file keeps its page until --retire-missing retires it (and only it)."""
    import_vault(service, vault)
    service.write("page", "Agent note", key="agent-note", scope="board:other")
    (vault / "Diagram.md").unlink()
    kept = import_vault(service, vault)
    assert (kept.retired, kept.unchanged) == (0, PAGES - 1)
    assert service.get("Diagram").is_current
    retired = import_vault(service, vault, retire_missing=True)
    assert retired.retired == 1
    assert not service.get("page/Diagram").is_current
    assert service.get("agent-note", scope="board:other").is_current
    assert "Diagram" not in out_refs(service, "Home")


def test_retiring_the_missing_pages_of_a_folder_with_no_markdown_is_refused(
    service: Service, vault: Path, tmp_path: Path
) -> None:
    """An empty folder, or the wrong one (no *.md below it), with retire_missing would
    retire the whole scope: it is refused in one line and nothing changes. Without
    retire_missing it imports nothing, as before."""
    import_vault(service, vault)
    empty = tmp_path / "empty"
    (empty / "sub").mkdir(parents=True)
    (empty / "notes.txt").write_text("not markdown\n")
    with pytest.raises(InvalidInput, match=r"no markdown file below .*nothing was changed"):
        import_vault(service, empty, retire_missing=True)
    assert service.stats().current_rows == PAGES
    assert import_vault(service, empty).created == 0
    assert service.stats().current_rows == PAGES


def test_bad_files_are_reported_and_skipped_while_the_rest_imports(
    service: Service, vault: Path
) -> None:
    """Non-UTF-8, NUL-bearing and non-regular files, and a name that is not UTF-8, are
    skipped with a reason each."""
    (vault / "latin1.md").write_bytes("caf\xe9 [[Alpha]]\n".encode("latin-1"))
    (vault / "nul.md").write_bytes(b"a\x00b\n")
    os.mkfifo(vault / "pipe.md")
    (vault / os.fsdecode(b"bad\xffname.md")).write_text("# fine text\n")
    summary = import_vault(service, vault)
    assert summary.created == PAGES and summary.skipped == 4
    reasons = {p.path: p.message for p in summary.problems}
    assert "not valid UTF-8" in reasons["latin1.md"]
    assert reasons["bad\udcffname.md"] == (  # it said "title contains a lone surrogate"
        "its name is not valid UTF-8 (a page's key and title come from it); skipped")
    assert "NUL" in reasons["nul.md"]
    assert "not a regular file" in reasons["pipe.md"]
    with pytest.raises(NotFound):
        service.get("latin1")


def test_small_batches_build_the_same_graph(service: Service) -> None:
    """Links across batch boundaries resolve exactly as in one big batch."""
    summary = import_vault(service, VAULT, batch_size=2, scope="board:small")
    assert summary.created == PAGES
    assert (summary.links_resolved, summary.links_unresolved) == (15, 1)
    home = service.get("Home", scope="board:small")
    steps = service.traverse("Home", scope="board:small")
    assert len(set(discovered_refs(home.entity, steps))) == 9


@pytest.mark.parametrize(
    ("root", "error"), [("missing-dir", NotFound), ("Home.md", InvalidInput)]
)
def test_a_missing_or_non_directory_root_writes_nothing(
    service: Service, root: str, error: type[Exception]
) -> None:
    """Importing something that is not a folder fails before anything is written."""
    with pytest.raises(error):
        import_vault(service, VAULT / root)
    assert service.stats().current_rows == 0


@pytest.mark.parametrize(("kind", "scope"), [("Not A Kind", None), ("page", "nowhere")])
def test_a_bad_kind_or_scope_writes_nothing(
    service: Service, kind: str, scope: str | None
) -> None:
    """An invalid kind or scope is refused before any file is read or written."""
    with pytest.raises(InvalidInput):
        import_vault(service, VAULT, kind=kind, scope=scope)
    assert service.stats().current_rows == 0


@pytest.mark.parametrize(
    ("text", "title", "body", "data"),
    [
        ("\ufeff# Title\r\nline\r\n", "f", "# Title\nline\n", {}),
        ("---\ntitle: 42\n---\nx", "42", "x", {"title": 42}),
        ("---\n---\n# H\n", "f", "# H\n", {}),
        ("---\nwhen: 2024-01-02 03:04:05\nat: 12:30\n...\nx", "f", "x",
         {"when": "2024-01-02T03:04:05", "at": 750}),
        ("---\n2024-01-02: dated key\nnan: .nan\n---\n", "f", "", {"2024-01-02": "dated key",
                                                                    "nan": "nan"}),
        ("---\nno closing line\n", "f", "---\nno closing line\n", {}),
        ("```\n# not a heading\n```\n# Real\n", "f", "```\n# not a heading\n```\n# Real\n", {}),
    ],
)
def test_front_matter_and_titles_parse_as_documented(
    text: str, title: str, body: str, data: dict[str, object]
) -> None:
    """BOM and CRLF, numeric titles, empty and unclosed front matter, YAML dates and floats."""
    page = parse_page("f", text)
    assert (page.title, page.body, page.data) == (title, body, data)


@pytest.mark.parametrize(
    ("text", "by_name", "by_heading"),
    [
        ("# Context\nWe need x.\n", "0001 Use Lua", "Context"),
        ("---\ntitle: Given\n---\n# Context\n", "Given", "Given"),
        ("---\ntitle: '  '\n---\n# Context\n", "0001 Use Lua", "Context"),
        ("```\n# not a heading\n```\nno heading\n", "0001 Use Lua", "0001 Use Lua"),
        ("\ufeff# Title\r\nline\r\n", "0001 Use Lua", "Title"),
        ("## Second level only\n", "0001 Use Lua", "0001 Use Lua"),
    ],
)
def test_a_page_is_titled_by_its_file_name_unless_the_heading_rule_is_asked_for(
    text: str, by_name: str, by_heading: str
) -> None:
    """Front matter title first; then the file name (default) or the first # heading."""
    assert parse_page("ADR/0001 Use Lua", text).title == by_name
    assert parse_page("ADR/0001 Use Lua", text, "name").title == by_name
    assert parse_page("ADR/0001 Use Lua", text, "heading").title == by_heading


def test_a_title_over_the_limit_is_cut_with_a_warning_not_silently() -> None:
    """A 1,500-character front-matter title was stored as its first 1,000 characters
    without a word (`put` refuses such a title); the import now says so."""
    page = parse_page("f", "---\ntitle: " + "t" * 1500 + "\n---\nbody\n")
    assert page.title == "t" * 1000
    assert page.warning == "title is 1500 characters; kept its first 1000"
    bad = parse_page("f", "---\n[unclosed\n---\n# " + "h" * 1200 + "\n", "heading")
    assert bad.warning is not None and bad.warning.startswith("invalid front matter")
    assert bad.warning.endswith(
        "; kept as body text; title is 1200 characters; kept its first 1000")
    assert parse_page("f", "---\ntitle: short\n---\n").warning is None


@pytest.mark.parametrize("rule", ["Heading", "file", "", None, 1])
def test_an_unknown_title_rule_is_refused_before_anything_is_written(
    service: Service, rule: object
) -> None:
    with pytest.raises(InvalidInput, match="title_from must be one of name, heading"):
        import_vault(service, VAULT, title_from=rule)  # type: ignore[arg-type]
    assert service.stats().current_rows == 0


def test_the_summary_counts_links_as_the_store_holds_them(
    service: Service, tmp_path: Path
) -> None:
    """Resolved = links edges stored (two targets reaching one page are one edge, a link back
    to the page itself none); unresolved = the dangling targets ``unresolved`` lists."""
    files = {
        "hub.md": "---\nrelated: ['[[notes/beta]]', '[[ghost]]']\n---\n"
                  "[[beta]], [[notes/beta]], [b](notes/beta.md), [[gamma]], [[ghost#x]]\n",
        "notes/beta.md": "[[beta]] is me; [[hub]] and [[nowhere]]\n",
        "gamma.md": "[[hub@L1]]\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, "utf-8")
    summary = import_vault(service, tmp_path)
    dangling = {k: service.unresolved(k) for k in ("hub", "notes/beta", "gamma")}
    assert dangling == {"hub": ["ghost"], "notes/beta": ["nowhere"], "gamma": []}
    assert service.stats().rels == {"links": 4}  # hub→beta, hub→gamma, beta→hub, gamma→hub
    assert (summary.links_resolved, summary.links_unresolved) == (4, 2)
    assert summary.unresolved == [("hub", "ghost"), ("notes/beta", "nowhere")]
    again = import_vault(service, tmp_path)
    assert (again.unchanged, again.links_resolved, again.links_unresolved) == (3, 4, 2)


def test_a_wikilink_reaches_the_page_spelled_as_written_when_two_differ_only_in_case(
    service: Service, tmp_path: Path
) -> None:
    """With Note.md and note.md in one vault, [[note]] links to note and [[Note]] to Note,
    also when the exact page is imported after the other (the link moves over to it)."""
    root = tmp_path / "cased"
    root.mkdir()
    (root / "Note.md").write_text("Upper case.\n", "utf-8")
    (root / "lower.md").write_text("See [[note]].\n", "utf-8")
    (root / "upper.md").write_text("See [[Note]].\n", "utf-8")
    (root / "both.md").write_text("See [[note]] and [[Note]].\n", "utf-8")
    import_vault(service, root)
    assert out_refs(service, "lower") == {"Note"}  # no exact key yet: the folded match
    (root / "note.md").write_text("Lower case.\n", "utf-8")
    summary = import_vault(service, root)
    assert (summary.created, summary.links_unresolved) == (1, 0)
    assert out_refs(service, "lower") == {"note"}
    assert out_refs(service, "upper") == {"Note"}
    assert out_refs(service, "both") == {"note", "Note"}
