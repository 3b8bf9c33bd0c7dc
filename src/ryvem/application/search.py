"""Search modes: lexical, semantic and hybrid retrieval, fused by each leg's score.

A retrieval **strategy** is a named configuration of components (``lexical``: the store's
ranked full-text search, ``GraphRepository.search``; ``semantic``: the store's nearest
chunk vectors, ``StoresVectors.vector_search``) and of how they are fused: each component's
list is taken ``depth`` deep (20) and merged by one of two rules:

* ``scores`` (the default ``hybrid``): a hit scores ``0.3 * lexical / best lexical +
  0.7 * cosine`` (a leg that did not return it adds 0). A lexical first place that the
  vector list lacks keeps 0.3 of the scale, and vectors promote a hit only as far as their
  similarity says: reciprocal rank fusion gave that first place 1/61, below any row ranked
  10th in both lists (issue 40). Weights chosen on the evaluation's tune splits only
  (``docs/search-quality.md``);
* ``rrf`` (the ``hybrid-rrf`` and ``hybrid+graph`` recipes): reciprocal rank fusion,
  ``sum(weight / (rrf_k + rank))``, k = 60.

**Silence**: when no word of the question is in any memory (the lexical leg is empty), a
hybrid search keeps a semantic hit only at cosine :data:`SILENCE_FLOOR` or more, so a
question about something never stored returns nothing rather than the nearest unrelated rows
(the floor's calibration: ``eval/silence.py``). :data:`STRATEGIES` holds the modes; a new
mode is one more entry. This module is backend-neutral: it only calls the ports.

Every hit says why it came where it did: its rank in each component (None when that
component did not return it), each leg's own score (``scores``: BM25, cosine; None where it
did not return it), the score it was ordered by (the fused score in hybrid mode; the leg's
own in a one-leg mode) and, where one means something, a ``confidence`` in [0, 1] (the fused
score; the cosine in semantic mode; None in lexical mode, whose scores are only relative).

Rules a face relies on (``resolve_mode``):

* no mode given: hybrid when the local model is installed and the store keeps vectors,
  else lexical with a one-line note saying why — never an error;
* ``semantic``/``hybrid`` asked for without the model (or on a store without vectors): an
  ``InvalidInput`` (exit 2) naming the reason;
* ``as_of``: vectors are kept for current rows only, so a past-time search is lexical (over
  the store's version index); the default and ``hybrid`` say so in a note, ``semantic`` is
  an ``InvalidInput``;
* a text without a word (empty, blank, or only punctuation and symbols) lists the most
  recent rows (lexical), whatever the mode.

Embedding is never done inside a write: writes queue their rows (``StoresVectors``) and
:func:`embed_pending` embeds the backlog in bounded batches outside any transaction.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ryvem.domain.model import NodeVersion, SearchHit
from ryvem.domain.scopes import ScopeFilter
from ryvem.domain.search import parse_search
from ryvem.errors import InvalidInput, StoreReadOnly
from ryvem.ports import GraphRepository, PendingText, ReadsConcurrently, StoresVectors

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from ryvem.embedding import Embedder

__all__ = [
    "BATCH",
    "FUSE_DEPTH",
    "MIN_SIMILARITY",
    "MODES",
    "RRF_K",
    "SCORE_WEIGHTS",
    "SHORT_TOKENS",
    "SILENCE_FLOOR",
    "STRATEGIES",
    "PastSemanticSearch",
    "RankedHit",
    "SearchResult",
    "Strategy",
    "damp_short",
    "embed_pending",
    "embed_text",
    "fuse",
    "fuse_scores",
    "linked_to",
    "resolve_mode",
    "run_strategy",
]

Mode = Literal["lexical", "semantic", "hybrid"]
MODES: tuple[str, ...] = ("lexical", "semantic", "hybrid")
COMPONENTS = ("lexical", "semantic")  # every hit's ``ranks`` names these (+ any other used)
RRF_K = 60
# Score fusion's weights (lexical score over the list's best, raw cosine): chosen on the tune
# splits of docs and conversations (0.2-0.6 for lexical measured; 0.3 best on every set).
SCORE_WEIGHTS: tuple[tuple[str, float], ...] = (("lexical", 0.3), ("semantic", 0.7))
# A semantic hit when no word matched needs this cosine: 200 calibration questions of random
# tokens and invented words (eval/silence.py, none of the evaluation's) reach 0.474 at most.
SILENCE_FLOOR = 0.5
FUSE_DEPTH = 20  # chosen on the tune split: recall@5 0.86 (10), 0.92 (20), 0.90 (30), 0.92 (50)
# A semantic hit below this cosine is dropped: nearest neighbours always exist, and an
# unrelated row (MiniLM: cosine under ~0.1) must not fill a list that no word matched.
MIN_SIMILARITY = 0.2  # chosen on the tune split (0.25 lost a paraphrase, 0.0 kept noise)
# ``damp_short``'s best length on the tune split (hybrid MRR@10 0.779 -> 0.797, recall@1
# 0.67 -> 0.71, recall@5 unchanged; 32 and 64 gain, 128 loses a paraphrase). **Off in every
# shipped strategy**: a memory's rows are often one-line notes ("Sessions live in Redis", 4
# tokens), which it would push under the similarity floor; the gain is the docs corpus's.
SHORT_TOKENS = 64
BATCH = 16  # versions embedded per batch (one transaction stores a batch's vectors)
Progress = Callable[[int, int], None]  # (done, total)


class PastSemanticSearch(InvalidInput):
    """Semantic mode with a past time (as-of or known-at): vectors are kept for current rows
    only. The message names no option: each face says how its own options get out of it."""


@dataclass(frozen=True, slots=True)
class Strategy:
    """A retrieval configuration: which components, fused how."""

    name: str
    components: tuple[str, ...]
    fusion: Literal["scores", "rrf"] = "rrf"
    # Semantic hits when the lexical leg found nothing need this cosine (0: no floor).
    silence: float = 0.0
    rrf_k: int = RRF_K
    depth: int = FUSE_DEPTH
    min_similarity: float = MIN_SIMILARITY
    # Each component's weight in the fusion (a component not named weighs 1).
    weights: tuple[tuple[str, float], ...] = ()
    # The ``graph`` component: the rows linked to the first ``graph_seeds`` hits of the
    # other components, fused (see :func:`linked_to`).
    graph_seeds: int = 10
    # Short rows on the semantic side: a row's cosine is scaled by
    # ``min(1, tokens / short_tokens) ** short_power`` (tokens: its embedded text's words and
    # punctuation, about its WordPiece count); 0 turns it off. A template of a few words
    # otherwise sits near every question sharing one of its words.
    short_tokens: int = 0
    short_power: float = 0.5

    @property
    def semantic(self) -> bool:
        return "semantic" in self.components


STRATEGIES: dict[str, Strategy] = {
    "lexical": Strategy("lexical", ("lexical",)),
    "semantic": Strategy("semantic", ("semantic",)),
    "hybrid": Strategy("hybrid", ("lexical", "semantic"), fusion="scores",
                       weights=SCORE_WEIGHTS, silence=SILENCE_FLOOR),
    # The default before issue 40: reciprocal rank fusion (a library recipe, for comparison).
    "hybrid-rrf": Strategy("hybrid-rrf", ("lexical", "semantic")),
    # Graph distance as a third list (Graphiti's recipes fuse BM25, cosine and graph distance
    # the same way). A library recipe, not a face's mode: on the evaluation's tune split it
    # gained nothing over hybrid (docs/notes/search-notes.md, "Levers measured").
    "hybrid+graph": Strategy(
        "hybrid+graph", ("lexical", "semantic", "graph"), graph_seeds=10,
        weights=(("graph", 0.5),),
    ),
}


@dataclass(frozen=True, slots=True)
class RankedHit:
    """A hit with its rank in each component (1-based; None: not in that list)."""

    hit: SearchHit
    score: float
    ranks: dict[str, int | None]
    # A search of every version: which one this is ("status": current, superseded or
    # retired) and when it held ("valid_from", "valid_to"); None otherwise.
    held: dict[str, Any] | None = None
    # Each leg's own score of this hit (None: that leg did not return it).
    scores: dict[str, float | None] = field(default_factory=dict)
    confidence: float | None = None

    @property
    def id(self) -> str:
        return self.hit.id

    def record(self) -> dict[str, Any]:
        """``SearchHit.record()`` with ``score`` the ordering score, ``ranks``, ``scores``
        (each leg's own) and ``confidence`` (and, for a search of every version,
        ``status``, ``valid_from`` and ``valid_to``)."""
        rec = self.hit.record()
        rec["score"] = self.score
        rec["ranks"] = dict(self.ranks)
        rec["scores"] = {name: self.scores.get(name) for name in self.ranks}
        rec["confidence"] = self.confidence
        if self.held is not None:
            rec.update(self.held)
        return rec


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found, in which mode, and any note a face should show (one line each)."""

    hits: list[RankedHit]
    mode: str
    notes: tuple[str, ...] = ()
    pending: int = 0  # rows not embedded yet (their semantic rank is missing)


