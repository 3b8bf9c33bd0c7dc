"""FTS5's BM25 top *k* of an OR query, exactly, without scoring every matching row.

FTS5 answers ``a OR b OR c … ORDER BY bm25 LIMIT k`` by scoring **every** row that holds any
of the phrases (about 0.7 µs a row here: the score reads each row's size), then cutting at
*k*. A question made of one rare word and a few common ones pays for every row holding a
common word — most of the store. This module gets the same *k* rows, in the same order, by
scoring only the rows that can still make the cut (the MaxScore idea of Turtle & Flood,
1995, over FTS5 queries instead of posting lists):

* FTS5's score of a row is a sum over the query's phrases, ``idf(p) · f(p, row)``, where
  ``idf(p) = ln((N - df + ½) / (df + ½))`` (1e-6 when that is not positive) and ``f`` — the
  weighted hits over ``hits + k1·(1 - b + b·len/avglen)``, times ``k1 + 1`` — is always
  below ``k1 + 1``. So a row holding **only** phrases from a set *C* scores below
  ``Σ_{p∈C} idf(p)·(k1 + 1)``: *C*'s bound.
* Phrases are taken rarest first. The rows holding an *essential* phrase (one already
  taken) are ranked exactly by two small queries per round: ``(E')`` and
  ``(E') AND (C)``, where *E'* are the phrases taken this round and *C* those not yet
  taken. The idf of a phrase depends only on the phrase, so a row's score in either query
  is its full score when the row holds no phrase outside that query, and lower otherwise —
  keeping each row's best score over every query run gives every row of the true top *k*
  its exact score (a row of the true top *k* is in the top *k* of whichever query holds all
  its phrases), and no row more than its exact score.
* Once the *k*-th best score found is **above** the bound of the phrases not yet taken, no
  other row can reach it: the top *k* is final. Round one takes the rarest phrases until
  they hold *k* rows' worth of hits; round two takes just enough phrases for the bound to
  fall below round one's *k*-th score, so it always ends there.

* **Near ties are settled as FTS5 settles them.** A query that lists a row's phrases in
  another order than the single query sums the same values in another order, so a rank
  found can differ from FTS5's in its last bits — and FTS5 orders two rows that close by
  those bits (the same value held under a rare word in one row and a rare pair of words in
  the other is enough). When two rows of the answer, or its last and the next, are within
  float noise of each other, their ranks are computed as the single query computes them
  (:func:`exact_ranks`: their text indexed apart, ``bm25()``'s expression evaluated in the
  question's phrase order); a query whose last row is that close to the answer's last runs
  again with a larger limit first, for the rows tied with it that it left out.

The answer is FTS5's own ``ORDER BY rank, rowid DESC`` top *k*: ranks are FTS5's (summed
over the same phrases), ties newest first; ``tests/integration/test_sqlite_topk.py`` checks
it against the single query on stores built to make it stop early and late. A question of
one phrase, or whose phrases hold few rows, is one query as before.
"""

from __future__ import annotations

import itertools
import math
import sqlite3
from collections.abc import Callable, Sequence

__all__ = ["K1", "TOKENIZE", "B", "exact_ranks", "idf", "top_k", "varints"]

K1 = 1.2  # FTS5's bm25 k1 (fts5_aux.c); the score of one phrase is below idf · (K1 + 1)
B = 0.75  # and its b
TOKENIZE = "porter unicode61 remove_diacritics 2"  # nodes_fts's tokenizer (migration 002)
_MARGIN = 1.0001  # the bound is raised a little, so a float's last bits never decide
_SMALL = 2048  # phrases holding at most this many hits in all: one query, as before
_NOISE = 1e-12  # ranks this close (relative) may differ only by the order of a float sum
_SETTLE_MAX = 2048  # rows tied at the cut settled apart; more: the single query runs
_SPARE = 32  # rows each query returns beyond the limit (FTS5 scores every match anyway)

Ranked = tuple[int, float]  # (rowid, FTS5 rank: the negated score, lower is better)


