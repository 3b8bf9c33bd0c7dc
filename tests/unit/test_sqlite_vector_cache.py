"""The SQLite adapter's in-memory vector matrix stays exact while rows come and go: a search
after a supersede never returns the closed row, filters still apply to the rows left, and
the matrix read once is refreshed by what changed (not reread)."""

from __future__ import annotations

import struct
from pathlib import Path

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.domain.scopes import ScopeFilter

DIM = 384
MODEL = "cache-model"


def axis(i: int) -> bytes:
    v = [0.0] * DIM
    v[i] = 1.0
    return struct.pack(f"<{DIM}f", *v)


def embed_queued(repo: SqliteRepository, axes: dict[str, int]) -> None:
    repo.put_vectors(MODEL, [(p, [axis(axes[p.title])]) for p in repo.vector_backlog(1000)])


def titles(repo: SqliteRepository, i: int, kinds: tuple[str, ...] = ()) -> list[str]:
    return [h.title for h in repo.vector_search(MODEL, axis(i), list(kinds), ScopeFilter(), 20)]


def test_superseded_rows_leave_a_warm_matrix_and_filters_still_apply(tmp_path: Path) -> None:
    repo = SqliteRepository.open(tmp_path / "s.db")
    svc = Service(repo)
    for n in range(8):
        svc.write("task" if n % 2 else "decision", f"row {n}", key=f"k{n}")
    embed_queued(repo, {f"row {n}": 0 for n in range(8)})
    assert len(titles(repo, 0)) == 8  # the matrix is now held in memory
    cache = repo._vectors[MODEL]
    matrix = cache.matrix

    svc.write("task", "row 1 again", key="k1")  # supersedes row 1 (a task)
    assert "row 1" not in titles(repo, 0)
    assert set(titles(repo, 0, ("task",))) == {"row 3", "row 5", "row 7"}
    assert cache.matrix is matrix, "one closed row must not copy the matrix"

    embed_queued(repo, {"row 1 again": 0})
    assert set(titles(repo, 0, ("task",))) == {"row 1 again", "row 3", "row 5", "row 7"}

    for n in (0, 2, 4):  # a quarter of the matrix dead: it is compacted, results unchanged
        svc.retire(f"decision/k{n}", reason="gone")
    assert set(titles(repo, 0)) == {"row 1 again", "row 3", "row 5", "row 6", "row 7"}
    assert set(titles(repo, 0, ("decision",))) == {"row 6"}
    assert cache.live is None and len(cache.vec_ids) == 5
    repo.close()


def test_a_second_handle_sees_rows_another_wrote(tmp_path: Path) -> None:
    """The matrix follows the store's generation, so another process's vectors are found."""
    path = tmp_path / "s.db"
    a, b = SqliteRepository.open(path), SqliteRepository.open(path)
    Service(a).write("note", "first", key="first")
    embed_queued(a, {"first": 1})
    assert titles(b, 1) == ["first"]
    Service(a).write("note", "second", key="second")
    embed_queued(a, {"second": 2})
    assert titles(b, 2)[0] == "second" and titles(b, 1)[0] == "first"
    a.close()
    b.close()


def test_a_session_embeds_a_repeated_question_once(tmp_path: Path) -> None:
    """The last questions' embeddings are kept: asking again runs no model (real model)."""
    from conftest import unavailable
    from ryvem.application.session import Session
    from ryvem.embedding import load_default, probe

    if probe() is not None:
        unavailable(str(probe()))  # fails under CI=true, where the model is installed
    model = load_default()
    assert model is not None
    calls: list[int] = []

    class Counting:
        name, dim = model.name, model.dim

        def embed(self, texts: list[str]) -> object:
            calls.append(len(texts))
            return model.embed(texts)

        def chunk(self, text: str) -> list[str]:
            return model.chunk(text)

    repo = SqliteRepository.open(tmp_path / "s.db")
    session = Session(lambda: repo, embedder=lambda: Counting())  # type: ignore[arg-type,return-value]
    session.everywhere().write("decision", "Keep sessions in signed cookies", key="sessions")
    session.embed_pending()
    calls.clear()
    first = session.search("where are user sessions kept", mode="semantic", all_scopes=True)
    again = session.search("where are user sessions kept", mode="semantic", all_scopes=True)
    assert [h.id for h in first.hits] == [h.id for h in again.hits] != []
    assert calls == [1]
    session.search("how do we store sessions", mode="semantic", all_scopes=True)
    assert calls == [1, 1]
    repo.close()


def _warm(tmp_path: Path, rows: int = 8) -> tuple[SqliteRepository, Service]:
    repo = SqliteRepository.open(tmp_path / "s.db")
    svc = Service(repo)
    for n in range(rows):
        svc.write("note", f"row {n}", key=f"k{n}")
    embed_queued(repo, {f"row {n}": 0 for n in range(rows)})
    assert len(titles(repo, 0)) == rows  # the matrix is held in memory
    return repo, svc


def _traced(repo: SqliteRepository) -> list[str]:
    statements: list[str] = []
    repo._conn.set_trace_callback(statements.append)
    return statements


def test_a_search_after_a_write_reads_the_ids_removed_since_not_every_id(
    tmp_path: Path,
) -> None:
    repo, svc = _warm(tmp_path)
    statements = _traced(repo)
    svc.write("note", "row 1 again", key="k1")
    svc.retire("note/k2", reason="gone")
    found = titles(repo, 0)
    assert "row 1" not in found and "row 2" not in found and len(found) == 6
    assert any("FROM vector_removed WHERE pos >" in s for s in statements)
    assert not any("SELECT vec_id FROM node_vectors" in s for s in statements)
    repo.close()