def fuse(
    lists: dict[str, Sequence[SearchHit]],
    *,
    rrf_k: int,
    limit: int,
    weights: dict[str, float] | None = None,
) -> list[RankedHit]:
    """Reciprocal rank fusion of best-first lists keyed by component (a hit scores
    ``sum(weight / (rrf_k + rank))``); ties keep the order of first appearance (components in
    order, then rank). Every hit's ``ranks`` names the search components and the lists given."""
    hits, ranks, scores = _legs(lists)
    score = {hid: sum((weights or {}).get(name, 1.0) / (rrf_k + rank)
                      for name, rank in ranks[hid].items() if rank is not None)
             for hid in hits}
    order = sorted(hits, key=lambda i: -score[i])  # sorted() is stable
    return [RankedHit(hits[i], round(score[i], 6), ranks[i], scores=dict(scores[i]))
            for i in order[:limit]]


def _legs(
    lists: dict[str, Sequence[SearchHit]],
) -> tuple[dict[str, SearchHit], dict[str, dict[str, int | None]], dict[str, dict[str, float]]]:
    """Each hit once (first appearance), its rank and its own score in each list."""
    hits: dict[str, SearchHit] = {}
    ranks: dict[str, dict[str, int | None]] = {}
    scores: dict[str, dict[str, float]] = {}
    names = list(dict.fromkeys([*COMPONENTS, *lists]))
    for name, ranked in lists.items():
        for rank, hit in enumerate(ranked, 1):
            if hit.id not in hits:
                hits[hit.id] = hit
                ranks[hit.id] = dict.fromkeys(names)
                scores[hit.id] = {}
            if ranks[hit.id][name] is None:
                ranks[hit.id][name] = rank
                scores[hit.id][name] = hit.score
    return hits, ranks, scores


