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

The answer is FTS5's own ``ORDER BY rank, rowid DESC`` top *k*: ranks are FTS5's (summed
over the same phrases), ties newest first; ``tests/integration/test_sqlite_topk.py`` checks
it against the single query on stores built to make it stop early and late. A question of
one phrase, or whose phrases hold few rows, is one query as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

__all__ = ["K1", "top_k"]

K1 = 1.2  # FTS5's bm25 k1 (fts5_aux.c); the score of one phrase is below idf · (K1 + 1)
_MARGIN = 1.0001  # the bound is raised a little, so a float's last bits never decide
_SMALL = 2048  # phrases holding at most this many hits in all: one query, as before

Ranked = tuple[int, float]  # (rowid, FTS5 rank: the negated score, lower is better)


def top_k(
    phrases: Sequence[str],
    limit: int,
    *,
    rank: Callable[[str, int], list[Ranked]],
    count: Callable[[str], int],
    rows: Callable[[], int],
) -> list[Ranked]:
    """The ``limit`` best ``(rowid, rank)`` of ``phrases`` OR-ed, best first, ties newest
    (highest rowid) first — what ``rank(" OR ".join(phrases), limit)`` returns.

    ``rank(match, k)`` runs FTS5 ``match`` and returns its best ``k`` as FTS5 orders them;
    ``count(phrase)`` is the number of indexed rows holding ``phrase`` (its df); ``rows()``
    the number of indexed rows (FTS5's N). All three must read one snapshot."""
    if len(phrases) < 2 or limit <= 0:
        return rank(" OR ".join(phrases), limit)
    dfs = {p: count(p) for p in phrases}
    if sum(dfs.values()) <= max(_SMALL, 4 * limit):
        return rank(" OR ".join(phrases), limit)
    order = sorted(phrases, key=lambda p: dfs[p])
    n_rows = rows()
    bound = [0.0] * (len(order) + 1)  # bound[j]: the score bound of order[j:]
    for j in range(len(order) - 1, -1, -1):
        bound[j] = bound[j + 1] + _idf(dfs[order[j]], n_rows) * (K1 + 1)

    best: dict[int, float] = {}
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
        found = rank(essential, limit)
        if upto < len(order):
            found += rank(f"{essential} AND ({' OR '.join(order[upto:])})", limit)
        for rowid, r in found:
            if r < best.get(rowid, math.inf):
                best[rowid] = r
        top = _in_order(best)[:limit]
        threshold = -top[-1][1] if len(top) == limit else 0.0
        taken = upto
        if taken >= len(order) or threshold > bound[taken] * _MARGIN:
            return top


def _idf(df: int, n: int) -> float:
    """FTS5's idf of a phrase held by ``df`` of ``n`` rows (fts5_aux.c, fts5Bm25GetData)."""
    idf = math.log((n - df + 0.5) / (df + 0.5))
    return idf if idf > 0 else 1e-6


def _in_order(best: dict[int, float]) -> list[Ranked]:
    """``best`` in FTS5's order: by rank, ties newest first. A row's rank may come from a
    query that summed its phrases in another order than the single query would, so ranks
    within float noise (1e-12, relative) of the one before count as a tie."""
    ranked = sorted(best.items(), key=lambda item: (item[1], -item[0]))
    out: list[Ranked] = []
    tie: list[Ranked] = []
    for item in ranked:
        if tie and abs(item[1] - tie[-1][1]) > 1e-12 * max(abs(item[1]), abs(tie[-1][1])):
            out += sorted(tie, key=lambda t: -t[0])
            tie = []
        tie.append(item)
    return out + sorted(tie, key=lambda t: -t[0])
