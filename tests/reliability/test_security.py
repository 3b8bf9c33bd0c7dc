"""Security: private files, and no face that runs what it is given.

Elsewhere, and referenced from docs/reliability.md: Cypher injection is impossible because
kinds and rels are slugs checked before any query is built and every value is a parameter
(tests/integration/test_neo4j_adapter.py, plus the slug matrix in test_hostile_input.py);
the export's XSS cases are in tests/browser/test_export_page.py.
"""

from __future__ import annotations

import ast
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

import ryvem
from reliability.harness import ryvem as run_ryvem
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """The permissive umask many desktops use (files 0644, folders 0755 by default)."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_cli_creates_the_data_dir_0700_and_the_database_0600(tmp_path: Path) -> None:
    """A first `put` with a fresh RYVEM_DATA_DIR makes a private folder and a private file."""
    data = tmp_path / "home" / ".ryvem"
    (tmp_path / "home").mkdir()
    put = run_ryvem("graph", "put", "decision", "--title", "t", "--scope", "global",
                    cwd=tmp_path, data_dir=data)
    assert put.code == 0, put.err
    assert mode_of(data) == 0o700
    assert mode_of(data / "dev.db") == 0o600
    assert sorted(p.name for p in data.iterdir()) == ["dev.db"]


def test_an_export_is_as_private_as_the_store_and_a_replaced_page_keeps_its_mode(
    tmp_path: Path, loose_umask: None
) -> None:
    """The page holds every body of the store. A first `export` in a fresh data dir made the
    folder 0755 and the page 0644 (and a store created there later stayed in that folder);
    replacing a 0600 page made it 0644. Now the folder is 0700, a new page 0600, and a
    replaced page keeps the mode its owner gave it."""
    data = tmp_path / "home" / ".ryvem"
    (tmp_path / "home").mkdir()
    first = run_ryvem("graph", "export", cwd=tmp_path, data_dir=data)
    assert first.code == 0, first.err
    assert (mode_of(data), mode_of(data / "graph.html")) == (0o700, 0o600)
    shared = tmp_path / "shared.html"
    shared.write_bytes((data / "graph.html").read_bytes())  # a page exported before
    shared.chmod(0o640)
    old = shared.stat().st_ino
    again = run_ryvem("graph", "export", "--out", str(shared), cwd=tmp_path, data_dir=data)
    assert again.code == 0, again.err
    assert mode_of(shared) == 0o640 and shared.stat().st_ino != old  # replaced, mode kept
    deep = tmp_path / "new" / "pages" / "graph.html"
    made = run_ryvem("graph", "export", "--out", str(deep), cwd=tmp_path, data_dir=data)
    assert made.code == 0, made.err
    assert (mode_of(deep.parent), mode_of(deep)) == (0o700, 0o600)


def test_the_wal_and_shm_files_are_as_private_as_the_database(
    tmp_path: Path, loose_umask: None
) -> None:
    """While a store is open its -wal and -shm files exist, and they too are 0600."""
    data = tmp_path / ".ryvem"
    repo = SqliteRepository.open(data / "dev.db")
    Service(repo).write("decision", "secret", key="k")
    try:
        names = sorted(p.name for p in data.iterdir())
        assert names == ["dev.db", "dev.db-shm", "dev.db-wal"]
        for name in names:
            assert mode_of(data / name) == 0o600, name
        assert mode_of(data) == 0o700
    finally:
        repo.close()


FORBIDDEN_CALLS = {
    ("os", "system"), ("os", "popen"), ("os", "execv"), ("os", "execvp"), ("os", "spawnv"),
    ("subprocess", "run"), ("subprocess", "Popen"), ("subprocess", "call"),
    ("subprocess", "check_call"), ("subprocess", "check_output"),
}
FORBIDDEN_NAMES = {"eval", "exec", "compile", "__import__"}


def _calls(tree: ast.AST) -> Iterator[tuple[str, int]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            for m in mods:
                if m and m.split(".")[0] in ("subprocess", "pickle", "shlex"):
                    yield f"import {m}", node.lineno
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in FORBIDDEN_NAMES:
                yield f.id, node.lineno
            if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                    and (f.value.id, f.attr) in FORBIDDEN_CALLS):
                yield f"{f.value.id}.{f.attr}", node.lineno


@pytest.mark.parametrize("face", ["mcp", "cli", "export"])
def test_no_face_can_run_a_command_or_code_taken_from_its_input(face: str) -> None:
    """The MCP server, CLI and export never start processes or evaluate code at all."""
    root = Path(ryvem.__file__).parent / face
    sources = sorted(root.rglob("*.py"))
    assert sources, f"no {face} sources found"
    found = [f"{src.relative_to(root.parent)}:{line} {what}"
             for src in sources for what, line in _calls(ast.parse(src.read_text()))]
    assert found == []