def top_k(
    phrases: Sequence[str],
    limit: int,
    *,
    rank: Callable[[str, int], list[Ranked]],
    count: Callable[[str], int],
    rows: Callable[[], int],
    exact: Callable[[list[int]], dict[int, float] | None] | None = None,
) -> list[Ranked]:
    """The ``limit`` best ``(rowid, rank)`` of ``phrases`` OR-ed, best first, ties newest
    (highest rowid) first — what ``rank(" OR ".join(phrases), limit)`` returns.

    ``rank(match, k)`` runs FTS5 ``match`` and returns its best ``k`` as FTS5 orders them;
    ``count(phrase)`` is the number of indexed rows holding ``phrase`` (its df); ``rows()``
    the number of indexed rows (FTS5's N). All must read one snapshot. When two of the rows
    found score within float noise of each other, ``exact(rowids)`` gives their ranks as the
    single query computes them (:func:`exact_ranks`; None: it could not), and otherwise the
    single query runs."""
    if len(phrases) < 2 or limit <= 0:
        return rank(" OR ".join(phrases), limit)
    dfs = {p: count(p) for p in phrases}
    held = [p for p in phrases if dfs[p]]
    if len(held) < len(phrases):
        # A phrase no row holds adds exactly 0.0 to every row's score wherever it stands in
        # the sum, so leaving it out changes no rank, not even in its last bits; FTS5 would
        # still walk its words' positions in every query it is part of. (Often a question's
        # neighbouring-word phrases: "note gathers".)
        if len(held) < 2:
            return rank(" OR ".join(held), limit) if held else []
        phrases = held
    if sum(dfs[p] for p in phrases) <= max(_SMALL, 4 * limit):
        return rank(" OR ".join(phrases), limit)
    order = sorted(phrases, key=lambda p: dfs[p])
    n_rows = rows()
    bound = [0.0] * (len(order) + 1)  # bound[j]: the score bound of order[j:]
    for j in range(len(order) - 1, -1, -1):
        bound[j] = bound[j + 1] + idf(dfs[order[j]], n_rows) * (K1 + 1)

    best: dict[int, float] = {}
    cut_at: dict[str, float] = {}  # queries that returned ``limit`` rows: their last rank
    taken = 0
    threshold = 0.0  # the k-th best score found so far (0: fewer than k rows found)
    while True:
        if taken == 0:
            upto, hits = len(order), 0
            for j, p in enumerate(order, 1):
                hits += dfs[p]
                if hits >= limit:
                    upto = j
                    break
        else:
            upto = next(
                (j for j in range(taken + 1, len(order)) if bound[j] * _MARGIN < threshold),
                len(order),
            )
        essential = "(" + " OR ".join(order[taken:upto]) + ")"
        queries = [essential]
        if upto < len(order):
            queries.append(f"{essential} AND ({' OR '.join(order[upto:])})")
        for query in queries:
            # a few more than asked: rows tied with the last are rarely left out then
            found = rank(query, limit + _SPARE)
            if len(found) == limit + _SPARE:
                cut_at[query] = found[-1][1]  # it may have left out rows tied with its last
            _keep(best, found)
        ranked = _in_order(best)
        top = ranked[:limit]
        threshold = -top[-1][1] if len(top) == limit else 0.0
        taken = upto
        if taken >= len(order) or threshold > bound[taken] * _MARGIN:
            return _settled(phrases, limit, best, cut_at, rank, exact)


def _keep(best: dict[int, float], found: list[Ranked]) -> None:
    """Keep each row's best rank (a query holding some of its phrases ranks it lower)."""
    for rowid, r in found:
        if r < best.get(rowid, math.inf):
            best[rowid] = r


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= _NOISE * max(abs(a), abs(b))


def _settled(
    phrases: Sequence[str],
    limit: int,
    best: dict[int, float],
    cut_at: dict[str, float],
    rank: Callable[[str, int], list[Ranked]],
    exact: Callable[[list[int]], dict[int, float] | None] | None,
) -> list[Ranked]:
    """The answer from the rows found, exactly as the single query orders them.

    The ranks found may differ from FTS5's in the last bits (a query that sums a row's
    phrases in another order), and FTS5 orders rows that close by those bits, ties newest
    first. So when two rows of the answer, or the last and the next, are that close, their
    ranks are computed as the single query computes them (``exact``). A query that returned
    all the rows asked, its last that close to the answer's last, may have left out rows
    tied with it: it runs again with a larger limit first. Past ``_SETTLE_MAX`` rows to
    settle, or without ``exact``, the single query runs."""
    ranked = _in_order(best)
    if len(ranked) >= limit:
        cut = ranked[limit - 1][1]
        for query, last in cut_at.items():
            k = limit + _SPARE
            while last <= cut or _near(last, cut):
                if k > _SETTLE_MAX:
                    return rank(" OR ".join(phrases), limit)
                k *= 4
                found = rank(query, k)
                _keep(best, found)
                if len(found) < k:
                    break
                last = found[-1][1]
    ranked = _in_order(best)
    top = ranked[:limit]
    if not _near_tie(ranked[:limit + 1]):
        return top
    cut = top[-1][1]
    settle = [rowid for rowid, r in ranked if r <= cut or _near(r, cut)]
    ranks = exact(settle) if exact is not None and len(settle) <= _SETTLE_MAX else None
    if ranks is None or set(ranks) != set(settle):
        return rank(" OR ".join(phrases), limit)  # FTS5's own order decides
    return sorted(ranks.items(), key=lambda item: (item[1], -item[0]))[:limit]