def fuse_scores(
    lists: dict[str, Sequence[SearchHit]], *, limit: int, weights: dict[str, float],
) -> list[RankedHit]:
    """Score fusion of best-first lists: a hit scores ``sum(weight * leg score)``, the
    semantic leg's score its cosine (clipped at 0), every other leg's its score over the
    best of its list (so 1 for its first place). Ties keep the order of first appearance.
    The fused score is the hit's ``confidence`` too: with weights summing to 1 it lies in
    [0, 1], 1 for a hit first in words and identical in meaning."""
    hits, ranks, scores = _legs(lists)
    best = {name: max((h.score for h in ranked), default=0.0) for name, ranked in lists.items()}
    fused: dict[str, float] = {}
    for hid, own in scores.items():
        total = 0.0
        for name, value in own.items():
            weight = weights.get(name, 1.0)
            if name == "semantic":
                total += weight * max(value, 0.0)
            elif best[name] > 0:
                total += weight * max(value, 0.0) / best[name]
        fused[hid] = round(total, 6)
    order = sorted(hits, key=lambda i: -fused[i])  # sorted() is stable
    return [RankedHit(hits[i], fused[i], ranks[i], scores=dict(scores[i]),
                      confidence=min(1.0, fused[i])) for i in order[:limit]]


def single(name: str, ranked: Sequence[SearchHit], limit: int) -> list[RankedHit]:
    """One component's list as ranked hits, ordered (and scored) by that component."""
    out = []
    for rank, hit in enumerate(ranked[:limit], 1):
        r: dict[str, int | None] = dict.fromkeys(COMPONENTS)
        r[name] = rank
        out.append(RankedHit(hit, hit.score, r, scores={name: hit.score},
                             confidence=max(0.0, min(1.0, hit.score))
                             if name == "semantic" else None))
    return out


