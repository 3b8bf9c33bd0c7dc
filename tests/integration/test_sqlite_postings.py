"""Current search on SQLite ranks from postings held in memory once a store handle has read a
question's common phrases (``ryvem.adapters.sqlite.postings``): it must give exactly the rows,
scores and order of FTS5's single ``OR`` query — with kind and scope filters, and after rows
are added, superseded, retired and forgotten by another handle — and it must really answer
from memory, not fall back to FTS5 (the fallback is switched off where that is asserted)."""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ryvem.adapters.sqlite import SqliteRepository, postings
from ryvem.adapters.sqlite import repository as sqlite_repository
from ryvem.adapters.sqlite.postings import CACHED_FROM, Version, varints
from ryvem.adapters.sqlite.repository import _fts_phrases
from ryvem.application.service import NewNode, Service
from ryvem.domain.scopes import ALL_SCOPES, ScopeFilter
from ryvem.domain.search import parse_search

pytest.importorskip("numpy", reason="postings in memory need numpy (the semantic extra)")

COMMON = ["page", "note", "space", "server", "query"]  # each in most rows
MIDDLING = [f"mid{w}" for w in "abcdefgh"]
RARE = [f"rare{w}" for w in "abcdefgh"]
ROWS = 2400

QUESTIONS = [
    "page note rarea",
    "how does the server query the space for rareb and midc",
    "page space server",
    "midd mide page",
    "rarec rared rarec page",
    "note midf* space",
    '"page note" rarea server',
    "server",
    "midg page query note space server midh",
    "the pages of servers and their queries",  # other forms of kept words
]
FILTERS: list[tuple[tuple[str, ...], ScopeFilter]] = [
    ((), ALL_SCOPES),
    (("decision",), ALL_SCOPES),
    ((), ScopeFilter(exact="repo:app")),
    (("note",), ScopeFilter(shape="repo")),
    ((), ScopeFilter(shape="global")),
]


def _text(rng: random.Random) -> str:
    words = [w for w in COMMON if rng.random() < 0.7]
    words += [w for w in MIDDLING if rng.random() < 0.05]
    words += [w for w in RARE if rng.random() < 0.004]
    words += ["filler"] * rng.randint(0, 25)
    rng.shuffle(words)
    return " ".join(words)


def _node(i: int, text: str) -> NewNode:
    return NewNode(kind="note" if i % 3 else "decision", title=text[:30], key=f"k{i}",
                   scope="global" if i % 2 else "repo:app", body=text)


@pytest.fixture(params=["read inline", "read by the filler"])
def store(request: pytest.FixtureRequest, tmp_path: Path,
          monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[SqliteRepository, Service, Path]]:
    """A store of common, middling and rare words. Its common words are held by about 1,700
    rows, so a search reads them itself ("read inline"); with the inline bound at 0 every
    one is left to the background filler, as a store of 100,000 rows does its commonest."""
    if request.param == "read by the filler":
        monkeypatch.setattr(postings, "INLINE_MAX", 0)
    path = tmp_path / "p.db"
    repo = SqliteRepository.open(path)
    rng = random.Random(5)
    nodes = [_node(i, _text(rng)) for i in range(ROWS)]
    service = Service(repo)
    for start in range(0, ROWS, 600):
        service.write_many(nodes[start:start + 600])
    # ties: the same text under three keys
    service.write_many([NewNode(kind="note", title="page note", key=f"dup{i}", scope="global",
                                body="page note server") for i in range(3)])
    yield repo, service, path
    repo.close()


