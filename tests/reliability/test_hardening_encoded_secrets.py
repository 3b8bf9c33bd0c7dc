"""A secret in another spelling (issue 39): ``redact`` finds it in every form the product
itself decodes — a percent-encoded link target, an HTML entity or backslash escape the
export's renderer decodes — rewrites it, and an export made afterwards holds no form of it.

Real ``ryvem`` CLI (``tests/support/cli.py``), real SQLite files, one throw-away data dir each.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from reliability.invariants import problems
from ryvem.adapters.sqlite.repository import SqliteRepository
from ryvem.domain.redaction import links_of
from support.cli import Cli

SECRET = "tok-pctsecret-998877"
PERCENT = "tok%2Dpctsecret%2D998877"
# Bodies each holding SECRET only in a spelling the product decodes, never literally.
SPELLINGS = {
    "percent": f"only [x]({PERCENT}.md) encoded",
    "entity": "see [y](<tok-pct&#115;ecret-998877.md>) here",
    "hex-entity": "text tok-pct&#x73;ecret&#x2D;998877 in a paragraph",
    "decimal-entity-in-label": "[tok&#45;pct&#0115;ecret-998877](page.md) &amp; more",
    "escape": r"an escaped tok\-pctsecret\-998877 word",
    "entity-of-percent": "[w](tok&#37;2Dpctsecret-998877.md) twice encoded",
}


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path, tmp_path / "data")


def every_reading(text: str) -> str:
    """``text`` as a reader of the page can read it: as written, out of the page's JSON
    (``\\u0026`` is ``&``), entities decoded (the browser), percent escapes decoded (a
    followed href), both."""
    text = re.sub(r"\\u00([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), text)
    once = html.unescape(text)
    return "\n".join([text, once, unquote(text), unquote(once), html.unescape(unquote(once))])


def test_a_percent_encoded_link_target_is_redacted_in_the_body_not_only_in_the_target(
    cli: Cli,
) -> None:
    cli.ok("put", "page", "--key", "src2", "--title", "src2", "--body", SPELLINGS["percent"])
    r = cli.ok("redact", SECRET, "--all-scopes")
    assert "redacted 1 version" in r.out
    got = cli.json("get", "page/src2")
    assert got["erased"] == "redacted"
    assert PERCENT not in json.dumps(got) and SECRET not in every_reading(json.dumps(got))
    assert got["body"] == "only [x]([redacted].md) encoded"


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_a_redaction_leaves_no_decodable_copy_in_the_version_nor_in_a_later_export(
    cli: Cli, tmp_path: Path, name: str,
) -> None:
    cli.ok("put", "page", "--key", "src", "--title", "src", "--body", SPELLINGS[name])
    cli.ok("put", "page", "--key", "other", "--title", "other", "--body", "a 100% & kept body")
    page = tmp_path / "before.html"
    cli.ok("export", "--out", str(page))
    assert SECRET in every_reading(page.read_text()), "the export decodes this spelling"
    r = cli.ok("redact", SECRET, "--all-scopes")
    assert "redacted 1 version" in r.out
    got = cli.json("get", "page/src")
    assert got["erased"] == "redacted" and "[redacted]" in got["body"]
    assert SECRET not in every_reading(got["body"])
    after = tmp_path / "after.html"
    cli.ok("export", "--out", str(after))
    text = after.read_text()
    assert SECRET not in every_reading(text)
    assert not re.search(r'href="[^"]*pct', text)
    assert cli.json("get", "page/other")["body"] == "a 100% & kept body"


def test_an_entity_encoded_link_is_found_by_a_dry_run_and_counted_where_it_is(
    cli: Cli,
) -> None:
    cli.ok("put", "page", "--key", "src3", "--title", "src3", "--body", SPELLINGS["entity"])
    dry = cli.json("redact", SECRET, "--all-scopes", "--dry-run")
    assert dry["versions"] == 1, dry
    assert cli.json("get", "page/src3")["body"] == SPELLINGS["entity"]  # nothing written
    assert cli.json("redact", SECRET, "--all-scopes")["versions"] == 1
    assert cli.json("redact", SECRET, "--all-scopes")["versions"] == 0  # nothing left


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_a_page_exported_before_a_redaction_is_named_when_it_holds_the_text_in_any_spelling(
    cli: Cli, tmp_path: Path, name: str,
) -> None:
    """The page in ryvem's own folder (graph.html in the data dir) still holds the secret,
    rendered (entities and escapes decoded) or as its body spelled it (a percent-encoded
    link target the browser decodes): the redaction warns about it in every spelling, not
    only when the page holds it literally (it missed the percent-encoded ones)."""
    cli.ok("put", "page", "--key", "src", "--title", "src", "--body", SPELLINGS[name])
    cli.ok("export")
    page = tmp_path / "data" / "graph.html"
    assert SECRET in every_reading(page.read_text())
    r = cli.ok("redact", SECRET, "--all-scopes")
    assert f"warning: {page} was exported before this redaction and still holds the text" in r.err
    cli.ok("export")
    assert "warning" not in cli.ok("redact", SECRET, "--all-scopes").err  # the new page is clean


@pytest.mark.parametrize("body", [
    "only [x](TOK%2DPCTSECRET%2D998877.md) encoded",
    "see [[Tok-PctSecret-998877|the token]] here",
    "both [a](<TOK-PCTSECRET-998877.md#part>) and [[TOK-pctsecret-998877#h]]",
])
def test_a_link_written_in_another_case_is_redacted_in_the_body_as_in_its_stored_target(
    cli: Cli, tmp_path: Path, body: str,
) -> None:
    """A link target is compared case-folded, so ``[x](TOK%2DPCTSECRET….md)`` links to
    ``tok-pctsecret-…``: the stored target held the secret. The redaction rewrote that target
    but left the body's link as written, so the body stated a link the store no longer had
    (and a re-reading of the body brought the secret back)."""
    cli.ok("put", "page", "--key", "src", "--title", "src", "--body", body)
    r = cli.ok("redact", SECRET, "--all-scopes")
    assert "redacted 1 version" in r.out
    got = cli.json("get", "page/src")
    assert got["erased"] == "redacted" and "[redacted]" in got["body"]
    assert SECRET not in every_reading(got["body"].casefold())
    store = tmp_path / "data" / "dev.db"
    assert problems(store) == []
    repo = SqliteRepository.open(store)
    try:
        version = repo.get_version(got["id"])
        assert version is not None
        assert all(SECRET not in link.target for link in links_of(version))
    finally:
        repo.close()
    assert cli.json("redact", SECRET, "--all-scopes")["versions"] == 0  # nothing left


def test_a_title_spelled_with_an_entity_does_not_keep_warning_about_an_earlier_export(
    cli: Cli, tmp_path: Path,
) -> None:
    """The page shows titles as text (``&#45;`` stays ``&#45;``), so a title spelled so does
    not hold the secret in the page, and a redaction (which matches titles as written) finds
    nothing there: it used to warn, on every rerun, that the page still held the text."""
    cli.ok("put", "page", "--key", "s", "--title", "tok&#45;pctsecret-998877", "--body", "plain")
    cli.ok("export")
    r = cli.ok("redact", SECRET, "--all-scopes")
    assert "nothing in any scope holds that text" in r.out
    assert "warning" not in r.err
