"""``ryvem graph links`` and ``ryvem graph import``, run as the real console script."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from support.cli import Cli, assert_fails

VAULT = Path(__file__).resolve().parent.parent / "fixtures" / "vault"
HOME_LINKS = {
    "Alpha", "notes/Beta", "notes/deep/Gamma", "Diagram", "Library", "Topic Notes", "My Page",
    "Café", "projects/x/Topic",
}
ALPHA_BACKLINKS = {"Home", "notes/Beta", "archive/old/Alpha", "broken-front-matter"}
STEP_KEYS = {"type", "hemisphere", "from", "to", "rel", "direction", "hop", "from_id", "to_id"}


def pages(*keys: str) -> set[str]:
    """How the walk prints these pages: KIND/KEY, a ref that names exactly one node."""
    return {f"page/{k}" for k in keys}


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> Cli:
    """A CLI whose store holds the fixture vault, imported once."""
    root = tmp_path_factory.mktemp("links-cli")
    c = Cli(root, root / "data")
    c.ok("import", str(VAULT))
    return c


def test_import_prints_a_summary_and_warns_about_odd_files(tmp_path: Path) -> None:
    """The summary counts pages and links; bad front matter warns on stderr; no progress bar."""
    c = Cli(tmp_path, tmp_path / "data", semantic=True)
    first = c.ok("import", str(VAULT))
    assert first.lines == [
        f"imported 15 pages from {VAULT} into global: 15 created, 0 superseded, "
        "0 unchanged, 0 retired",
        "links: 15 resolved, 1 unresolved",
        "unresolved:",
        "  Home -> not yet written",
        "vectors: 15 rows embedded, 0 pending",  # the local model embeds the new rows
    ]
    assert sorted(first.err.splitlines()) == [
        "warning: broken-front-matter.md: invalid front matter at line 3 (did not find "
        "expected ',' or ']'); kept as body text",
        "warning: list-front-matter.md: front matter is a YAML list, not a mapping; kept as "
        "body text",
    ]
    again = c.ok("import", str(VAULT), "--json").json()
    assert (again["created"], again["unchanged"], again["pages"]) == (0, 15, 15)
    assert again["links"] == {"resolved": 15, "unresolved": 1}


def test_import_refuses_a_missing_folder_or_bad_kind_and_writes_nothing(tmp_path: Path) -> None:
    """A missing DIR or an invalid --kind is one error line, exit 2, and an empty store."""
    c = Cli(tmp_path, tmp_path / "data")
    assert_fails(c("import", str(tmp_path / "nowhere")), 2, "no such directory")
    assert_fails(c("import", str(VAULT / "Home.md")), 2, "not a directory")
    assert_fails(c("import", str(VAULT), "--kind", "Bad Kind"), 2, "invalid kind")
    assert_fails(c("import", str(VAULT), "--scope", "nope"), 2, "invalid scope")
    assert c.ok("stats", "--json").json()["current_rows"] == 0


def test_import_of_an_empty_dir_argument_is_refused_rather_than_importing_the_working_directory(
    tmp_path: Path,
) -> None:
    """`import ""` (an unset shell variable, `import "$VAULT"`) must not become `import .`."""
    (tmp_path / "private.md").write_text("# Not a vault page\n", encoding="utf-8")
    c = Cli(tmp_path, tmp_path / "data")
    for args in ([""], ["", "--git-history"], ["", "--watch"]):
        assert_fails(c("import", *args), 2, "DIR must not be empty")
    assert c.ok("stats", "--json").json()["current_rows"] == 0


def test_links_prints_what_a_page_links_to_once_each(cli: Cli) -> None:
    """The default walk prints each linked page's KIND/KEY once, one per line."""
    lines = cli.ok("links", "Home").lines
    assert set(lines) == pages(*HOME_LINKS) and len(lines) == len(HOME_LINKS)


def test_backlinks_print_who_links_here(cli: Cli) -> None:
    """--backlinks lists the pages linking to the node."""
    assert set(cli.ok("links", "Alpha", "--backlinks").lines) == pages(*ALPHA_BACKLINKS)
    assert set(cli.ok("links", "Alpha", "--direction", "in").lines) == pages(*ALPHA_BACKLINKS)


def test_both_lists_out_neighbours_before_in_neighbours(cli: Cli) -> None:
    """For both, the page Alpha links to comes first, then those linking to it, de-duplicated."""
    lines = cli.ok("links", "Alpha", "--direction", "both").lines
    assert lines[0] == "page/Home"
    assert set(lines[1:]) == pages(*ALPHA_BACKLINKS - {"Home"}) and len(lines) == 4