def test_a_cache_further_behind_than_the_removal_log_reads_every_id_and_stays_exact(
    tmp_path: Path,
) -> None:
    import sqlite3

    repo, svc = _warm(tmp_path)
    svc.write("note", "row 1 again", key="k1")
    svc.write("note", "row 3 again", key="k3")
    raw = sqlite3.connect(repo.location)  # the log has moved past this cache's position
    with raw:
        raw.execute("DELETE FROM vector_removed WHERE pos < (SELECT max(pos) FROM vector_removed)")
    raw.close()
    statements = _traced(repo)
    found = titles(repo, 0)
    assert sorted(found) == sorted(f"row {n}" for n in (0, 2, 4, 5, 6, 7))
    assert any("SELECT vec_id FROM node_vectors" in s for s in statements)
    repo.close()


def test_the_removal_log_keeps_its_newest_entries_and_the_stored_count_stays_exact(
    tmp_path: Path,
) -> None:
    import sqlite3

    repo, svc = _warm(tmp_path, rows=2)
    raw = sqlite3.connect(repo.location)
    with raw:  # 70,000 vectors in and out again (a reindex of a large store does that)
        raw.executemany("INSERT INTO node_vectors(node_seq, chunk, model, vec) "
                        "VALUES (?, ?, 'other-model', x'00000000')",
                        ((1_000_000 + i, 0) for i in range(70_000)))
        raw.execute("DELETE FROM node_vectors WHERE model = 'other-model'")
    kept, oldest, newest, stored, counted = raw.execute(
        "SELECT count(*), min(pos), max(pos), (SELECT vectors FROM vector_state), "
        "(SELECT count(*) FROM node_vectors) FROM vector_removed").fetchone()
    raw.close()
    assert kept == 65_536 and newest - oldest == 65_535
    assert stored == counted == 2
    svc.write("note", "row 0 again", key="k0")  # this cache is now behind the log: exact still
    assert titles(repo, 0) == ["row 1"]
    repo.close()


def test_an_older_store_gets_the_log_and_its_vector_count_when_opened(tmp_path: Path) -> None:
    import sqlite3

    repo, _ = _warm(tmp_path, rows=3)
    repo.close()
    raw = sqlite3.connect(tmp_path / "s.db")
    with raw:  # back to schema 6: no log, no count, the triggers of migration 003
        raw.execute("DROP TABLE cleanup_pending")  # nor what 009 adds
        raw.execute("DROP TRIGGER audit_empties_kept_postings")  # nor what 008 adds
        raw.execute("DROP TABLE text_postings_kept")
        raw.execute("DROP TABLE text_rows_kept")
        raw.execute("DROP TRIGGER node_vectors_added")
        raw.execute("DROP TRIGGER node_vectors_removed")
        raw.execute("DROP TABLE vector_removed")
        raw.execute("ALTER TABLE vector_state DROP COLUMN vectors")
        for verb, event in (("added", "INSERT"), ("removed", "DELETE")):
            raw.execute(f"CREATE TRIGGER node_vectors_{verb} AFTER {event} ON node_vectors "
                        "BEGIN UPDATE vector_state SET generation = generation + 1 "
                        "WHERE id = 1; END")
        raw.execute("PRAGMA user_version = 6")
    raw.close()
    repo = SqliteRepository.open(tmp_path / "s.db")
    assert int(repo._read("SELECT vectors FROM vector_state")[0][0]) == 3
    Service(repo).write("note", "row 0 again", key="k0")
    assert sorted(titles(repo, 0)) == ["row 1", "row 2"]
    assert int(repo._read("SELECT count(*) FROM vector_removed")[0][0]) == 1
    repo.close()


def test_a_long_removal_committed_between_a_refreshs_log_read_and_its_removal_read_is_masked(
    tmp_path: Path,
) -> None:
    """A refresh reads the log's bounds and the removals since its position in two
    statements; another process may commit between them. When that commit pushes more than
    the log keeps, the removals the bounds promised are pruned before they are read, and a
    vector removed just before stayed in the matrix for good: its position counted as read,
    and with exactly as many removals as the log keeps, the log still seemed to reach back."""
    import sqlite3

    from ryvem.adapters.sqlite.repository import _vector_sql

    repo, _ = _warm(tmp_path, rows=3)
    other = sqlite3.connect(repo.location)  # another process's writer
    with other:
        other.executemany("INSERT INTO node_vectors(node_seq, chunk, model, vec) "
                          "VALUES (?, 0, 'other-model', x'00000000')",
                          ((1_000_000 + i,) for i in range(65_536)))
    assert len(titles(repo, 0)) == 3  # the cache has read every vector
    with other:  # row 1's vectors leave (a text rewritten in place, a requeue) ...
        other.execute("DELETE FROM node_vectors WHERE node_seq = "
                      "(SELECT seq FROM nodes WHERE title = 'row 1')")
    cache = repo._vectors[MODEL]
    sql = _vector_sql()
    first = True

    def read(statement: str, params: dict[str, object]) -> list[object]:
        nonlocal first
        out = repo._read(statement, params)
        if first and statement == sql.log:  # ... and a reindex commits right after the bounds
            first = False
            with other:
                other.execute("DELETE FROM node_vectors WHERE model = 'other-model'")
        return out

    cache.refresh(int(repo._read("SELECT generation FROM vector_state")[0][0]), read, sql)
    other.close()
    assert "row 1" not in titles(repo, 0)  # the next search, refreshed as usual
    repo.close()