def idf(df: int, n: int) -> float:
    """FTS5's idf of a phrase held by ``df`` of ``n`` rows (fts5_aux.c, fts5Bm25GetData)."""
    value = math.log((n - df + 0.5) / (df + 0.5))
    return value if value > 0 else 1e-6



def varints(blob: bytes) -> list[int]:
    """The SQLite varints in ``blob`` (FTS5's docsize and averages records): big-endian, seven
    bits a byte, the high bit set on every byte but a number's last."""
    out: list[int] = []
    value = 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            out.append(value)
            value = 0
    return out


def exact_ranks(
    phrases: Sequence[str],
    rows: Sequence[tuple[int, str | None, str | None, str | None]],
    averages: bytes | None,
    count: Callable[[str], int],
) -> dict[int, float] | None:
    """FTS5's rank of each of ``rows`` ``(rowid, title, key, body)`` for ``phrases`` OR-ed,
    as the single query computes it: ``-Σ idf · ((w · (k1 + 1)) / (w + k1 · (1 - b + b · D
    / avgdl)))`` over the phrases in their order (fts5_aux.c), N and avgdl from the index's
    averages record ``averages``, each phrase's df from ``count``. A row's weighted hits
    ``w`` and size ``D`` are found by indexing its text alone in a private in-memory FTS5
    table with the same tokenizer (``w`` read back from that table's score of the phrase,
    and checked by computing it again). None when a check fails or the record is empty."""
    counts = varints(averages or b"")
    if not counts or not counts[0]:
        return None
    n, avgdl = counts[0], sum(counts[1:]) / counts[0]
    scratch = sqlite3.connect(":memory:")
    try:
        scratch.execute(
            f"CREATE VIRTUAL TABLE t USING fts5(title, key, body, tokenize='{TOKENIZE}')")
        scratch.executemany("INSERT INTO t(rowid, title, key, body) VALUES (?, ?, ?, ?)",
                            rows)
        scratch.commit()  # FTS5 writes its averages record when a transaction ends
        own = varints(scratch.execute("SELECT block FROM t_data WHERE id = 1").fetchone()[0])
        own_avgdl = sum(own[1:]) / own[0]
        sizes = {int(r[0]): sum(varints(r[1]))
                 for r in scratch.execute("SELECT id, sz FROM t_docsize")}
        score = {int(r[0]): 0.0 for r in rows}
        for phrase in phrases:
            found = scratch.execute(
                "SELECT rowid, bm25(t, 4.0, 2.0, 1.0) FROM t WHERE t MATCH ?", (phrase,)
            ).fetchall()
            if not found:
                continue  # every row adds 0.0
            own_idf, store_idf = idf(len(found), own[0]), idf(count(phrase), n)
            for rowid, r in found:
                s, size = -r, sizes[rowid]
                k_own = K1 * (1 - B + B * size / own_avgdl)
                w = float(round(s * k_own / (own_idf * (K1 + 1.0) - s)))
                if w < 1.0 or own_idf * ((w * (K1 + 1.0)) / (w + k_own)) != s:
                    return None
                k = K1 * (1 - B + B * size / avgdl)
                score[rowid] += store_idf * ((w * (K1 + 1.0)) / (w + k))
        return {rowid: -value for rowid, value in score.items()}
    except (sqlite3.Error, ZeroDivisionError, TypeError):
        return None
    finally:
        scratch.close()


def _near_tie(ranked: list[Ranked]) -> bool:
    """Whether two neighbours of ``ranked`` score within float noise of each other, equal
    included. A row's rank here comes from a query that may sum its phrases in another order
    than the single query does, so it can differ from FTS5's in the last bits, and FTS5
    orders such rows by those bits (ties newest first): only its own query knows them. Two
    rows one query scored exactly alike need not be a tie there either: the same values held
    under different phrases (a rare word and a rare pair of words, each in one row) are
    summed in another order."""
    return any(_near(a[1], b[1]) for a, b in itertools.pairwise(ranked))


def _in_order(best: dict[int, float]) -> list[Ranked]:
    """``best`` by rank, ties newest first. Rows within float noise of each other may be in
    another order than FTS5's here; the answer settles them (:func:`_settled`)."""
    return sorted(best.items(), key=lambda item: (item[1], -item[0]))
