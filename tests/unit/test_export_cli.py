"""``ryvem graph export`` run as the real console script, in a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service

RYVEM = shutil.which("ryvem", path=str(Path(sys.executable).parent))


def run(data_dir: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    assert RYVEM is not None, "the ryvem console script is not installed next to python"
    base = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    base.update({"RYVEM_DATA_DIR": str(data_dir), **env})
    return subprocess.run(
        [RYVEM, "graph", "export", *args], cwd=cwd, env=base, capture_output=True, text=True,
        timeout=60, check=False,
    )


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A data directory whose default store holds two nodes in two scopes."""
    d = tmp_path / "data"
    repo = SqliteRepository.open(d / "dev.db")
    try:
        svc = Service(repo)
        svc.write("page", "Global page", key="g")
        svc.write("note", "Board note", key="b", scope="board:x")
    finally:
        repo.close()
    return d


def test_export_writes_graph_html_in_the_data_directory_and_prints_its_path(
    data_dir: Path, tmp_path: Path
) -> None:
    """Without --out the page lands in the data directory and its path is the only output."""
    r = run(data_dir, tmp_path)
    assert r.returncode == 0, r.stderr
    path = Path(r.stdout.strip())
    assert path == (data_dir / "graph.html").resolve()
    html = path.read_text(encoding="utf-8")
    assert "Global page" in html and "Board note" in html
    assert r.stderr == ""


def test_out_and_scope_choose_the_file_and_narrow_the_graph(
    data_dir: Path, tmp_path: Path
) -> None:
    """--out names the file (folders created); --scope keeps one scope."""
    out = tmp_path / "site" / "board.html"
    r = run(data_dir, tmp_path, "--out", str(out), "--scope", "board:x")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(out.resolve())
    html = out.read_text(encoding="utf-8")
    assert "Board note" in html and "Global page" not in html


def test_a_bad_scope_is_one_error_line_and_exit_2(data_dir: Path, tmp_path: Path) -> None:
    """An invalid --scope fails as invalid input and writes nothing."""
    r = run(data_dir, tmp_path, "--scope", "nope")
    assert r.returncode == 2
    assert r.stderr.startswith("error: invalid scope") and r.stderr.count("\n") == 1
    assert not (data_dir / "graph.html").exists()


def test_out_never_replaces_the_store_or_a_file_ryvem_did_not_export(
    data_dir: Path, tmp_path: Path
) -> None:
    """A sweep ran `export --out data/dev.db`: the store was replaced by a page, exit 0, and
    every later command said "file is not a database". Only a missing or empty file, or a
    page ryvem exported, is written; anything else is one line, exit 2, and left as it was."""
    store = data_dir / "dev.db"
    notes = tmp_path / "notes.md"
    notes.write_text("# My notes\n", encoding="utf-8")
    for target, said in (
        (store, f"--out {store} is the store's own file ({store.resolve()}); give the path of "
                "a page to write"),
        (notes, f"{notes.resolve()} exists and is not a page ryvem exported; ryvem never "
                "replaces another file (give a new path, or move that file away first)"),
    ):
        before = target.read_bytes()
        r = run(data_dir, tmp_path, "--out", str(target))
        assert r.returncode == 2 and r.stdout == "", r
        assert r.stderr == f"error: {said}\n"
        assert target.read_bytes() == before
    repo = SqliteRepository.open(store)  # still the store
    try:
        assert Service(repo).get("page/g").title == "Global page"
    finally:
        repo.close()
    page, empty = tmp_path / "page.html", tmp_path / "empty.html"
    empty.touch()
    for target in (page, page, empty):  # new, a page it exported, an empty file
        assert run(data_dir, tmp_path, "--out", str(target)).returncode == 0
    assert "Global page" in empty.read_text(encoding="utf-8")
    # A second sweep: a note quoting the page's mark, a page made read-only, and the path of
    # a store not created yet (its page would stand where the store is to be) are refused.
    quoting = tmp_path / "about.md"
    quoting.write_text('# Marks\nPages carry `<meta name="generator" content="ryvem graph '
                       'export">`.\n', encoding="utf-8")
    page.chmod(0o444)
    fresh = tmp_path / "fresh"
    for target, fragment, env in (
        (quoting, "is not a page ryvem exported", {}),
        (page, "is read-only (mode 0444)", {}),
        (fresh / "dev.db", "is the store's own file", {"RYVEM_DATA_DIR": str(fresh)}),
        (data_dir / "dev.db-wal", "is the store's own file", {}),
    ):
        before = target.read_bytes() if target.exists() else None
        r = run(data_dir, tmp_path, "--out", str(target), **env)
        assert r.returncode == 2 and fragment in r.stderr and r.stderr.count("\n") == 1, r
        assert (target.read_bytes() if target.exists() else None) == before


def test_open_without_a_browser_says_so_and_still_succeeds(
    data_dir: Path, tmp_path: Path
) -> None:
    """--open where no browser can start writes the page, explains, and exits 0."""
    r = run(
        data_dir, tmp_path, "--open",
        BROWSER=str(tmp_path / "no-such-browser"), PATH=str(tmp_path / "empty-bin"),
        DISPLAY="", WAYLAND_DISPLAY="",
    )
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()).is_file()
    assert "no web browser available" in r.stderr


def test_with_history_bodies_embeds_the_bodies_of_past_versions_only_when_asked(
    tmp_path: Path,
) -> None:
    """A superseded version's body is in the page only with --with-history-bodies; its
    title and window are there either way, and the current body always is."""
    d = tmp_path / "data"
    repo = SqliteRepository.open(d / "dev.db")
    try:
        svc = Service(repo)
        svc.write("decision", "Cache with Redis", key="cache", body="Old body: redisonly.")
        svc.write("decision", "Cache in process", key="cache", body="New body: inprocessonly.")
    finally:
        repo.close()
    plain, full = tmp_path / "plain.html", tmp_path / "full.html"
    r = run(d, tmp_path, "--out", str(plain))
    assert r.returncode == 0, r.stderr
    r = run(d, tmp_path, "--out", str(full), "--with-history-bodies")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(full.resolve())
    without, with_ = plain.read_text(encoding="utf-8"), full.read_text(encoding="utf-8")
    for html in (without, with_):
        assert "Cache with Redis" in html and "inprocessonly" in html
    assert "redisonly" not in without
    assert "redisonly" in with_
