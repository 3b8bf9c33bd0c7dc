"""Outside-in review of vault import fidelity: what a person keeping notes in Obsidian or
SilverBullet finds in the store after ``ryvem graph import``, run as the real console script
on small vaults built in tmp_path."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from support.cli import Cli

NFC = unicodedata.normalize("NFC", "Café")
NFD = unicodedata.normalize("NFD", "Café")
assert NFC != NFD


def cli(tmp_path: Path) -> Cli:
    c = Cli(tmp_path, tmp_path / "data")
    c.env["RYVEM_EMBEDDING"] = "off"
    return c


def test_a_page_whose_file_name_macos_decomposed_is_found_by_its_typed_name(
    tmp_path: Path,
) -> None:
    """macOS writes file names in NFD; the key is NFC, as typed, so `get page/Café` finds it."""
    vault = tmp_path / "vault"
    (vault / f"{NFD} notes").mkdir(parents=True)
    (vault / f"{NFD}.md").write_text("decomposed [[home]]\n", encoding="utf-8")
    (vault / f"{NFD} notes" / "menu.md").write_text("in a decomposed folder\n", "utf-8")
    (vault / "home.md").write_text(f"[[{NFC}]] [[{NFC} notes/menu]]\n", encoding="utf-8")
    c = cli(tmp_path)
    c.ok("import", str(vault), "--scope", "global")
    page = c.json("get", f"page/{NFC}")
    assert (page["key"], page["title"]) == (NFC, NFC)
    assert c.json("get", f"page/{NFC} notes/menu")["key"] == f"{NFC} notes/menu"
    assert c.ok("links", "page/home").lines == [f"page/{NFC}", f"page/{NFC} notes/menu"]
    again = c.json("import", str(vault), "--scope", "global", "--retire-missing")
    assert (again["unchanged"], again["created"], again["retired"]) == (3, 0, 0)


def test_one_name_in_both_unicode_forms_is_one_page_and_the_other_file_a_warning(
    tmp_path: Path,
) -> None:
    """Two files whose names differ only in Unicode form (possible on Linux) would be one key:
    the first in path order imports, the other is skipped with a warning."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / f"{NFC}.md").write_text("composed\n", encoding="utf-8")
    (vault / f"{NFD}.md").write_text("decomposed\n", encoding="utf-8")
    c = cli(tmp_path)
    r = c("import", str(vault), "--scope", "global", "--json")
    assert r.code == 0, r.err
    assert r.json()["created"] == 1 and r.json()["skipped"] == 1
    assert "another Unicode form" in r.err and r.err.count("\n") == 1
    assert len(c.json("history", f"page/{NFC}")) == 1


def test_git_history_keys_a_decomposed_file_name_as_typed_and_does_not_reimport_it(
    tmp_path: Path,
) -> None:
    from gitrepo import GIT, Repo

    if GIT is None:
        from conftest import unavailable

        unavailable("no git binary")
    r = Repo(tmp_path / "vault")
    r.write(f"{NFD}.md", "decomposed [[home]]\n")
    r.write("home.md", f"[[{NFC}]]\n")
    r.commit("one", "2024-01-10T09:00:00Z")
    c = cli(tmp_path)
    first = c.json("import", str(r.root), "--git-history", "--scope", "global")
    assert first["git"]["working_tree"] == 0  # the committed file is not "changed"
    page = c.json("get", f"page/{NFC}")
    assert page["key"] == NFC and page["data"]["git"]["message"] == "one"
    assert c.ok("links", "page/home").lines == [f"page/{NFC}"]
    r.write(f"{NFD}.md", "decomposed, edited [[home]]\n")
    r.commit("two", "2024-01-11T09:00:00Z")
    c.ok("import", str(r.root), "--git-history", "--scope", "global", "--retire-missing")
    chain = c.json("history", f"page/{NFC}")
    assert [v["data"]["git"]["message"] for v in chain] == ["one", "two"]
    assert chain[-1]["valid_to"] is None


def test_a_decomposed_file_name_saved_while_watching_is_its_typed_key_and_stays_current(
    tmp_path: Path,
) -> None:
    """--watch: a file saved under an NFD name writes page Café (NFC); saving it again writes
    nothing; deleting it retires that page (with --retire-missing)."""
    from integration.test_import_watch import Watcher, current, poll
    from ryvem.adapters.sqlite import SqliteRepository
    from ryvem.application.service import Service

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / f"{NFD}.md").write_text("first\n", encoding="utf-8")
    db = tmp_path / "data" / "ryvem.db"
    w = Watcher(vault, db, "--retire-missing")
    try:
        w.wait_err("watching ")
        repo = SqliteRepository.open(db)
        try:
            svc = Service(repo)
            assert svc.get(f"page/{NFC}").body == "first\n"
            (vault / f"{NFD}.md").write_text("second\n", encoding="utf-8")
            poll(lambda: svc.get(f"page/{NFC}").body == "second\n", timeout=10)
            (vault / f"{NFD}.md").unlink()
            poll(lambda: current(svc, f"page/{NFC}") is None, timeout=10)
            assert [v.body for v in svc.history(f"page/{NFC}")] == ["first\n", "second\n"]
        finally:
            repo.close()
        code, out = w.stop()
        assert code == 0
        assert [line for line in out if line.startswith(("wrote", "retired"))] == [
            f"wrote page/{NFC}", f"retired page/{NFC}",
        ], out
    finally:
        w.kill()


