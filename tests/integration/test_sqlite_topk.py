"""Current search on SQLite ranks a question's phrases with early stopping (MaxScore over FTS5,
``ryvem.adapters.sqlite.topk``): it must give exactly the rows, ranks and order of the single
``OR`` query it replaces — on a real store with common, middling and rare words, duplicate
texts (ties), superseded rows, and kind and scope filters — and it must actually stop early."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ryvem.adapters.sqlite import SqliteRepository, topk
from ryvem.adapters.sqlite.repository import _fts_phrases
from ryvem.application.service import NewNode, Service
from ryvem.domain.scopes import ALL_SCOPES, ScopeFilter
from ryvem.domain.search import parse_search

COMMON = ["page", "note", "space", "server", "query"]  # each in most rows
MIDDLING = [f"mid{w}" for w in "abcdefghij"]  # a few percent each
RARE = [f"rare{w}" for w in "abcdefghijklmnop"]  # a handful of rows each
ROWS = 3000
# the module-scoped store is read, never written, by every example
_SHARED_STORE = [HealthCheck.function_scoped_fixture]

QUESTIONS = [
    "page note rarea",  # one rare word among common ones: stops in round one
    "how does the server query the space for rareb and midc",
    "page space server",  # only common words
    "midd mide page",
    "rarec rared rarec page",
    "note midf* space",  # a prefix
    '"page note" rarea server',  # a quoted phrase
    "raree",  # one phrase: one query
    "midg page query note space server midh midi",
]


def _texts(rng: random.Random) -> Iterator[str]:
    for _ in range(ROWS):
        words = [w for w in COMMON if rng.random() < 0.7]
        words += [w for w in MIDDLING if rng.random() < 0.04]
        words += [w for w in RARE if rng.random() < 0.003]
        words += ["filler"] * rng.randint(0, 30)
        rng.shuffle(words)
        yield " ".join(words)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqliteRepository]:
    path = tmp_path_factory.mktemp("topk") / "m.db"
    repo = SqliteRepository.open(path)
    rng = random.Random(7)
    texts = list(_texts(rng))
    nodes = [
        NewNode(kind="note" if i % 3 else "decision", title=text[:40], key=f"k{i}",
                scope="global" if i % 2 else "repo:app", body=text)
        for i, text in enumerate(texts)
    ]
    service = Service(repo)
    for start in range(0, len(nodes), 500):
        service.write_many(nodes[start:start + 500])
    # ties: the same text twice more; history: a tenth of the rows superseded
    service.write_many([NewNode(kind="note", title=texts[0][:40], key=f"dup{i}",
                                scope="global", body=texts[0]) for i in range(2)])
    service.write_many([NewNode(kind=n.kind, title=n.title, key=n.key, scope=n.scope,
                                body=n.body + " rarep") for n in nodes[::10]])
    # and a third generation, so that a past instant sees neither the first nor the last
    service.write_many([NewNode(kind=n.kind, title=n.title, key=n.key, scope=n.scope,
                                body=n.body + " rareo") for n in nodes[::7]])
    yield repo
    repo.close()


def _single_query(conn: sqlite3.Connection, text: str, limit: int, *, kinds: tuple[str, ...] = (),
                  scope: str | None = None) -> list[tuple[str, float]]:
    """The ranking before early stopping: one OR query, every match scored."""
    match = " OR ".join(_fts_phrases(parse_search(text)))
    sql = ("SELECT n.id, bm25(nodes_fts, 4.0, 2.0, 1.0) AS rank FROM nodes_fts "
           "JOIN nodes n ON n.seq = nodes_fts.rowid WHERE nodes_fts MATCH ? "
           "AND n.valid_to IS NULL")
    params: list[object] = [match]
    if kinds:
        sql += f" AND n.kind IN ({','.join('?' * len(kinds))})"
        params += list(kinds)
    if scope is not None:
        sql += " AND n.scope = ?"
        params.append(scope)
    sql += " ORDER BY rank, n.seq DESC LIMIT ?"
    return [(r[0], round(-r[1], 6)) for r in conn.execute(sql, [*params, limit])]


def _search(repo: SqliteRepository, text: str, limit: int, *, kinds: tuple[str, ...] = (),
            scope: str | None = None, as_of: int | None = None) -> list[tuple[str, float]]:
    where = ALL_SCOPES if scope is None else ScopeFilter(exact=scope)
    hits = repo.search(parse_search(text), kinds, where, limit, as_of)
    return [(h.id, h.score) for h in hits]


def _single_past_query(conn: sqlite3.Connection, text: str, limit: int,
                       as_of: int) -> list[tuple[str, float]]:
    """As-of search before early stopping: one OR query over every version's text."""
    match = " OR ".join(_fts_phrases(parse_search(text)))
    rows = conn.execute(
        "SELECT n.id, bm25(nodes_fts_all, 4.0, 2.0, 1.0) AS rank FROM nodes_fts_all "
        "JOIN nodes n ON n.seq = nodes_fts_all.rowid WHERE nodes_fts_all MATCH ? "
        "AND n.valid_from <= ? AND (n.valid_to IS NULL OR n.valid_to > ?) "
        "ORDER BY rank, n.seq DESC LIMIT ?", (match, as_of, as_of, limit))
    return [(r[0], round(-r[1], 6)) for r in rows]