def test_json_gives_edge_records_with_exactly_the_documented_keys(cli: Cli) -> None:
    """--json prints edge records: type, hemisphere, from, to, rel, direction, hop, ids."""
    records = cli.ok("links", "Alpha", "--direction", "both", "--json").json()
    assert all(set(r) == STEP_KEYS for r in records)
    first = {k: v for k, v in records[0].items() if k not in ("from_id", "to_id")}
    assert first == {
        "type": "edge", "hemisphere": "knowledge", "from": "Alpha", "to": "Home",
        "rel": "links", "direction": "out", "hop": 1,
    }
    assert cli.json("get", records[0]["to_id"])["key"] == "Home"
    assert {r["from"] for r in records if r["direction"] == "in"} == ALPHA_BACKLINKS
    assert {r["to"] for r in records[1:]} == {"Alpha"}


def test_depth_walks_further_and_is_clamped(cli: Cli) -> None:
    """--depth 2 reaches pages two hops away; 0 and -3 act as 1, 11 as 10."""
    one = cli.ok("links", "notes/Beta").lines
    assert set(one) == pages("Alpha", "notes/deep/Gamma")
    two = cli.ok("links", "notes/Beta", "--depth", "2", "--json").json()
    assert {(r["from"], r["to"], r["hop"]) for r in two if r["hop"] == 2} == {("Alpha", "Home", 2)}
    assert cli.ok("links", "notes/Beta", "--depth", "0").lines == one
    assert cli.ok("links", "notes/Beta", "--depth", "-3").lines == one
    deepest = cli.ok("links", "notes/Beta", "--depth", "10").out
    assert cli.ok("links", "notes/Beta", "--depth", "11").out == deepest


def test_rel_narrows_and_unresolved_lists_dangling_targets(cli: Cli) -> None:
    """--rel keeps only that edge type; --unresolved prints the targets that name no page."""
    assert cli.ok("links", "Home", "--rel", "depends-on").out == ""
    assert set(cli.ok("links", "Home", "--rel", "links").lines) == pages(*HOME_LINKS)
    assert cli.ok("links", "Home", "--unresolved").lines == ["not yet written"]
    assert cli.ok("links", "Alpha", "--unresolved").out == ""


def test_as_of_walks_the_links_valid_then(tmp_path: Path) -> None:
    """After a file changes, --as-of a time before the re-import shows the old links."""
    vault = tmp_path / "vault"
    shutil.copytree(VAULT, vault)
    c = Cli(tmp_path, tmp_path / "data")
    c.ok("import", str(vault))
    before = c.ok("get", "Alpha", "--json").json()["valid_from"]
    (vault / "Alpha.md").write_text("# Alpha Heading\n\n[[Diagram]] now.\n", "utf-8")
    c.ok("import", str(vault))
    assert c.ok("links", "Alpha").lines == ["page/Diagram"]
    assert c.ok("links", "Alpha", "--as-of", before).lines == ["page/Home"]


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (["Alpha", "--backlinks", "--direction", "in"], 2, "--backlinks means --direction in"),
        (["Alpha", "--direction", "sideways"], 2, "unknown direction"),
        (["Alpha", "--depth", "2.5"], 2, "depth must be an integer"),
        (["Alpha", "--depth", "deep"], 2, "depth must be an integer"),
        (["Nowhere"], 1, "no node 'Nowhere'"),
        (["Alpha", "--rel", "Not A Rel"], 2, "invalid rel"),
        (["Alpha", "--rel", "supersedes"], 2, "supersedes"),
        (["Alpha", "--as-of", "yesterday-ish"], 2, ""),
        # --unresolved answered for now, exit 0, whatever walk or clock it was given
        (["Home", "--unresolved", "--known-at", "2020-01-01"], 2, "it takes no --known-at"),
        (["Home", "--unresolved", "--as-of", "2020-01-01", "--depth", "2"], 2,
         "it takes no --as-of, --depth"),
        (["Home", "--unresolved", "--backlinks", "--rel", "links"], 2,
         "it takes no --backlinks, --rel"),
    ],
)
def test_bad_requests_fail_with_one_line_and_the_right_exit_code(
    cli: Cli, args: list[str], code: int, fragment: str
) -> None:
    """Ambiguous or malformed walks exit 2, a missing node exits 1; never a traceback."""
    assert_fails(cli("links", *args), code, fragment)


AMBIGUOUS = {
    # two pages named x (and one deeper), linked from everywhere with bare [[x]]
    "a/x.md": "A's x.\n",
    "b/x.md": "B's x.\n",
    "b/deeper/x.md": "Deeper x.\n",
    "c.md": "Root page: [[x]] then [[y]] and [[z]].\n",
    "a/page.md": "---\nrelated: ['[[y]]', '[[x]]']\n---\nIn a: [[x]], [[z]].\n",
    "b/page.md": "In b: [[z]], [[y]], [[x#Intro]], [[a/x@L3]].\n",
    "b/sub/page.md": "In b/sub: [[x]].\n",
    "y.md": "Y.\n",
    "z.md": "Z.\n",
}