def test_relative_wiki_links_obsidian_writes_resolve_from_the_linking_page(
    tmp_path: Path,
) -> None:
    """Obsidian's "relative path to file" link format writes [[../b/Note]] and [[./Sibling]]:
    they resolve from the linking page's folder (in the body and the front matter), as the
    markdown links [x](../b/Note.md) do; one climbing above the vault links nowhere."""
    vault = tmp_path / "vault"
    for rel, text in {
        "a/Page.md": "---\nup: '[[../Index]]'\n---\n"
                     "[[../b/Note|the note]] [[./Sibling#part]] [[../../outside]]\n",
        "a/Sibling.md": "x\n",
        "b/Note.md": "y\n",
        "c/Note.md": "z\n",
        "Index.md": "i\n",
    }.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    c = cli(tmp_path)
    c.ok("import", str(vault), "--scope", "global")
    assert c.ok("links", "page/a/Page").lines == ["page/Index", "page/a/Sibling", "page/b/Note"]
    assert c.ok("links", "page/a/Page", "--unresolved").out == ""


def test_a_vault_reached_through_a_symlink_is_watched_like_any_other(tmp_path: Path) -> None:
    """~/notes -> ~/Dropbox/notes: --watch on the link applies saves (it wrote nothing)."""
    from integration.test_import_watch import Watcher, current, poll
    from ryvem.adapters.sqlite import SqliteRepository
    from ryvem.application.service import Service

    real = tmp_path / "Dropbox" / "notes"
    real.mkdir(parents=True)
    (real / "home.md").write_text("home\n", encoding="utf-8")
    link = tmp_path / "notes"
    link.symlink_to(real)
    db = tmp_path / "data" / "ryvem.db"
    w = Watcher(link, db, "--retire-missing")
    try:
        w.wait_err("watching ")
        repo = SqliteRepository.open(db)
        try:
            svc = Service(repo)
            (real / "idea.md").write_text("an idea\n", encoding="utf-8")
            poll(lambda: current(svc, "page/idea"), timeout=10)
            (real / "home.md").unlink()
            poll(lambda: current(svc, "page/home") is None, timeout=10)
        finally:
            repo.close()
        code, _ = w.stop()
        assert code == 0
    finally:
        w.kill()


def test_dot_files_are_skipped_like_dot_folders_by_every_import(tmp_path: Path) -> None:
    """macOS's AppleDouble `._page.md` (binary, on exFAT or SMB), Emacs's `.#page.md` lock
    symlink and a hidden `.draft.md` are not pages: the plain import read them (warnings, or
    a page --git-history and --watch never saw)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "page.md").write_text("shown\n", encoding="utf-8")
    (vault / "._page.md").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        \xff\xfe")
    (vault / ".#page.md").symlink_to("ada@host.12345:1700000000")
    (vault / ".draft.md").write_text("hidden\n", encoding="utf-8")
    c = cli(tmp_path)
    r = c("import", str(vault), "--scope", "global", "--json")
    assert r.code == 0 and r.err == "", r.err
    assert (r.json()["files"], r.json()["created"], r.json()["skipped"]) == (1, 1, 0)
    assert c.ok("search", "hidden", "--all-scopes", "--mode", "lexical").out.strip() in ("", "[]")


def test_a_front_matter_title_yaml_reads_as_a_boolean_or_number_keeps_its_text(
    tmp_path: Path,
) -> None:
    """YAML 1.1 reads `title: On` as true and `title: 0755` as 493: the title is the text as
    written (the data keeps YAML's value)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    written = {"on": "On", "no": "no", "octal": "0755", "float": "1e3", "under": "1_000",
               "quoted": "'Yes'", "plain": "42"}
    for name, title in written.items():
        (vault / f"{name}.md").write_text(f"---\ntitle: {title}\n---\nbody\n", "utf-8")
    c = cli(tmp_path)
    c.ok("import", str(vault), "--scope", "global")
    got = {name: c.json("get", f"page/{name}")["title"] for name in written}
    assert got == {**written, "quoted": "Yes"}
    assert c.json("get", "page/on")["data"] == {"title": True}