def resolve_mode(
    mode: str | None,
    *,
    text: str | None,
    as_of: int | None,
    semantic_off: str | None,
    known_at: int | None = None,
    every_version: bool = False,
) -> tuple[Strategy, tuple[str, ...]]:
    """The strategy to run and the notes to show, by the rules in the module doc.

    ``semantic_off`` is None when semantic search can run, else the one-line reason.
    """
    if mode is not None and mode not in STRATEGIES:
        raise InvalidInput(f"unknown search mode {mode!r}: use {', '.join(STRATEGIES)}")
    if parse_search(text).empty:  # no word at all: blank, or only punctuation ('"', "🙂")
        return STRATEGIES["lexical"], ()
    if mode == "lexical":
        return STRATEGIES["lexical"], ()
    if as_of is not None or known_at is not None or every_version:
        if mode == "semantic":
            raise PastSemanticSearch("semantic search covers current rows only")
        past = ("history search" if every_version
                else "as-of search" if as_of is not None else "known-at search")
        return STRATEGIES["lexical"], (
            f"{past} is lexical: vectors are kept for current rows only",
        )
    if semantic_off is not None:
        if mode is not None:
            raise InvalidInput(f"mode {mode} is unavailable: {semantic_off}")
        return STRATEGIES["lexical"], (f"{semantic_off}; searching lexically",)
    return STRATEGIES[mode or "hybrid"], ()


def embed_text(pending: PendingText) -> str:
    """What is embedded for a version: its title, then its body."""
    return f"{pending.title}\n{pending.body}" if pending.body else pending.title


def embed_pending(
    store: StoresVectors,
    embedder: Embedder,
    *,
    limit: int | None = None,
    batch: int = BATCH,
    progress: Progress | None = None,
) -> int:
    """Embed queued versions in batches of ``batch`` (at most ``limit``; None: until the
    queue is empty), each batch stored in one short transaction after it is computed.

    Returns how many versions got vectors. A read-only store embeds nothing.
    """
    from ryvem.embedding.index import to_blob

    done = 0
    total = store.vector_pending() if limit is None else min(limit, store.vector_pending())
    if progress is not None:
        progress(0, total)
    while limit is None or done < limit:
        want = batch if limit is None else min(batch, limit - done)
        # A row whose vectors were refused (closed or queued again meanwhile) is off the
        # queue under that ticket, so this loop never meets it twice.
        rows = store.vector_backlog(want)
        if not rows:
            break
        chunks = [embedder.chunk(embed_text(p)) or [p.title] for p in rows]
        flat = [c for cs in chunks for c in cs]
        vectors = embedder.embed(flat)
        out: list[tuple[PendingText, Sequence[bytes]]] = []
        i = 0
        for p, cs in zip(rows, chunks, strict=True):
            out.append((p, [to_blob(v) for v in vectors[i : i + len(cs)]]))
            i += len(cs)
        try:
            store.put_vectors(embedder.name, out)
        except StoreReadOnly:
            return done
        done += len(rows)
        if progress is not None:
            progress(min(done, max(total, done)), max(total, done))
    return done


@dataclass
class SearchRequest:
    """A validated search: what ``Service.search_filters`` returns, plus the text."""

    text: str | None
    kinds: list[str]
    scope: ScopeFilter
    limit: int
    as_of: int | None
    known_at: int | None = None
    notes: list[str] = field(default_factory=list)
    every_version: bool = False  # every version, whenever it held (``history``)