def test_ten_fresh_imports_give_byte_identical_links_and_the_nearest_folder(
    tmp_path: Path,
) -> None:
    """Ambiguous [[x]] goes to the page's own folder, else the nearest, else key order; every
    fresh import prints exactly the same ``links --json``, forwards and backwards."""
    vault = tmp_path / "vault"
    for rel, text in AMBIGUOUS.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, "utf-8")
    outputs = set()
    for run in range(10):
        c = Cli(tmp_path, tmp_path / f"data-{run}")
        c.ok("import", str(vault))
        # from y, three hops both ways reach every page and report every links edge once
        out = c.ok("links", "y", "--direction", "both", "--depth", "3", "--json").out
        # the ids each run mints differ; everything else is byte-identical
        outputs.add(re.sub(r'"(from|to)_id": "[0-9a-f]{24}"', r'"\1_id": ID', out))
    assert len(outputs) == 1
    records = json.loads(outputs.pop().replace(": ID", ': "id"'))
    edges: dict[str, list[str]] = {}
    for r in records:
        edges.setdefault(r["from"], []).append(r["to"])
    assert sum(map(len, edges.values())) == 11
    # within a page, edges go in the far page's file order (c, y, z, a/…, b/…)
    assert edges["c"] == ["y", "z", "a/x"]  # no nearer folder: key order, a/x before b/x
    assert edges["a/page"] == ["y", "z", "a/x"]  # its own folder
    assert edges["b/page"] == ["y", "z", "a/x", "b/x"]  # own folder; a/x is written as a path
    assert edges["b/sub/page"] == ["b/x"]  # the nearest ancestor's subtree


def test_front_matter_links_show_in_links_and_backlinks_and_follow_versions(
    tmp_path: Path,
) -> None:
    """A front-matter [[link]] is listed by links and --backlinks; editing it moves the edge,
    and --as-of still shows the old one."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Zef Hemel.md").write_text("Zef.\n", "utf-8")
    (vault / "Sync.md").write_text("Sync.\n", "utf-8")
    adr = vault / "ADR" / "002 Sync Engine.md"
    adr.parent.mkdir()
    adr.write_text('---\ndeciders: "[[Zef Hemel]]"\nstatus: accepted\n---\nBody.\n', "utf-8")
    c = Cli(tmp_path, tmp_path / "data")
    c.ok("import", str(vault))
    before = c.ok("get", "ADR/002 Sync Engine", "--json").json()["valid_from"]
    assert c.ok("links", "ADR/002 Sync Engine").lines == ["page/Zef Hemel"]
    assert c.ok("links", "Zef Hemel", "--backlinks").lines == ["page/ADR/002 Sync Engine"]
    adr.write_text('---\nrelated:\n  - "[[Sync]]"\n---\nBody.\n', "utf-8")
    c.ok("import", str(vault))
    assert c.ok("links", "ADR/002 Sync Engine").lines == ["page/Sync"]
    assert c.ok("links", "Zef Hemel", "--backlinks").out == ""
    assert c.ok("links", "Sync", "--backlinks").lines == ["page/ADR/002 Sync Engine"]
    assert c.ok("links", "ADR/002 Sync Engine", "--as-of", before).lines == ["page/Zef Hemel"]
    assert c.ok("get", "ADR/002 Sync Engine", "--json").json()["data"] == {
        "related": ["[[Sync]]"]
    }


def test_a_huge_page_file_in_a_vault_is_reported_and_skipped_unread_not_read_whole(
    tmp_path: Path,
) -> None:
    """A 3 GiB (sparse) page in a vault is reported and skipped without being read: the child
    runs under a 2 GiB address-space limit, so reading it whole fails here (an internal
    error) instead of exhausting the machine; the vault's other page still imports."""
    import os
    import resource
    import subprocess

    from support.cli import RYVEM

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "small.md").write_text("# Small\n\nfine\n")
    with open(vault / "huge.md", "wb") as f:
        f.truncate(3 << 30)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    c = Cli(tmp_path, tmp_path / "data")
    c.env["RYVEM_EMBEDDING"] = "off"
    p = subprocess.run(
        [str(RYVEM), "graph", "import", str(vault)], cwd=tmp_path, env=c.env,
        capture_output=True, timeout=120, check=False, preexec_fn=cap,
        stdin=subprocess.DEVNULL,
    )
    err = p.stderr.decode()
    assert p.returncode == 0, err
    assert "huge.md" in err and "over 9437184 bytes" in err and "skipped" in err
    assert "internal error" not in err
    assert [h["title"] for h in c.json("search", "--all-scopes")] == ["small"]
    assert os.path.getsize(vault / "huge.md") == 3 << 30