def _fts5(path: Path, phrases: list[str], kinds: tuple[str, ...], scope: ScopeFilter,
          limit: int) -> list[tuple[str, float]]:
    """FTS5's own answer: one OR query, every match scored, on a connection of its own."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT n.id, n.kind, n.scope, bm25(nodes_fts, 4.0, 2.0, 1.0) AS rank "
            "FROM nodes_fts JOIN nodes n ON n.seq = nodes_fts.rowid "
            "WHERE nodes_fts MATCH ? ORDER BY rank, n.seq DESC",
            (" OR ".join(phrases),),
        ).fetchall()
    finally:
        conn.close()
    kept = [(r[0], round(-r[3], 6)) for r in rows
            if (not kinds or r[1] in kinds) and scope.matches(r[2])]
    return kept[:limit]


def _answers(repo: SqliteRepository, path: Path) -> list[tuple[str, object, object]]:
    """Every question under every filter, as searched and as FTS5 ranks it; mismatches."""
    wrong = []
    for text in QUESTIONS:
        for kinds, scope in FILTERS:
            for limit in (1, 7, 20):
                got = [(h.id, h.score) for h in repo.search(parse_search(text), kinds, scope,
                                                            limit, None)]
                want = _fts5(path, _fts_phrases(parse_search(text)), kinds, scope, limit)
                if got != want:
                    wrong.append((text, got[:3], want[:3]))
    return wrong


def _warm(repo: SqliteRepository, path: Path) -> None:
    for text in QUESTIONS:
        repo.search(parse_search(text), (), ALL_SCOPES, 5, None)
    assert repo.settle()
    # the search that takes in what the filler read answers from it, exactly
    text = QUESTIONS[2]
    with pytest.MonkeyPatch.context() as m:
        m.setattr(sqlite_repository, "_ranked_rows", _refuse)
        got = [(h.id, h.score) for h in repo.search(parse_search(text), (), ALL_SCOPES, 5,
                                                    None)]
    assert got == _fts5(path, _fts_phrases(parse_search(text)), (), ALL_SCOPES, 5)
    assert got


def _refuse(*args: object, **kwargs: object) -> object:
    raise AssertionError("ranked on FTS5, not from the postings in memory")


def _row_reads(repo: SqliteRepository,
               monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, bool]]:
    """From now on, each time rows are made into arrays: how many, and whether the search's
    lock was held meanwhile."""
    reads: list[tuple[int, bool]] = []
    convert = postings._row_arrays

    def spy(rows: list[object], windows: bool) -> object:
        reads.append((len(rows), repo._search_lock.locked()))
        return convert(rows, windows)  # type: ignore[arg-type]

    monkeypatch.setattr(postings, "_row_arrays", spy)
    return reads


def _redact_elsewhere(path: Path, word: str) -> None:
    """Forget ``word`` everywhere through another handle of the store."""
    writer = SqliteRepository.open(path)
    try:
        Service(writer).redact(word, all_scopes=True, reason="test: a pasted word",
                               force=True)
    finally:
        writer.close()


def _from_memory(monkeypatch: pytest.MonkeyPatch, wrong: Callable[[], list[object]]) -> None:
    """``wrong()`` (the mismatches against FTS5) is empty with FTS5's ranking refused."""
    with monkeypatch.context() as m:
        m.setattr(sqlite_repository, "_ranked_rows", _refuse)
        assert wrong() == []


def test_the_common_phrases_of_a_question_are_kept_in_memory_after_it_is_asked(
    store: tuple[SqliteRepository, Service, Path],
) -> None:
    repo, _, path = store
    _warm(repo, path)
    kept = set(repo._postings.postings)
    assert {repo._postings._key(f'"{w}"') for w in COMMON} <= kept  # "query" as "queri"
    assert not any(p.startswith('"rare') for p in kept)  # rare phrases: one cheap query each
    assert all(len(idx) >= CACHED_FROM for idx, _ in repo._postings.postings.values())