def run_strategy(
    strategy: Strategy,
    repo: GraphRepository,
    request: SearchRequest,
    embedder: Embedder | None,
) -> list[RankedHit]:
    """Run each component ``depth`` deep (at least ``limit``) and fuse them; ``graph``, when
    the strategy has it, runs last, from the fusion of the others."""
    query = parse_search(request.text)
    if query.empty:
        # A listing (no word to rank on): the most recent nodes, which no component ranked,
        # so every rank is null (it said lexical 1, 2, 3 …).
        listed = repo.search(query, request.kinds, request.scope, request.limit,
                             request.as_of, request.known_at)
        return [RankedHit(h, h.score, dict.fromkeys(COMPONENTS)) for h in listed]
    depth = max(strategy.depth, request.limit) if len(strategy.components) > 1 else request.limit
    if request.every_version:  # several versions of a node may rank: one is kept a node
        depth = min(depth * HISTORY_DEPTH, MAX_HISTORY_ROWS)
    for name in strategy.components:
        if name not in ("lexical", "semantic", "graph"):
            raise InvalidInput(f"unknown search component {name!r}")

    versions: dict[str, NodeVersion | None] = {}  # a history search's hits, read once

    def lexical() -> Sequence[SearchHit]:
        if request.every_version:
            return one_a_node(repo, repo.search(
                query, request.kinds, request.scope, depth, None, None, every_version=True,
            ), versions)
        return repo.search(
            query, request.kinds, request.scope, depth, request.as_of, request.known_at,
        )

    def semantic() -> Sequence[SearchHit]:
        if embedder is None or not isinstance(repo, StoresVectors):
            raise InvalidInput("semantic search is unavailable here")
        # Here, not at the top: without the semantic extra there is no numpy, and a lexical
        # search must not need it (tests/integration/test_lean_install.py).
        from ryvem.embedding.index import to_blob

        vector = to_blob(embedder.embed([request.text or ""])[0])
        found = repo.vector_search(embedder.name, vector, request.kinds, request.scope, depth)
        if strategy.short_tokens > 0:
            found = damp_short(repo, found, strategy.short_tokens, strategy.short_power)
        return [h for h in found if h.score >= strategy.min_similarity]

    legs = {"lexical": lexical, "semantic": semantic}
    wanted = [name for name in strategy.components if name in legs]
    found: dict[str, Sequence[SearchHit]] = {}
    if len(wanted) == 2 and isinstance(repo, ReadsConcurrently) and repo.reads_concurrently:
        # The lexical leg in a worker thread, while this one embeds the question and runs
        # the vector leg: SQLite, onnxruntime and numpy release the GIL, so the search costs
        # about the slower leg, not their sum (docs/notes/search-notes.md, "Measured").
        # The vector leg's product on one core, so it does not take the core the lexical leg
        # runs on (ryvem.embedding.index.on_one_core).
        from ryvem.embedding.index import on_one_core

        with on_one_core():
            pending = _pool().submit(lexical)
            try:
                found["semantic"] = semantic()
            finally:
                found["lexical"] = pending.result()
    else:
        for name in wanted:
            found[name] = legs[name]()
    if strategy.silence > 0 and "lexical" in found and not found["lexical"]:
        # No word of the question is in any memory: only a close meaning may answer.
        found["semantic"] = [h for h in found.get("semantic", ()) if h.score >= strategy.silence]
    lists: dict[str, Sequence[SearchHit]] = {name: found[name] for name in wanted}
    weights = dict(strategy.weights)
    if "graph" in strategy.components:
        first = (
            [] if not lists
            else single(*next(iter(lists.items())), strategy.graph_seeds) if len(lists) == 1
            else fuse(lists, rrf_k=strategy.rrf_k, limit=strategy.graph_seeds, weights=weights)
        )
        lists["graph"] = linked_to(repo, [h.hit for h in first], request, depth)
    if len(lists) == 1:
        (name, ranked), = lists.items()
        out = single(name, ranked, request.limit)
        if request.every_version:
            out = [dataclasses.replace(h, held=_held(versions.get(h.id))) for h in out]
        return out
    if strategy.fusion == "scores":
        return fuse_scores(lists, limit=request.limit, weights=weights)
    return fuse(lists, rrf_k=strategy.rrf_k, limit=request.limit, weights=weights)


HISTORY_DEPTH = 4  # a search of every version reads this many rows a hit asked for …
MAX_HISTORY_ROWS = 4000  # … at most


