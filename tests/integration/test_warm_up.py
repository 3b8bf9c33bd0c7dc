"""A long-lived face warms its store up before the first search (``Session.start_warming``,
``ports.WarmsUp``): the store opened, the model run once, the vectors and the lexical index's
common words read into memory — so the first search answers from memory, as the later ones
do. A store that cannot open is not reported by the warm-up but by the first call."""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from anyio.from_thread import start_blocking_portal

from conftest import unavailable
from integration.test_mcp_server import serve
from ryvem.adapters.sqlite import SqliteRepository, postings
from ryvem.adapters.sqlite import repository as sqlite_repository
from ryvem.adapters.sqlite.postings import CACHED_FROM
from ryvem.adapters.sqlite.repository import _fts_phrases
from ryvem.application.service import NewNode, Service
from ryvem.application.session import Session
from ryvem.domain.scopes import ALL_SCOPES
from ryvem.domain.search import parse_search
from ryvem.errors import RyvemError

np = pytest.importorskip("numpy", reason="postings and vectors in memory need numpy")

WORDS = ["page", "note", "space", "server"]
ROWS = 1600
MODEL = "test-model"
DIM = 8


def _text(rng: random.Random) -> str:
    words = [w for w in WORDS if rng.random() < 0.8] + ["filler"] * rng.randint(0, 12)
    words += [f"rare{rng.randint(0, 200)}"]
    rng.shuffle(words)
    return " ".join(words)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[SqliteRepository, Path]]:
    """A store whose four common words are each held by more than ``CACHED_FROM`` rows, every
    row with a vector of ``MODEL``."""
    path = tmp_path / "w.db"
    repo = SqliteRepository.open(path)
    rng = random.Random(7)
    Service(repo).write_many([
        NewNode(kind="note", title=f"row {i}", key=f"k{i}", scope="global", body=_text(rng))
        for i in range(ROWS)
    ])
    vectors = np.random.default_rng(3).standard_normal((ROWS, DIM)).astype("<f4")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    pending = repo.vector_backlog(ROWS)
    assert len(pending) == ROWS
    repo.put_vectors(MODEL, [(p, [vectors[i].tobytes()]) for i, p in enumerate(pending)])
    yield repo, path
    repo.close()


_READS_VECTORS = "v.vec_id >"  # vector_rows_after.sql: a cache reading the vectors it lacks


def _statements(repo: SqliteRepository) -> list[str]:
    """Every statement the store's own connection runs from now on (vector search's)."""
    seen: list[str] = []
    repo._conn.set_trace_callback(seen.append)
    return seen


def _fts5(path: Path, text: str, limit: int) -> list[tuple[str, float]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT n.id, bm25(nodes_fts, 4.0, 2.0, 1.0) AS rank FROM nodes_fts "
            "JOIN nodes n ON n.seq = nodes_fts.rowid WHERE nodes_fts MATCH ? "
            "ORDER BY rank, n.seq DESC LIMIT ?",
            (" OR ".join(_fts_phrases(parse_search(text))), limit),
        ).fetchall()
    finally:
        conn.close()
    return [(r[0], round(-r[1], 6)) for r in rows]


def _refuse(*args: object, **kwargs: object) -> object:
    raise AssertionError("ranked on FTS5: the words were not in memory")