@pytest.mark.parametrize("limit", [1, 5, 20, 60])
def test_current_search_gives_the_rows_ranks_and_order_of_the_single_or_query(
    store: SqliteRepository, tmp_path: Path, limit: int
) -> None:
    conn = sqlite3.connect(store.location)
    for text in QUESTIONS:
        assert _search(store, text, limit) == _single_query(conn, text, limit), text


def test_kind_and_scope_filters_give_the_filtered_single_queries_answer(
    store: SqliteRepository,
) -> None:
    conn = sqlite3.connect(store.location)
    for text in QUESTIONS:
        assert _search(store, text, 20, kinds=("decision",)) == _single_query(
            conn, text, 20, kinds=("decision",)), text
        assert _search(store, text, 20, scope="repo:app") == _single_query(
            conn, text, 20, scope="repo:app"), text


def test_as_of_search_gives_the_single_past_querys_answer_at_every_generation(
    store: SqliteRepository,
) -> None:
    conn = sqlite3.connect(store.location)
    starts = sorted({r[0] for r in conn.execute("SELECT valid_from FROM nodes")})
    second = conn.execute(
        "SELECT min(valid_from) FROM nodes WHERE body LIKE '%rarep'").fetchone()[0]
    for as_of in (starts[len(starts) // 2], second, starts[-1]):
        for text in [*QUESTIONS, "rarep page note", "rareo rarep space"]:
            assert _search(store, text, 20, as_of=as_of) == _single_past_query(
                conn, text, 20, as_of), (text, as_of)


def test_equal_scores_come_newest_first_as_before(store: SqliteRepository) -> None:
    conn = sqlite3.connect(store.location)
    first = conn.execute("SELECT body FROM nodes WHERE key = 'dup0'").fetchone()[0]
    text = " ".join(dict.fromkeys(first.split()))
    found = _search(store, text + " rarea", 5)
    assert found == _single_query(conn, text + " rarea", 5)
    assert [h[0] for h in found][:3] == [h[0] for h in _single_query(conn, text, 3)]


def test_the_ranking_stops_early_and_never_runs_the_whole_or_query_when_it_can(
    store: SqliteRepository,
) -> None:
    """Which rounds each question took: the early stop is taken (in round one and in round
    two) and the single OR query over every phrase is then never run."""
    conn = sqlite3.connect(store.location)
    rounds = {}
    for text in QUESTIONS:
        phrases = _fts_phrases(parse_search(text))
        everything = " OR ".join(phrases)
        top, ran = _top_k_asked(conn, phrases)
        assert [(r, round(s, 6)) for r, s in top] == [
            (r, round(s, 6)) for r, s in _rank(conn, everything, 20)], text
        rounds[text] = 0 if everything in ran else (len(ran) + 1) // 2
    assert rounds["page note rarea"] == 1
    assert 2 in rounds.values()
    assert rounds["raree"] == 0  # one phrase: the single query


@pytest.mark.parametrize("text", [
    "nowhere page rarea note midb",  # a word and neighbouring-word phrases no row holds
    "nowhere raree",  # only one phrase any row holds
    "nowhere elsewhere",  # none
])
def test_a_phrase_no_row_holds_is_never_asked_of_fts5_and_the_answer_is_the_single_querys(
    store: SqliteRepository, text: str
) -> None:
    """A question's phrases held by no row (a word the store never saw, or two neighbouring
    words never side by side: "page rarea") add 0.0 to every score, so the ranking leaves
    them out of every FTS5 query it runs, and still answers to the last bit what the single
    query over every phrase answers."""
    conn = sqlite3.connect(store.location)
    phrases = _fts_phrases(parse_search(text))
    absent = [p for p in phrases if not conn.execute(
        "SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?", (p,)).fetchone()[0]]
    assert '"nowhere"' in absent and len(absent) >= 2
    top, asked = _top_k_asked(conn, phrases)
    assert top == _rank(conn, " OR ".join(phrases), 20)  # bit for bit, not rounded
    assert not [q for q in asked for p in absent if p in q], asked
    assert _search(store, text, 20) == _single_query(conn, text, 20)


def _rank(conn: sqlite3.Connection, match: str, limit: int) -> list[tuple[int, float]]:
    return conn.execute(
        "SELECT rowid, bm25(nodes_fts, 4.0, 2.0, 1.0) AS rank FROM nodes_fts "
        "WHERE nodes_fts MATCH ? ORDER BY rank, rowid DESC LIMIT ?", (match, limit)
    ).fetchall()


def _top_k_asked(
    conn: sqlite3.Connection, phrases: list[str], limit: int = 20
) -> tuple[list[tuple[int, float]], list[str]]:
    """``topk.top_k`` over the store's own statements, and every FTS5 query it ran."""
    ran: list[str] = []

    def rank(match: str, k: int) -> list[tuple[int, float]]:
        ran.append(match)
        return _rank(conn, match, k)

    def count(phrase: str) -> int:
        return int(conn.execute(
            "SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?", (phrase,)
        ).fetchone()[0])

    top = topk.top_k(
        phrases, limit, rank=rank, count=count,
        rows=lambda: conn.execute("SELECT count(*) FROM nodes_fts_docsize").fetchone()[0],
        exact=lambda seqs: topk.exact_ranks(phrases, _texts_of(conn, seqs),
                                            _averages(conn), count),
    )
    return top, ran


def _texts_of(conn: sqlite3.Connection, seqs: list[int]) -> list[tuple[int, str, str, str]]:
    return [(s, *conn.execute("SELECT title, key, body FROM nodes WHERE seq = ?",
                              (s,)).fetchone()) for s in seqs]


def _averages(conn: sqlite3.Connection) -> bytes:
    return bytes(conn.execute("SELECT block FROM nodes_fts_data WHERE id = 1").fetchone()[0])


@settings(max_examples=60, deadline=None, suppress_health_check=_SHARED_STORE)
@given(
    words=st.lists(st.sampled_from(COMMON + MIDDLING + RARE + ["filler", "nowhere"]),
                   min_size=1, max_size=9),
    limit=st.integers(min_value=1, max_value=40),
)
# Found by this test: two rows whose scores differ in the last bit of FTS5's sum. One holds
# "rareh", the other "query midj", each in one row, so both add the same value, at another
# place in the single query's sum; early stopping summed them alike.
@example(words=["query", "midj", "rareh", "page"], limit=13)
def test_any_question_of_store_words_ranks_as_the_single_query_does(
    store: SqliteRepository, words: list[str], limit: int
) -> None:
    conn = sqlite3.connect(store.location)
    text = " ".join(words)
    assert _search(store, text, limit) == _single_query(conn, text, limit)


@settings(max_examples=150, deadline=None, suppress_health_check=_SHARED_STORE)
@given(text=st.text(max_size=40))
def test_hostile_text_beside_common_words_never_errors_and_ranks_as_the_single_query(
    store: SqliteRepository, text: str
) -> None:
    """Quotes, stars, brackets, FTS5 operators and stray Unicode, among words common enough
    that the early-stopping path runs."""
    conn = sqlite3.connect(store.location)
    for question in (f"page note {text}", f'{text} "server" spa* rarea'):
        assert _search(store, question, 20) == _single_query(conn, question, 20)


def _word_store(path: Path) -> tuple[SqliteRepository, Service]:
    """4,500 rows: "beta" in about two thirds of them (so its idf is FTS5's floor), "alpha"
    in 45 others: more hits in all than the ranking's one-query threshold (topk._SMALL), so it
    can stop early."""
    repo = SqliteRepository.open(path)
    service = Service(repo)
    service.write_many([
        NewNode(kind="note", title=f"row {i}", key=f"k{i}", scope="global",
                body=" ".join(["beta"] * (i % 3 != 0 and i % 100 != 0) + ["alpha"] * (i % 100 == 0)
                              + ["filler"] * (i % 7)))
        for i in range(4500)
    ])
    return repo, service


def _assert_beta_rows_lead(repo: SqliteRepository, conn: sqlite3.Connection) -> None:
    """The search gives the single query's answer, led by a row holding "beta": now rare, it
    outranks alpha, which only the new counts allow."""
    after = _search(repo, "alpha beta", 5)
    assert after == _single_query(conn, "alpha beta", 5)
    beta = {r[0] for r in conn.execute(
        "SELECT n.id FROM nodes_fts JOIN nodes n ON n.seq = nodes_fts.rowid "
        "WHERE nodes_fts MATCH 'beta' AND n.valid_to IS NULL")}
    assert after[0][0] in beta


def test_a_write_between_two_searches_gives_the_second_the_new_counts_and_answer(
    tmp_path: Path,
) -> None:
    repo, service = _word_store(tmp_path / "m.db")
    conn = sqlite3.connect(repo.location)
    assert _search(repo, "alpha beta", 5) == _single_query(conn, "alpha beta", 5)
    # "beta" leaves all but 20 rows: from worthless (in most rows) to the rarest phrase, so
    # its rows now outrank alpha's; a search still using the counts of before would stop
    # after alpha's rows
    service.write_many([
        NewNode(kind="note", title=f"row {i}", key=f"k{i}", scope="global", body="filler")
        for i in range(30, 4500) if i % 3 != 0 and i % 100 != 0
    ])
    _assert_beta_rows_lead(repo, conn)
    repo.close()


def test_a_searchs_phrase_counts_are_read_once_until_another_connection_commits(
    tmp_path: Path,
) -> None:
    repo, service = _word_store(tmp_path / "m.db")
    _search(repo, "alpha beta", 5)  # opens the search connection
    statements: list[str] = []
    repo._searcher().set_trace_callback(statements.append)

    def counts(text: str) -> int:
        statements.clear()
        _search(repo, text, 5)
        return sum("count(*) FROM nodes_fts WHERE nodes_fts MATCH" in s for s in statements)

    assert counts("alpha beta") == 0  # its three phrases counted by the first search
    assert counts("alpha beta filler") == 2  # only the new ones: filler, "beta filler"
    service.write("note", "one more", key="more", scope="global", body="alpha")
    assert counts("alpha beta") == 3  # a commit since: alpha, beta, "alpha beta" again
    repo.close()


def test_another_process_rewriting_the_counts_and_a_vacuum_between_searches_give_the_new_answer(
    tmp_path: Path,
) -> None:
    """The kept counts follow another process's commits, its checkpoints and its VACUUM."""
    import subprocess
    import sys

    repo, _ = _word_store(tmp_path / "m.db")
    conn = sqlite3.connect(repo.location)
    assert _search(repo, "alpha beta", 5) == _single_query(conn, "alpha beta", 5)
    writer = (
        "import sys\n"
        "from ryvem.adapters.sqlite import SqliteRepository\n"
        "from ryvem.application.service import NewNode, Service\n"
        "repo = SqliteRepository.open(sys.argv[1])\n"
        "Service(repo).write_many([NewNode(kind='note', title=f'row {i}', key=f'k{i}',\n"
        "    scope='global', body='filler') for i in range(30, 4500)\n"
        "    if i % 3 != 0 and i % 100 != 0])\n"
        "repo.scrub()\n"
        "repo.close()\n"
    )
    subprocess.run([sys.executable, "-c", writer, repo.location], check=True, timeout=120)
    _assert_beta_rows_lead(repo, conn)
    conn.close()
    repo.close()


@settings(max_examples=80, deadline=None, suppress_health_check=_SHARED_STORE)
@given(
    words=st.lists(st.sampled_from(COMMON + MIDDLING + RARE + ["filler", "nowhere"]),
                   min_size=1, max_size=9),
    picks=st.lists(st.integers(min_value=1, max_value=ROWS), min_size=1, max_size=25,
                   unique=True),
)
def test_exact_ranks_are_the_single_query_s_to_the_last_bit(
    store: SqliteRepository, words: list[str], picks: list[int]
) -> None:
    """What settles near ties: any current rows' ranks computed apart equal FTS5's own."""
    conn = sqlite3.connect(store.location)
    phrases = _fts_phrases(parse_search(" ".join(words)))
    if not phrases:
        return
    match = " OR ".join(phrases)
    want = dict(conn.execute(
        "SELECT rowid, bm25(nodes_fts, 4.0, 2.0, 1.0) FROM nodes_fts WHERE nodes_fts MATCH ?",
        (match,)).fetchall())
    seqs = [s for s in picks if s in want] or list(want)[:5]
    if not seqs:
        return

    def count(phrase: str) -> int:
        return int(conn.execute("SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?",
                                (phrase,)).fetchone()[0])

    got = topk.exact_ranks(phrases, _texts_of(conn, seqs), _averages(conn), count)
    assert got == {s: want[s] for s in seqs}