def one_a_node(
    repo: GraphRepository, hits: Sequence[SearchHit], versions: dict[str, NodeVersion | None]
) -> list[SearchHit]:
    """The best-ranked version of each node among ``hits`` (in rank order): a search of
    every version answers with nodes, as every other search does. The versions kept are
    left in ``versions`` by id (what :func:`_held` says of each)."""
    seen: set[str] = set()
    out = []
    for hit in hits:
        version = repo.get_version(hit.id)
        entity = version.entity if version is not None else hit.id
        if entity not in seen:
            seen.add(entity)
            out.append(hit)
            versions[hit.id] = version
    return out


def _held(v: NodeVersion | None) -> dict[str, Any]:
    """Which version a hit of a search of every version is, and when it held."""
    from ryvem.domain.timeutil import format_us

    if v is None:
        return {"status": None, "valid_from": None, "valid_to": None}
    status = ("current" if v.valid_to is None
              else "superseded" if v.superseded_by is not None else "retired")
    return {"status": status, "valid_from": format_us(v.valid_from),
            "valid_to": None if v.valid_to is None else format_us(v.valid_to)}


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """The threads lexical legs run in beside their vector legs (one per concurrent search,
    up to four; made on first use)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            from concurrent.futures import ThreadPoolExecutor

            _POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ryvem-lexical")
        return _POOL


_TOKENS = re.compile(r"\w+|[^\w\s]")


def damp_short(
    repo: GraphRepository, hits: Sequence[SearchHit], tokens: int, power: float
) -> list[SearchHit]:
    """Semantic hits rescored ``score * min(1, n / tokens) ** power`` (``n``: the row's
    embedded text in words and punctuation marks) and sorted again, best first."""
    out = []
    for hit in hits:
        version = repo.get_version(hit.id)
        text = embed_text(PendingText(hit.id, 0, version.title, version.body or "")) \
            if version is not None else hit.title
        n = len(_TOKENS.findall(text))
        factor = min(1.0, n / tokens) ** power
        out.append(hit.model_copy(update={"score": round(hit.score * factor, 6)}))
    return sorted(out, key=lambda h: -h.score)  # stable: ties keep the store's order


def linked_to(
    repo: GraphRepository, seeds: Sequence[SearchHit], request: SearchRequest, limit: int
) -> list[SearchHit]:
    """Graph distance as a ranked list: the rows one edge away (either direction, any rel
    but ``supersedes``, visible and in scope as the search is) from the ``seeds`` — the best
    hits of the other components — best first. A row scores ``sum(1 / seed rank)`` over the
    seeds it touches, so a row linked to several top hits, or to the first, comes first; a
    seed itself is listed too (distance 0, scored as if linked to itself), so the list
    confirms the seeds rather than pushing them down. Works on any backend through
    ``GraphRepository.expand`` and ``get_heads``."""
    if not seeds:
        return []
    entity_of: dict[str, str] = {}
    for hit in seeds:
        version = repo.get_version(hit.id)
        if version is not None:
            entity_of[version.entity] = hit.id
    rank_of = {hit.id: i for i, hit in enumerate(seeds, 1)}
    score: dict[str, float] = {e: 1.0 / rank_of[v] for e, v in entity_of.items()}
    frontier = list(entity_of)
    sides: tuple[tuple[Literal["out", "in"], int, int], ...] = (("out", 2, 3), ("in", 3, 2))
    for side, near, far in sides:
        edges = repo.expand(frontier, side, None, request.as_of, request.scope, request.known_at)
        for edge in edges:
            src, dst = edge[near], edge[far]
            if src == dst or src not in entity_of:
                continue
            score[dst] = score.get(dst, 0.0) + 1.0 / rank_of[entity_of[src]]
    order = sorted(score, key=lambda e: -score[e])
    heads = repo.get_heads(order[: limit * 2], request.as_of, request.known_at)
    kinds = set(request.kinds)
    seed_hits = {hit.id: hit for hit in seeds}
    out: list[SearchHit] = []
    for entity in order:
        head = heads.get(entity)
        if head is None or (kinds and head.kind not in kinds):
            continue
        out.append(seed_hits.get(head.id) or SearchHit(
            id=head.id, kind=head.kind, scope=head.scope, title=head.title, snippet="",
            score=round(score[entity], 6),
        ))
        if len(out) >= limit:
            break
    return out