def test_a_warmed_store_answers_its_first_search_of_common_words_from_memory(
    store: tuple[SqliteRepository, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, path = store
    monkeypatch.setattr(postings, "INLINE_MAX", 0)  # no search reads a common word itself
    repo.warm(None)
    assert repo.settle()
    monkeypatch.setattr(sqlite_repository, "_ranked_rows", _refuse)
    for text in ["page", "server note", "space page server note rare7", "notes of pages"]:
        got = [(h.id, h.score) for h in repo.search(parse_search(text), (), ALL_SCOPES, 10,
                                                    None)]
        assert got == _fts5(path, text, 10) and got, text


def test_without_warming_the_first_search_of_common_words_ranks_on_fts5(
    store: tuple[SqliteRepository, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The other side of the test above: what it shows is the warm-up's doing."""
    repo, _ = store
    monkeypatch.setattr(postings, "INLINE_MAX", 0)
    monkeypatch.setattr(sqlite_repository, "_ranked_rows", _refuse)
    with pytest.raises(AssertionError, match="ranked on FTS5"):
        repo.search(parse_search("page"), (), ALL_SCOPES, 10, None)


def test_a_warmed_store_s_first_vector_search_reads_no_vector(
    store: tuple[SqliteRepository, Path],
) -> None:
    repo, _ = store
    repo.warm(MODEL)
    seen = _statements(repo)
    query = (np.ones(DIM) / np.sqrt(DIM)).astype("<f4")
    hits = repo.vector_search(MODEL, query.tobytes(), [], ALL_SCOPES, 5)
    assert len(hits) == 5
    assert seen and not any(_READS_VECTORS in s for s in seen), seen


def test_a_cold_store_s_first_vector_search_reads_every_vector(
    store: tuple[SqliteRepository, Path],
) -> None:
    """The other side: a first vector search without the warm-up reads them all itself."""
    repo, _ = store
    seen = _statements(repo)
    query = (np.ones(DIM) / np.sqrt(DIM)).astype("<f4")
    repo.vector_search(MODEL, query.tobytes(), [], ALL_SCOPES, 5)
    assert any(_READS_VECTORS in s for s in seen), seen


def test_warming_a_store_that_cannot_open_is_silent_and_the_first_call_says_why(
    tmp_path: Path,
) -> None:
    (tmp_path / "not-a-db").write_text("this is not a database\n" * 100)
    session = Session(lambda: SqliteRepository.open(tmp_path / "not-a-db"),
                      embedder=lambda: "semantic search is off: test")
    session.start_warming()
    session._stop_warming()  # waits for it: it ended without raising anywhere
    with pytest.raises(RyvemError) as e:
        session.search("page")
    assert "\n" not in e.value.message
    assert (tmp_path / "not-a-db").read_text() == "this is not a database\n" * 100
    session.close()


def test_closing_a_session_while_it_warms_up_leaves_no_store_open(tmp_path: Path) -> None:
    opened: list[SqliteRepository] = []

    def opener() -> SqliteRepository:
        repo = SqliteRepository.open(tmp_path / "s.db")
        opened.append(repo)
        return repo

    session = Session(opener, embedder=lambda: "semantic search is off: test")
    session.start_warming()
    session.close()
    # the warm-up either opened the store before the close (which then closed it) or not at
    # all: never after it
    assert len(opened) <= 1
    assert session._repo is None
    for repo in opened:
        with pytest.raises(RyvemError):
            repo.stats()


def test_common_words_are_held_by_enough_rows_to_be_kept_in_memory(
    store: tuple[SqliteRepository, Path],
) -> None:
    """The fixture's premise, checked rather than assumed."""
    _, path = store
    conn = sqlite3.connect(path)
    try:
        for word in WORDS:
            [(n,)] = conn.execute("SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?",
                                  (word,)).fetchall()
            assert n >= CACHED_FROM, word
    finally:
        conn.close()


def test_the_real_model_runs_once_while_warming(tmp_path: Path) -> None:
    from ryvem.embedding import load_default, probe

    reason = probe()
    if reason is not None:
        unavailable(reason)
    runs: list[list[str]] = []
    embedder = load_default()
    assert embedder is not None
    real = embedder.embed

    def counted(texts: list[str]) -> object:
        runs.append(list(texts))
        return real(texts)

    embedder.embed = counted  # type: ignore[method-assign]  # counts the calls, runs the model
    session = Session(lambda: SqliteRepository.open(tmp_path / "m.db"), embedder=lambda: embedder)
    session.warm()
    assert len(runs) == 1
    assert session._repo is not None  # opened
    session.close()


def _pending(db: Path) -> int:
    repo = SqliteRepository.open(db)
    try:
        return repo.vector_pending()
    finally:
        repo.close()


def test_ryvem_mcp_warms_up_after_the_handshake_before_any_tool_call(tmp_path: Path) -> None:
    """Rows written before the server started wait for vectors. The server opens its store as
    soon as the host has finished the handshake, and its background embedder (which works
    only on an open store) embeds them — no tool call needed; before the warm-up they waited
    for the host's first call."""
    from ryvem.embedding import probe

    reason = probe()
    if reason is not None:
        unavailable(reason)
    db = tmp_path / "data" / "dev.db"
    db.parent.mkdir(mode=0o700)
    repo = SqliteRepository.open(db)
    try:
        Service(repo).write_many([
            NewNode(kind="decision", title=title, key=title.lower().replace(" ", "-"),
                    scope="global", body=title)
            for title in ["Keep sessions in signed cookies", "Checkout retries are safe"]
        ])
    finally:
        repo.close()
    assert _pending(db) == 2
    with start_blocking_portal() as portal, serve(portal, tmp_path, db.parent) as server:
        deadline = time.monotonic() + 60
        while _pending(db) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _pending(db) == 0
        hits = server.ok("memory_search", text="where do we keep who is logged in",
                         scope="global")["items"]
        assert hits[0]["title"] == "Keep sessions in signed cookies"
