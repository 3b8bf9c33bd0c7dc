"""A page's title: front matter ``title``, else its file name; ``--title-from heading`` keeps
the older rule (front matter, else the first ``# `` heading, else the file name). Run as the
real console script: the plain import, ``--git-history`` and ``--watch`` agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli import Cli, assert_fails

ADR = "---\nstatus: accepted\n---\n# Context\n\nWe need a scripting language.\n\n# Decision\n"
FILES = {
    "ADR/0001 Use Lua.md": ADR,
    "Client Encryption.md": "Some intro.\n\n# Details\n\nAES.\n",
    "Named.md": "---\ntitle: Given Title\n---\n# Heading\n",
    "plain.md": "no heading at all, [[ADR/0001 Use Lua]]\n",
}
BY_NAME = {
    "ADR/0001 Use Lua": "0001 Use Lua", "Client Encryption": "Client Encryption",
    "Named": "Given Title", "plain": "plain",
}
BY_HEADING = {**BY_NAME, "ADR/0001 Use Lua": "Context", "Client Encryption": "Details"}


def write_vault(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def titles(c: Cli) -> dict[str, str]:
    return {k: c.json("get", f"page/{k}")["title"] for k in BY_NAME}


def test_a_plain_import_titles_pages_by_file_name_and_heading_on_request(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault")
    by_name = Cli(tmp_path, tmp_path / "a")
    by_name.ok("import", str(vault), "--no-embed")
    assert titles(by_name) == BY_NAME
    by_heading = Cli(tmp_path, tmp_path / "b")
    by_heading.ok("import", str(vault), "--no-embed", "--title-from", "heading")
    assert titles(by_heading) == BY_HEADING
    # The same links either way (each store mints its own ids for the two ends).
    def links(c: Cli) -> list[dict[str, object]]:
        return [{k: v for k, v in step.items() if k not in ("from_id", "to_id")}
                for step in c.json("links", "page/plain")]

    assert links(by_name) == links(by_heading) != []


def test_reimporting_under_the_new_rule_supersedes_only_the_pages_whose_title_changes(
    tmp_path: Path,
) -> None:
    """The migration: a vault imported with the heading rule, imported again by name, gets a
    new version of each page whose title changes; history keeps the old title."""
    vault = write_vault(tmp_path / "vault")
    c = Cli(tmp_path, tmp_path / "data")
    c.ok("import", str(vault), "--no-embed", "--title-from", "heading")
    again = c.json("import", str(vault), "--no-embed")
    assert (again["superseded"], again["unchanged"]) == (2, 2)
    assert [v["title"] for v in c.json("history", "page/ADR/0001 Use Lua")] == [
        "Context", "0001 Use Lua",
    ]
    back = c.json("import", str(vault), "--no-embed", "--title-from", "heading")
    assert (back["superseded"], back["unchanged"]) == (2, 2)


@pytest.mark.parametrize("value", ["Heading", "title", ""])
def test_an_unknown_title_rule_is_one_line_and_exit_2_with_nothing_written(
    tmp_path: Path, value: str
) -> None:
    vault = write_vault(tmp_path / "vault")
    c = Cli(tmp_path, tmp_path / "data")
    assert_fails(c("import", str(vault), "--title-from", value), 2, "--title-from")
    assert not (tmp_path / "data").exists() or c.json("stats")["current_rows"] == 0


def test_git_history_titles_every_commits_version_by_the_chosen_rule(tmp_path: Path) -> None:
    from gitrepo import GIT, Repo

    if GIT is None:
        from conftest import unavailable

        unavailable("no git binary")
    r = Repo(tmp_path / "vault")
    r.write("ADR/0001 Use Lua.md", ADR)
    r.commit("first", "2024-01-10T09:00:00Z")
    r.write("ADR/0001 Use Lua.md", ADR + "\nLua it is.\n")
    r.commit("second", "2024-01-11T09:00:00Z")
    r.write("ADR/0001 Use Lua.md", ADR + "\nLua it is. Uncommitted.\n")
    for rule, title in (("name", "0001 Use Lua"), ("heading", "Context")):
        c = Cli(tmp_path, tmp_path / rule)
        c.ok("import", str(r.root), "--git-history", "--no-embed", "--title-from", rule)
        chain = c.json("history", "page/ADR/0001 Use Lua")
        assert [v["title"] for v in chain] == [title] * 3
        assert [("git" in v["data"]) for v in chain] == [True, True, False]


def test_a_page_saved_while_watching_is_titled_by_the_chosen_rule(tmp_path: Path) -> None:
    from integration.test_import_watch import Watcher, current, poll
    from ryvem.adapters.sqlite import SqliteRepository
    from ryvem.application.service import Service

    for rule, title in (("name", "0001 Use Lua"), ("heading", "Context")):
        vault = tmp_path / f"vault-{rule}"
        (vault / "ADR").mkdir(parents=True)
        db = tmp_path / rule / "ryvem.db"
        w = Watcher(vault, db, "--title-from", rule)
        try:
            w.wait_err("watching ")
            (vault / "ADR" / "0001 Use Lua.md").write_text(ADR, encoding="utf-8")
            repo = SqliteRepository.open(db)
            try:
                svc = Service(repo)
                page, _ = poll(lambda s=svc: current(s, "page/ADR/0001 Use Lua"), 10)
                assert page.title == title
            finally:
                repo.close()
            code, _ = w.stop()
            assert code == 0
        finally:
            w.kill()