def test_a_search_from_memory_ranks_exactly_as_fts5_does_under_every_filter(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, _, path = store
    _warm(repo, path)
    monkeypatch.setattr(sqlite_repository, "_ranked_rows", _refuse)
    assert _answers(repo, path) == []


def test_searches_from_memory_stay_exact_while_another_handle_writes(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, _, path = store
    _warm(repo, path)
    writer = SqliteRepository.open(path)
    service = Service(writer)
    rng = random.Random(9)
    try:
        for round_ in range(4):
            # new rows holding the common words (read apart, by the private table) ...
            service.write_many([_node(ROWS + 100 * round_ + i, _text(rng)) for i in range(40)])
            # ... superseded rows (a new text under the same key) and retired ones
            service.write_many([_node(i, _text(rng) + " midh")
                                for i in rng.sample(range(ROWS), 120)])
            for hit in writer.search(parse_search("filler"), (), ALL_SCOPES, 15, None):
                service.retire(hit.id)
            _from_memory(monkeypatch, lambda: _answers(repo, path))
        # more closed rows than are ever checked one by one: every indexed seq read again
        service.write_many([_node(i, _text(rng)) for i in range(0, ROWS, 2)])
        _from_memory(monkeypatch, lambda: _answers(repo, path))
    finally:
        writer.close()


def test_a_forgotten_word_is_not_found_from_memory_and_the_rest_stays_exact(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, _, path = store
    _warm(repo, path)
    _redact_elsewhere(path, "space")
    reads = _row_reads(repo, monkeypatch)
    assert repo.search(parse_search("space"), (), ALL_SCOPES, 20, None) == []
    _warm(repo, path)
    assert _answers(repo, path) == []
    assert '"space"' not in repo._postings.postings
    # every row is read again after the forget, by the filler, not under the search's lock
    assert [locked for n, locked in reads if n >= ROWS] == [False]


def test_a_phrase_whose_scores_do_not_read_back_is_ranked_by_a_query_of_its_own(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, _, path = store
    monkeypatch.setattr(postings, "_weights", lambda *args: None)  # every check fails
    for text in QUESTIONS:
        repo.search(parse_search(text), (), ALL_SCOPES, 5, None)
    assert repo.settle()
    repo.search(parse_search(QUESTIONS[0]), (), ALL_SCOPES, 5, None)
    cache = repo._postings
    assert not cache.postings  # nothing kept ...
    assert cache._key('"page"') in cache.refused
    assert not cache.asked  # ... and nothing asked again
    monkeypatch.setattr(sqlite_repository, "_ranked_rows", _refuse)
    assert _answers(repo, path) == []  # still answered exactly, without FTS5's ranking


def test_other_forms_of_a_word_share_what_is_kept_of_it(
    store: tuple[SqliteRepository, Service, Path],
) -> None:
    repo, _, path = store
    _warm(repo, path)
    cache = repo._postings
    assert cache._key('"pages"') == cache._key('"page"') == '"page"'
    assert cache._key('"servers"') == '"server"'
    assert cache._key('"page note"') == '"page note"'  # a phrase of two words: itself
    assert cache._key('"page"*') == '"page"*'  # a prefix: itself
    assert sum(1 for k in cache.postings if k == '"page"') == 1


def test_the_store_s_common_words_are_read_ahead_without_being_asked(tmp_path: Path) -> None:
    repo = SqliteRepository.open(tmp_path / "a.db")
    try:
        rng = random.Random(3)
        Service(repo).write_many([_node(i, _text(rng)) for i in range(ROWS)])
        repo.search(parse_search("rarea"), (), ALL_SCOPES, 5, None)
        assert repo.settle()
        repo.search(parse_search("rareb"), (), ALL_SCOPES, 5, None)  # takes in the reads
        kept = set(repo._postings.postings)
        assert {repo._postings._key(f'"{w}"') for w in [*COMMON, "filler"]} <= kept
        assert not kept & {'"the"', '"of"'}  # stop words are never asked alone
    finally:
        repo.close()


def test_a_phrase_read_in_a_later_snapshot_than_a_search_waits_for_a_later_search() -> None:
    read_at = Version(mark=0, newest=100, closed=10)
    assert read_at.not_after(Version(mark=0, newest=100, closed=10))
    assert read_at.not_after(Version(mark=0, newest=120, closed=12))
    assert not read_at.not_after(Version(mark=0, newest=99, closed=10))  # rows added since
    assert not read_at.not_after(Version(mark=0, newest=100, closed=9))  # rows closed since
    assert not read_at.not_after(Version(mark=1, newest=120, closed=12))  # a forget since


def test_new_rows_are_tokenized_apart_as_the_store_tokenizes_them() -> None:
    from ryvem.adapters.sqlite import queries

    migration = queries.load("migration_002_porter_text")
    assert f"tokenize='{postings.TOKENIZE}'" in migration


def test_varints_are_read_as_sqlite_writes_them() -> None:
    assert varints(bytes([0x04, 0x01, 0x6D])) == [4, 1, 109]
    assert varints(bytes([0x86, 0x8D, 0x20])) == [100_000]
    assert varints(bytes([0x81, 0x00, 0x7F])) == [128, 127]
    assert varints(b"") == []


def test_closing_the_store_stops_its_background_reader(tmp_path: Path) -> None:
    repo = SqliteRepository.open(tmp_path / "c.db")
    Service(repo).write_many([_node(i, "page note") for i in range(CACHED_FROM + 10)])
    others = set(threading.enumerate())  # another test's store may still have its own
    repo.search(parse_search("page note"), (), ALL_SCOPES, 5, None)
    mine = [t for t in threading.enumerate() if t not in others and t.name == "ryvem-postings"]
    repo.close()
    assert mine
    assert not any(t.is_alive() for t in mine)


# --- as-of search: postings of every version's text -----------------------------------------


def _fts5_as_of(path: Path, phrases: list[str], kinds: tuple[str, ...], scope: ScopeFilter,
                limit: int, as_of: int | None, known_at: int | None) -> list[tuple[str, float]]:
    """FTS5's own answer over every version's text, every match scored, the window tested
    here in Python from its definition (visible at ``as_of`` as known at ``known_at``)."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT n.id, n.kind, n.scope, n.valid_from, n.valid_to, n.recorded_at, "
            "n.closure_recorded_at, bm25(nodes_fts_all, 4.0, 2.0, 1.0) AS rank "
            "FROM nodes_fts_all JOIN nodes n ON n.seq = nodes_fts_all.rowid "
            "WHERE nodes_fts_all MATCH ? ORDER BY rank, n.seq DESC",
            (" OR ".join(phrases),),
        ).fetchall()
    finally:
        conn.close()

    def visible(begun: int, ended: int | None, recorded: int, end_recorded: int | None) -> bool:
        if known_at is not None and recorded > known_at:
            return False  # not yet recorded
        if as_of is not None and begun > as_of:
            return False  # not yet true
        return (ended is None or (as_of is not None and ended > as_of)
                or (known_at is not None and end_recorded is not None
                    and end_recorded > known_at))

    kept = [(r[0], round(-r[7], 6)) for r in rows
            if (not kinds or r[1] in kinds) and scope.matches(r[2]) and visible(*r[3:7])]
    return kept[:limit]


def _instant(path: Path) -> int:
    """The store's latest instant on either clock: what a write's "now" was."""
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute(
            "SELECT max(max(recorded_at), coalesce(max(closure_recorded_at), 0)) FROM nodes"
        ).fetchone()[0])
    finally:
        conn.close()


def _write_history(service: Service, path: Path, rng: random.Random, start: int,
                   rounds: int = 2) -> list[int]:
    """Rounds of new rows, supersedes (a new text under an old key) and retirements; the
    instant after each round."""
    instants = []
    for round_ in range(rounds):
        service.write_many([_node(start + 100 * round_ + i, _text(rng)) for i in range(30)])
        service.write_many([_node(i, _text(rng) + " midh") for i in rng.sample(range(ROWS), 90)])
        for hit in service.repo.search(parse_search("filler"), (), ALL_SCOPES, 10, None):
            service.retire(hit.id)
        instants.append(_instant(path))
    return instants


def _whens(instants: list[int]) -> list[tuple[int | None, int | None]]:
    """(as_of, known_at) pairs over a store's history: each clock alone, both (a later time
    as known earlier, too: closures recorded since do not count), and before anything was
    written."""
    first, last = instants[0], instants[-1]
    middle = instants[len(instants) // 2]
    return [(first, None), (middle, None), (last, None), (None, first), (None, middle),
            (first, middle), (middle, last), (last, first), (last, middle),
            (first - 10**9, None)]


def _answers_as_of(repo: SqliteRepository, path: Path,
                   whens: list[tuple[int | None, int | None]]) -> list[tuple[object, ...]]:
    wrong = []
    for text in QUESTIONS[::2]:
        for kinds, scope in FILTERS:
            for limit in (1, 20):
                for as_of, known_at in whens:
                    got = [(h.id, h.score) for h in repo.search(
                        parse_search(text), kinds, scope, limit, as_of, known_at)]
                    want = _fts5_as_of(path, _fts_phrases(parse_search(text)), kinds, scope,
                                       limit, as_of, known_at)
                    if got != want:
                        wrong.append((text, kinds, as_of, known_at, got[:3], want[:3]))
    return wrong


def _warm_as_of(repo: SqliteRepository, when: int) -> None:
    for text in QUESTIONS:
        repo.search(parse_search(text), (), ALL_SCOPES, 5, when)
    assert repo.settle()
    repo.search(parse_search(QUESTIONS[2]), (), ALL_SCOPES, 5, when)  # takes in the reads


def test_a_search_as_of_a_past_instant_ranks_from_memory_exactly_as_fts5_does(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, service, path = store
    instants = [_instant(path), *_write_history(service, path, random.Random(11), ROWS)]
    _warm_as_of(repo, instants[0])
    cache = repo._postings_all
    assert {cache._key(f'"{w}"') for w in COMMON} <= set(cache.postings)
    monkeypatch.setattr(sqlite_repository, "_ranked_rows", _refuse)
    assert _answers_as_of(repo, path, _whens(instants)) == []


def test_searches_as_of_stay_exact_while_another_handle_closes_and_adds_versions(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, _, path = store
    instants = [_instant(path)]
    _warm_as_of(repo, instants[0])
    writer = SqliteRepository.open(path)
    service = Service(writer)
    rng = random.Random(13)
    try:
        # closures the cache learns one candidate at a time (fewer than it checks singly)
        instants += _write_history(service, path, rng, ROWS, rounds=2)
        _from_memory(monkeypatch, lambda: _answers_as_of(repo, path, _whens(instants)))
        assert repo._postings_all.unresolved >= 0
        # more closures than it checks singly: every current seq read again
        service.write_many([_node(i, _text(rng)) for i in range(0, ROWS, 2)])
        instants.append(_instant(path))
        _from_memory(monkeypatch, lambda: _answers_as_of(repo, path, _whens(instants)))
        cache = repo._postings_all
        assert cache.open_count == len(repo._read("SELECT id FROM nodes_fts_docsize"))
    finally:
        writer.close()


def test_a_forgotten_word_is_not_found_as_of_any_time_from_memory(
    store: tuple[SqliteRepository, Service, Path],
) -> None:
    repo, service, path = store
    instants = [_instant(path), *_write_history(service, path, random.Random(17), ROWS, 1)]
    _warm_as_of(repo, instants[0])
    _redact_elsewhere(path, "space")
    for as_of, known_at in _whens(instants):
        assert repo.search(parse_search("space"), (), ALL_SCOPES, 20, as_of, known_at) == []
    assert _answers_as_of(repo, path, _whens(instants)) == []


def test_every_indexed_row_is_read_without_holding_the_search_s_lock(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reading every row's size, kind, scope (and window) takes about a second at 100,000
    rows: the filler reads them on its own connection before any phrase, so no search
    waits for it; a search (or an install) only brings those rows up to date."""
    repo, service, path = store
    reads = _row_reads(repo, monkeypatch)
    when = _instant(path)
    for as_of in (None, when):
        for text in QUESTIONS:
            repo.search(parse_search(text), (), ALL_SCOPES, 5, as_of)
    assert repo.settle()
    service.write_many([_node(ROWS + i, _text(random.Random(i))) for i in range(3)])
    for as_of in (None, when):
        repo.search(parse_search(QUESTIONS[0]), (), ALL_SCOPES, 5, as_of)
    assert [locked for n, locked in reads if n >= ROWS] == [False, False]  # both indexes
    assert all(n <= 3 for n, locked in reads if locked)  # the new rows, under the lock
    assert _answers(repo, path) == []


# --- what a warmed process keeps in the store for the next one (migration_008) -----------
def _kept(path: Path, timeout: float = 20.0, keys: int = 1) -> int:
    """Wait until the store holds kept rows and at least ``keys`` kept phrases; how many."""
    deadline = time.monotonic() + timeout
    while True:
        conn = sqlite3.connect(path)
        try:
            rows = conn.execute("SELECT count(*) FROM text_rows_kept").fetchone()[0]
            n = conn.execute("SELECT count(*) FROM text_postings_kept").fetchone()[0]
        finally:
            conn.close()
        if (rows and n >= keys) or time.monotonic() > deadline:
            return int(n) if rows else 0
        time.sleep(0.05)


def _kept_keys(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT key FROM text_postings_kept")}
    finally:
        conn.close()


def _new_process_answers(path: Path, monkeypatch: pytest.MonkeyPatch, *,
                         from_memory: bool) -> Version | None:
    """A new handle (as a new process opens the store), its filler's reading held back the
    whole time, answers every question exactly as FTS5 does from its very first search —
    with FTS5's ranking switched off when ``from_memory``; what it started from (its cache's
    ``kept``: None when it started from nothing kept)."""
    fresh = SqliteRepository.open(path)
    try:
        with monkeypatch.context() as m:
            m.setattr(postings.Filler, "_run", lambda self: None)  # nothing read behind
            if from_memory:
                m.setattr(sqlite_repository, "_ranked_rows", _refuse)
            assert _answers(fresh, path) == []
        kept: Version | None = fresh._postings.kept
        return kept
    finally:
        fresh.close()


def _first_search_from_what_was_kept(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _new_process_answers(path, monkeypatch, from_memory=True) is not None


def _warmed_and_kept(store: tuple[SqliteRepository, Service, Path]) -> Path:
    """The store's handle warmed up, and what it keeps in the store there."""
    repo, _, path = store
    _warm(repo, path)
    assert _kept(path, keys=len(COMMON)) >= len(COMMON)
    return path


def test_a_new_process_ranks_its_first_questions_from_what_a_warmed_one_kept(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, _, path = store
    _warm(repo, path)
    assert _kept(path, keys=len(COMMON)) >= len(COMMON)
    assert {repo._postings._key(f'"{w}"') for w in COMMON} <= _kept_keys(path)
    _first_search_from_what_was_kept(path, monkeypatch)


def test_what_was_kept_is_brought_up_to_date_after_other_handles_wrote(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, path = store[0], _warmed_and_kept(store)
    repo.close()  # the warmed process ends
    writer = SqliteRepository.open(path)
    service = Service(writer)
    rng = random.Random(11)
    try:
        service.write_many([_node(ROWS + i, _text(rng)) for i in range(60)])  # new rows
        service.write_many([_node(i, _text(rng) + " midh")  # superseded rows
                            for i in rng.sample(range(ROWS), 150)])
        for hit in writer.search(parse_search("filler"), (), ALL_SCOPES, 20, None):
            service.retire(hit.id)  # retired rows
    finally:
        writer.close()
    _first_search_from_what_was_kept(path, monkeypatch)


def test_phrases_asked_later_are_kept_beside_what_was_kept_before(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, service, path = store
    _warm(repo, path)
    assert _kept(path, keys=len(COMMON))
    before = _kept_keys(path)
    rng = random.Random(12)
    service.write_many([_node(ROWS + i, _text(rng)) for i in range(30)])  # the store moves on
    monkeypatch.setattr(postings, "INLINE_MAX", 0)  # read by the filler, then kept
    repo.search(parse_search("spa* note"), (), ALL_SCOPES, 5, None)  # a common prefix
    assert repo.settle()
    assert _kept(path, keys=len(before) + 1) == len(before) + 1
    assert _kept_keys(path) - before == {'"spa"*'}
    _first_search_from_what_was_kept(path, monkeypatch)
    fresh = SqliteRepository.open(path)
    try:
        with monkeypatch.context() as m:
            m.setattr(postings.Filler, "_run", lambda self: None)
            m.setattr(sqlite_repository, "_ranked_rows", _refuse)
            text = "spa* rarea"
            got = [(h.id, h.score) for h in fresh.search(parse_search(text), (), ALL_SCOPES,
                                                         20, None)]
        assert got == _fts5(path, _fts_phrases(parse_search(text)), (), ALL_SCOPES, 20)
    finally:
        fresh.close()


def test_a_forget_empties_what_was_kept_in_its_own_transaction(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, path = store[0], _warmed_and_kept(store)
    _redact_elsewhere(path, "space")
    assert _kept(path, timeout=0.0) == 0 and _kept_keys(path) == set()
    # the warmed handle never writes back what it read before the forget
    repo._keep_postings()
    assert _kept_keys(path) == set()
    fresh = SqliteRepository.open(path)
    try:
        assert fresh.search(parse_search("space"), (), ALL_SCOPES, 20, None) == []
        assert _answers(fresh, path) == []
    finally:
        fresh.close()


def test_what_was_kept_too_far_behind_the_store_is_not_used(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, path = store[0], _warmed_and_kept(store)
    repo.close()
    monkeypatch.setattr(postings, "DELTA_MAX", 10)
    rng = random.Random(13)
    writer = SqliteRepository.open(path)
    try:
        Service(writer).write_many([_node(ROWS + i, _text(rng)) for i in range(11)])
    finally:
        writer.close()
    assert _new_process_answers(path, monkeypatch, from_memory=False) is None  # on FTS5


def test_kept_rows_that_do_not_hold_together_are_ignored(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, path = store[0], _warmed_and_kept(store)
    repo.close()
    conn = sqlite3.connect(path)
    try:
        conn.execute("UPDATE text_rows_kept SET sizes = substr(sizes, 5)")  # a row short
        conn.commit()
    finally:
        conn.close()
    assert _new_process_answers(path, monkeypatch, from_memory=False) is None


def test_a_text_index_rebuild_drops_what_was_kept(
    store: tuple[SqliteRepository, Service, Path],
) -> None:
    repo, path = store[0], _warmed_and_kept(store)
    repo.rebuild_text_index()
    assert _kept(path, timeout=0.0) == 0


def test_warming_up_starts_from_what_was_kept_without_reading_every_row(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = _warmed_and_kept(store)
    fresh = SqliteRepository.open(path)
    try:
        reads = _row_reads(fresh, monkeypatch)
        fresh.warm(None)  # as ryvem-mcp does after the handshake
        assert fresh._postings.kept is not None
        monkeypatch.setattr(sqlite_repository, "_ranked_rows", _refuse)
        assert _answers(fresh, path) == []
        assert [n for n, _ in reads if n >= ROWS] == []  # no row read from the index
    finally:
        fresh.close()


def test_a_forgotten_common_word_is_in_no_byte_of_the_store_after_it_was_kept(
    store: tuple[SqliteRepository, Service, Path],
) -> None:
    repo, _, path = store
    _warm(repo, path)
    assert _kept(path, keys=len(COMMON)) and '"space"' in _kept_keys(path)
    repo.close()  # the warmed process ends; what it kept stays in the file
    _redact_elsewhere(path, "space")
    files = sorted(path.parent.glob(path.name + "*"))
    assert files and all(b"space" not in f.read_bytes() for f in files)


def test_a_process_started_from_what_was_kept_does_not_read_those_words_again(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = _warmed_and_kept(store)
    kept = _kept_keys(path)
    read: list[str] = []
    phrase_read = postings.Filler._read

    def spy(self: postings.Filler, conn: object, batch: list[str]) -> object:
        read.extend(batch)
        return phrase_read(self, conn, batch)  # type: ignore[arg-type]

    monkeypatch.setattr(postings.Filler, "_read", spy)
    fresh = SqliteRepository.open(path)
    try:
        fresh.warm(None)
        assert fresh.settle()
        assert not set(read) & kept  # read from FTS5 again: none of the kept words
        with monkeypatch.context() as m:
            m.setattr(sqlite_repository, "_ranked_rows", _refuse)
            assert _answers(fresh, path) == []
    finally:
        fresh.close()


def test_keeping_anew_keeps_the_words_an_earlier_process_kept_though_none_was_asked(
    store: tuple[SqliteRepository, Service, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, path = store[0], _warmed_and_kept(store)
    kept = _kept_keys(path)
    repo.close()
    monkeypatch.setattr(sqlite_repository, "_KEEP_BEHIND", 5)
    fresh = SqliteRepository.open(path)
    try:
        fresh.search(parse_search("rarea page"), (), ALL_SCOPES, 5, None)  # one word asked
        rng = random.Random(14)
        Service(fresh).write_many([_node(ROWS + i, _text(rng)) for i in range(8)])  # behind
        fresh.search(parse_search("rareb note"), (), ALL_SCOPES, 5, None)
        conn = sqlite3.connect(path)
        try:
            behind = conn.execute("SELECT newest FROM text_rows_kept").fetchone()[0]
        finally:
            conn.close()
        fresh._keep_postings()
        conn = sqlite3.connect(path)
        try:
            assert conn.execute("SELECT newest FROM text_rows_kept").fetchone()[0] > behind
        finally:
            conn.close()
        assert _kept_keys(path) >= kept  # written anew, every kept word in it
    finally:
        fresh.close()
    _first_search_from_what_was_kept(path, monkeypatch)
