"""The Neo4j adapter: the same port as SQLite, on a Neo4j 5 server (Community is enough).

The graph in Neo4j:

* ``(:Version)`` — one node per node version, with the row's columns as properties (``data``
  as a JSON string) and the full-text field ``ft_text`` (its title, key and body's words,
  folded), indexed by ``ryvem_text_all`` (every version: current search keeps its
  ``:Current`` hits, as-of search the hits valid at its time — one Lucene index to update per
  commit). Keyed rows also carry ``ident`` (a JSON ``[kind, key, scope]``). Current rows carry
  the ``:Current`` label; closing a window removes the label. A uniqueness
  constraint on ``(:Current).ident`` makes the store refuse a second current row of one
  identity.
* ``(:Entity {id})-[:EDGE {id, rel, data, valid_from, valid_to, cur}]->(:Entity {id})`` — edges
  join entity ids (version ids for ``supersedes``), so a walk never looks at versions except
  to check the far end is valid at the walk's time. ``cur`` is carried by current edges only,
  under a uniqueness constraint: one current edge per (src, dst, rel).
* ``(:Version)-[:TARGETS]->(:Tail {tail, writes})`` — the last segments of a version's link
  targets, so dangling links are found by index when their target appears; ``writes`` counts
  the planned writes that read or wrote links through that segment (``apply_plan`` checks it
  did not move since ``write_context`` read it).
* ``(:IdentityLock {ident})`` — one per identity; a keyed write updates it first, so writers
  of one identity serialise and each sees the other's result.

Every query is a file under ``queries/`` (see that package). A planned write (the service's
``write_many``) is two auto-commit queries: ``write_context`` reads what the rules need, and
``apply_plan`` applies the plan in one guarded statement; other writes run in one explicit
transaction. ``write`` re-runs a write after a transient error, a deadlock or a stale plan.
A walk is one query (``walk_out``/``walk_in``/``walk_both``, see ``neighbourhood``). Driver
exceptions become ``ryvem.errors`` in :mod:`ryvem.adapters.neo4j.errors`, and nowhere else.
"""

from __future__ import annotations

import json
import logging
import random
import re
import struct
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    Driver,
    GraphDatabase,
    ManagedTransaction,
    RoutingControl,
    Session,
    Transaction,
)
from neo4j import exceptions as nx

from ryvem import errors
from ryvem.adapters.neo4j import queries as cypher
from ryvem.adapters.neo4j.errors import DRIVER_ERRORS, from_driver
from ryvem.domain.links import Candidate, normalize, tail
from ryvem.domain.model import (
    EDGE_FIELDS,
    HEAD_FIELDS,
    JSON_FIELDS,
    LINKS,
    NODE_FIELDS,
    AuditEntry,
    Edge,
    Identity,
    NodeHead,
    NodeVersion,
    SearchHit,
    Stats,
    trusted,
)
from ryvem.domain.redaction import Rewritten
from ryvem.domain.scopes import GLOBAL, ScopeFilter
from ryvem.domain.search import SearchQuery, Term, fold, lexical_plan, opening, snippet
from ryvem.domain.spellings import DECODING_MARKS
from ryvem.domain.traversal import EdgeRow
from ryvem.ports import (
    AppliesPlans,
    Close,
    ForgetTx,
    IndexProgress,
    LinkSource,
    Neighbourhood,
    PendingText,
    Progress,
    WriteContext,
    WritePlan,
    WriteTx,
)

__all__ = ["Neo4jRepository"]

T = TypeVar("T")

_LOAD_CHUNK = 5000
_CONNECT_TIMEOUT_S = 5.0
_BOLT_SCHEMES = frozenset(  # the driver's Bolt schemes: direct, routed; TLS, TLS self-signed
    f"{base}{tls}" for base in ("bolt", "neo4j") for tls in ("", "+s", "+ssc")
)
_INDEX_WAIT_S = 300
_ANALYZER = "english"  # what schema_15_text_all creates
_TEXT_FIELDS = ["ft_text"]
_TITLE_WEIGHT = 4  # as SQLite's bm25(nodes_fts, 4.0, 2.0, 1.0)
_KEY_WEIGHT = 2
_RETRY_S = 30.0
_SEARCH_FETCH = 4  # full-text hits fetched per hit wanted, before the filters (then x8)
_SEARCH_FETCH_MIN = 50
_POOL_SIZE = 100
_CONTEXTS = 512  # write contexts a repository keeps (see _Contexts)
_CONTEXT_IDENTS = 8  # a write of more identities (a batch) keeps none
_WORD = re.compile(r"[^\W_]+")  # the search parser's notion of a word (domain/search.py)
_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_SCHEMA_NAME = re.compile(r"\b(?:CONSTRAINT|INDEX)\s+(\w+)\s+IF NOT EXISTS")
_FIELDS = {"node_fields": list(NODE_FIELDS), "head_fields": list(HEAD_FIELDS)}
TAIL_EPOCH = "\x00epoch"
"""The reserved ``Tail`` name whose write count is the store's tail epoch: what a last segment
with no ``Tail`` node counts as. No link target can name it (a text holds no NUL); a
forgetting that deletes tails raises it above their counts (``forget_drop_tails``)."""
"""Passed to every query: the projections ``[f IN $node_fields | n[f]]`` read them."""


def _cypher(name: str, params: dict[str, Any]) -> str:
    """The query's text, its ``__VALID__`` predicates filled for the clocks it is given."""
    return cypher.load(
        name, past=params.get("as_of") is not None, known=params.get("known_at") is not None,
        ever=bool(params.get("ever")),
    )


def _statement(text: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A query as it is sent: packed (``$name`` read as ``$p.name``, see ``queries.packed``:
    one plan per text whatever the lengths of its lists) and without its comments
    (``queries.compact``), with its values as one map."""
    query = cypher.packed(text)
    missing = query.names - params.keys()
    if missing:  # a map hides a missing key as null, where Neo4j would refuse the query
        raise ValueError(f"parameters missing for the query: {sorted(missing)}")
    return cypher.compact(query.text), {cypher.PACK: params}


# --- mapping rows ---------------------------------------------------------------------------


def _node(row: Sequence[Any]) -> NodeVersion:
    """A version from the list ``[f IN $node_fields | n[f]]`` (the domain model's fields)."""
    values = dict(zip(NODE_FIELDS, row, strict=True))
    for f in JSON_FIELDS:
        values[f] = json.loads(values[f])
    if values["body"] is None:
        values["body"] = ""
    return trusted(NodeVersion, values)


def _edge(m: dict[str, Any]) -> Edge:
    values: dict[str, Any] = {f: m.get(f) for f in EDGE_FIELDS}
    for f in JSON_FIELDS:
        values[f] = json.loads(values[f])
    return trusted(Edge, values)


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _ident(identity: Identity) -> str:
    """The stored form of (kind, key, scope): unambiguous whatever the key holds."""
    return json.dumps(list(identity), ensure_ascii=False, separators=(",", ":"))


def _ft(text: str) -> str:
    """Text as the full-text index sees it: the search parser's words, folded."""
    if text.isascii():  # the same words as below: ASCII has no accents, casefold is lower
        return " ".join(_WORD.findall(text.lower()))
    return " ".join(w.lower() if w.isascii() else fold(w) for w in _WORD.findall(text))


def _version_row(v: NodeVersion, targets: Sequence[str]) -> dict[str, Any]:
    norm = normalize(v.key) if v.key is not None else None
    props = {f: getattr(v, f) for f in NODE_FIELDS if f != "id"}
    for f in JSON_FIELDS:
        props[f] = _dump(props[f])
    props.update(
        key_norm=norm,
        key_tail=tail(norm) if norm is not None else None,
        ident=None if v.key is None else _ident((v.kind, v.key, v.scope)),
        link_targets=sorted(set(targets)) or None,
        **_text_fields(v.title, v.key, v.body),
    )
    return {"id": v.id, "props": props, "tails": sorted({tail(t) for t in targets})}


def _text_fields(title: str, key: str | None, body: str | None) -> dict[str, str]:
    """A version's full-text field ``ft_text``: its words as the search parser splits them,
    folded — the title four times, the key twice, then the body. One field, so Lucene's BM25
    sees one document length as FTS5's bm25 does (per-field scores would let a one-word title
    outweigh everything), and the repeats weigh the title 4x and the key 2x as SQLite's column
    weights do."""
    head = [_ft(title or "")] * _TITLE_WEIGHT + ([_ft(key)] * _KEY_WEIGHT if key else [])
    return {"ft_text": " ".join([*head, _ft(body or "")])}


def _edge_row(e: Edge) -> dict[str, Any]:
    return {
        "id": e.id,
        "rel": e.rel,
        "src": e.src,
        "dst": e.dst,
        "data": _dump(e.data),
        "valid_from": e.valid_from,
        "valid_to": e.valid_to,
        "recorded_at": e.recorded_at,
        "closure_recorded_at": e.closure_recorded_at,
        "cur": None if e.valid_to is not None else json.dumps([e.src, e.dst, e.rel]),
    }


def _ends(edges: Sequence[Edge] | Sequence[dict[str, Any]]) -> list[str]:
    """Every distinct endpoint of a batch of edges (or edge rows), sorted (a lock order)."""
    ends: set[str] = set()
    for e in edges:
        ends.update((e["src"], e["dst"]) if isinstance(e, dict) else (e.src, e.dst))
    return sorted(ends)


def _floats(blob: bytes) -> list[float]:
    """A little-endian float32 vector (``StoresVectors``) as the list Neo4j stores."""
    return list(struct.unpack(f"<{len(blob) // 4}f", blob))


def _scope_params(scope: ScopeFilter) -> dict[str, str | None]:
    if scope.exact is not None:
        return {"scope_exact": scope.exact, "scope_prefix": None}
    if scope.shape == GLOBAL:
        return {"scope_exact": GLOBAL, "scope_prefix": None}
    return {"scope_exact": None, "scope_prefix": scope.prefix}


# --- search helpers -------------------------------------------------------------------------


def _escape(word: str) -> str:
    return _LUCENE_SPECIAL.sub(r"\\\1", word)


def _clause(term: Term) -> str | None:
    """One OR-ed term as Lucene syntax over ``ft_text``: words escaped and quoted; a prefix
    term's last word as escaped ``word*``, its others required."""
    words = [_escape(w) for w in (fold(w) for w in term.words) if w]
    if not words:
        return None
    if term.prefix:
        parts = [f'+"{w}"' for w in words[:-1]] + [f"+{words[-1]}*"]
        x = "(" + " ".join(parts) + ")"
    else:
        x = '"' + " ".join(words) + '"'
    return f"ft_text:{x}"


def _lucene(query: SearchQuery) -> str:
    """A Lucene query built only from the domain's lexical plan: every clause OR-ed."""
    clauses = (_clause(t) for t in lexical_plan(query).clauses)
    return " ".join(c for c in clauses if c)


# --- the write transaction ------------------------------------------------------------------


class _Stale(Exception):
    """A planned write found what it read changed under it: re-run it from its reads."""


_ContextKey = tuple[tuple[Identity, ...], tuple[tuple[Identity, str], ...], tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class _Kept:
    """A write context as ``write_context`` would read it now if no one else wrote since,
    with what ``apply_plan`` checks it against: the tail counts and the tail epoch."""

    context: WriteContext
    tail_writes: dict[str, int]
    epoch: int


class _Contexts:
    """The write contexts the last writes of this repository left behind, by what
    ``write_context`` was asked (identities, key tails, link tails); at most ``_CONTEXTS``.

    After a plan applies, the context a write of the same identities and link tails would read
    next is known without asking the server: each identity's newest version is the one the
    plan wrote, its tail counts are one higher, the candidates and ``links`` edges are the old
    ones with the plan's changes. The next such write plans against it and sends only
    ``apply_plan``, whose guard decides (``_Tx.apply``); when the guard fails, or the plan is
    one the guard does not cover whole, the entry goes and the write re-reads. So an entry only
    decides how many round trips a write takes, never what it writes.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: OrderedDict[_ContextKey, _Kept] = OrderedDict()
        self._by_ident: dict[Identity, set[_ContextKey]] = {}
        self._by_tail: dict[str, set[_ContextKey]] = {}

    def get(self, key: _ContextKey) -> _Kept | None:
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
            return kept

    def _drop(self, key: _ContextKey) -> None:
        kept = self._kept.pop(key, None)
        if kept is None:
            return
        for i in kept.context.identities:
            self._unindex(self._by_ident, i, key)
        for t in kept.tail_writes:
            self._unindex(self._by_tail, t, key)

    @staticmethod
    def _unindex(index: dict[Any, set[_ContextKey]], at: Any, key: _ContextKey) -> None:
        keys = index.get(at)
        if keys is not None:
            keys.discard(key)
            if not keys:
                del index[at]

    def drop(self, key: _ContextKey) -> None:
        with self._lock:
            self._drop(key)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self._by_ident.clear()
            self._by_tail.clear()

    def put(self, key: _ContextKey | None, kept: _Kept | None, moved: Iterable[str],
            idents: Iterable[Identity]) -> None:
        """Keep ``kept`` under ``key`` (None: keep nothing), and drop every entry that read one
        of these identities or tail counts (this write moved them: its guard would fail)."""
        with self._lock:
            stale: set[_ContextKey] = set()
            for i in idents:
                stale |= self._by_ident.get(i, set())
            for t in moved:
                stale |= self._by_tail.get(t, set())
            for k in stale:
                self._drop(k)
            if key is None or kept is None:
                return
            self._drop(key)
            self._kept[key] = kept
            for i in kept.context.identities:
                self._by_ident.setdefault(i, set()).add(key)
            for t in kept.tail_writes:
                self._by_tail.setdefault(t, set()).add(key)
            while len(self._kept) > _CONTEXTS:
                self._drop(next(iter(self._kept)))


def _after(kept: _Kept, key: _ContextKey, plan: WritePlan) -> _Kept | None:
    """The context ``write_context`` would read for ``key`` right after ``plan`` applied on
    ``kept`` (nothing else written), or None when the plan is not of the shape this derives:
    every identity read now has a current version the plan wrote (a supersede or a new key; a
    rename or a retired key re-reads)."""
    idents, key_tails, tails = key
    ctx = kept.context
    latest: dict[Identity, NodeVersion] = {}
    for v in plan.versions:
        if v.key is not None and v.valid_to is None:
            latest[(v.kind, v.key, v.scope)] = v
    if not all(i in latest for i in idents) or plan.revives:
        return None
    by_id = {v.id: v for v in ctx.latest.values()}
    if any(c.id not in by_id for c in plan.closes):
        return None
    entities = {latest[i].entity for i in idents}
    minted = {v.id for v in plan.versions}
    if not entities <= ctx.edge_sources | minted:
        return None
    touched = {v.entity for v in plan.versions} | {by_id[c.id].entity for c in plan.closes}
    wanted = set(tails)
    candidates = [c for c in ctx.candidates
                  if tail(c.norm) in wanted and c.entity not in touched]
    candidates += [Candidate(v.entity, v.kind, v.key, v.scope) for v in latest.values()
                   if v.key is not None and tail(normalize(v.key)) in wanted]
    closed_edges = {i for i, _, _ in plan.edge_closes}
    edges = [e for e in ctx.link_edges if e.src in entities and e.id not in closed_edges]
    edges += [e for e in plan.edges
              if e.rel == LINKS and e.valid_to is None and e.src in entities]
    read = wanted | {t for _, t in key_tails}
    if not read <= kept.tail_writes.keys():
        return None
    return _Kept(
        WriteContext(
            latest={i: latest[i] for i in idents},
            identities=frozenset(idents),
            sources=[],
            source_tails=frozenset(),
            candidates=candidates,
            candidate_tails=frozenset(wanted),
            link_edges=edges,
            edge_sources=frozenset(entities),
        ),
        {t: kept.tail_writes[t] + 1 for t in read},
        kept.epoch,
    )


def _guarded(plan: WritePlan) -> bool:
    """Whether ``apply_plan``'s guard covers everything a plan on a kept context used: every
    identity it read had a newest version and the plan closes it (so the guard checks it is
    still the newest, still current, and locks it). Anything else — a new key, a revival, a
    rename onto a retired key, "unchanged" in a batch — re-plans on a context read now."""
    closed = {c.id for c in plan.closes}
    return not plan.revives and all(
        v is not None and v in closed for v in plan.expect.values()
    )


class _Tx(WriteTx, AppliesPlans):
    """``WriteTx`` for one write on a Neo4j server.

    A planned write (``write_context`` then ``apply``) runs as two auto-commit queries — one
    round trip each, the second guarded against concurrent writers (``apply_plan``). Any other
    primitive opens an explicit transaction on first use, and every later query of this
    write runs inside it; ``commit`` ends it. Nothing may follow an ``apply`` that ran on its
    own: it has committed.
    """

    def __init__(self, repo: Neo4jRepository, kept: bool = True) -> None:
        self._repo = repo
        self._session: Session | None = None
        self.tx: Transaction | None = None
        self._applied = False
        self._tail_writes: dict[str, int] = {}  # what write_context read, for apply to check
        self._epoch: int | None = None  # the tail epoch write_context read
        self._use_kept = kept  # may plan on a context the last write left (_Contexts)
        self._key: _ContextKey | None = None  # what write_context was asked
        self._read: _Kept | None = None  # the context the plan runs on, with its guard
        self.optimistic = False  # the plan runs on a kept context, not on one read now
        self._planned = False  # a plan was applied (alone or in self.tx)
        self._next: _Kept | None = None  # the context after this write, to keep on commit
        self._moved: set[str] = set()  # the tail counts the applied plan moved
        self._idents: list[Identity] = []  # the identities it wrote

    def _sess(self) -> Session:
        if self._session is None:
            self._session = self._repo._session()
        return self._session

    def _check(self) -> None:
        if self._applied:
            raise RuntimeError("a plan applied on its own has committed; nothing may follow it")

    def _run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self._check()
        if self.tx is None:
            self.tx = self._sess().begin_transaction()
        text, values = _statement(_cypher(name, params), {**_FIELDS, **params})
        return [r.data() for r in self.tx.run(text, values)]

    def _once(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        """In the open transaction if there is one, else as one auto-commit query."""
        self._check()
        runner: Session | Transaction = self.tx if self.tx is not None else self._sess()
        return [r.data() for r in runner.run(*_statement(_cypher(name, params), params))]

    def commit(self) -> None:
        if self.optimistic and not self._planned:
            # Nothing was applied (e.g. "unchanged"): no guard checked the kept context.
            self.forget_kept()
            raise _Stale()
        if self.tx is not None:
            self.tx.commit()
        if self._planned:  # what it moved goes from every kept context; its own stays
            self._repo._contexts.put(self._key, self._next, self._moved, self._idents)

    def forget_kept(self) -> None:
        """Drop the kept context this write planned on (it was stale or not covered)."""
        if self._key is not None:
            self._repo._contexts.drop(self._key)

    def close(self) -> None:
        try:
            if self.tx is not None and not self.tx.closed():
                self.tx.close()
        finally:
            if self._session is not None:
                self._session.close()

    # --- planned writes -----------------------------------------------------------------
    def write_context(
        self,
        identities: Sequence[Identity],
        key_tails: Sequence[tuple[Identity, str]],
        tails: Sequence[str],
    ) -> WriteContext:
        key: _ContextKey = (tuple(identities), tuple(key_tails), tuple(sorted(set(tails))))
        first = self._key is None
        if first and len(identities) <= _CONTEXT_IDENTS:
            self._key = key
            kept = self._repo._contexts.get(key) if self._use_kept else None
            if kept is not None:
                self.optimistic = True
                self._read = kept
                self._epoch = kept.epoch
                self._tail_writes = dict(kept.tail_writes)
                return kept.context
        elif not first:
            self._key = None  # read twice in one write: keep nothing
        by_ident = {_ident(i): i for i in identities}
        row = self._once("write_context", {
            **_FIELDS,
            "tail_epoch": TAIL_EPOCH,
            "idents": sorted(by_ident),
            "key_tails": [{"ident": _ident(i), "tail": t} for i, t in key_tails],
            "tails": sorted(set(tails)),
        })[0]
        for t, n in row["tail_writes"]:  # read twice: the earlier count guards what follows
            self._tail_writes[t] = min(n, self._tail_writes.get(t, n))
        if self._epoch is None:
            self._epoch = row["epoch"]
        context = WriteContext(
            latest={by_ident[i]: _node(v) for i, v in row["latest"] if v[0] is not None},
            identities=frozenset(identities),
            sources=[
                LinkSource(entity=e, kind=k, scope=sc, targets=tuple(sorted(t)))
                for e, k, sc, t in row["sources"]
            ],
            source_tails=frozenset(row["source_tails"]),
            candidates=[Candidate(*c) for c in row["candidates"]],
            candidate_tails=frozenset(row["candidate_tails"]),
            link_edges=[_edge(m) for m in row["link_edges"]],
            edge_sources=frozenset(row["edge_sources"]),
        )
        if self._key is not None:
            self._read = _Kept(context, dict(self._tail_writes), row["epoch"])
        return context

    def apply(self, plan: WritePlan) -> None:
        if self.optimistic and not _guarded(plan):
            self.forget_kept()
            raise _Stale()
        erows = [_edge_row(e) for e in plan.edges]
        params = {
            "idents": sorted({_ident(i) for i in plan.expect}),
            "expect": [{"ident": _ident(i), "id": v} for i, v in plan.expect.items()],
            "version_locks": sorted({c.id for c in plan.closes} | {o for o, _ in plan.revives}),
            "edge_locks": sorted({i for i, _, _ in plan.edge_closes}),
            "closes": [
                {"id": c.id, "at": c.at, "recorded_at": c.recorded_at,
                 "superseded_by": c.superseded_by, "retired_reason": c.retired_reason}
                for c in plan.closes
            ],
            "revives": [{"id": old, "successor": new} for old, new in plan.revives],
            "versions": [
                _version_row(v, t) for v, t in zip(plan.versions, plan.targets, strict=True)
            ],
            "ends": _ends(erows),
            "edges": erows,
            "edge_closes": [
                {"id": i, "at": at, "recorded_at": rec} for i, at, rec in plan.edge_closes
            ],
            "tail_expect": [{"tail": t, "writes": n} for t, n in sorted(self._tail_writes.items())],
            "tail_epoch": TAIL_EPOCH,
            "epoch": self._epoch,
        }
        alone = self.tx is None
        rows = self._once("apply_plan", params)
        self._applied = alone
        if not rows:
            if self.optimistic:
                self.forget_kept()
            raise _Stale()
        self._planned = True
        self._moved = set(self._tail_writes)
        self._idents = list(plan.expect)
        if self._key is not None and self._read is not None:
            self._next = _after(self._read, self._key, plan)

    # --- primitives ---------------------------------------------------------------------
    def latest_by_identity(self, identities: Sequence[Identity]) -> dict[Identity, NodeVersion]:
        if not identities:
            return {}
        by_ident = {_ident(i): i for i in identities}
        rows = self._run("latest_by_identity", idents=sorted(by_ident))
        return {by_ident[r["ident"]]: _node(r["v"]) for r in rows}

    def current_of_entities(self, entities: Sequence[str]) -> dict[str, NodeVersion]:
        if not entities:
            return {}
        rows = self._run("get_entities", entities=list(dict.fromkeys(entities)), as_of=None)
        return {v.entity: v for v in (_node(r["v"]) for r in rows)}

    def close_versions(self, closes: Sequence[Close]) -> None:
        if not closes:
            return
        rows = [
            {"id": c.id, "at": c.at, "recorded_at": c.recorded_at,
             "superseded_by": c.superseded_by, "retired_reason": c.retired_reason}
            for c in closes
        ]
        closed = {r["id"] for r in self._run("close_versions", rows=rows, tail_epoch=TAIL_EPOCH)}
        for c in closes:
            if c.id not in closed:
                raise errors.Conflict(f"version {c.id} is no longer current")

    def mark_superseded(self, pairs: Sequence[tuple[str, str]]) -> None:
        if not pairs:
            return
        rows = [{"id": old, "successor": new} for old, new in pairs]
        done = {r["id"] for r in self._run("mark_superseded", rows=rows)}
        for old, _ in pairs:
            if old not in done:
                raise errors.Conflict(f"version {old} was superseded concurrently")

    def insert_versions(
        self, versions: Sequence[NodeVersion], targets: Sequence[tuple[str, ...]]
    ) -> None:
        if versions:
            rows = [_version_row(v, t) for v, t in zip(versions, targets, strict=True)]
            self._run("insert_versions", rows=rows)

    def insert_edges(self, edges: Sequence[Edge]) -> None:
        if edges:
            self._run("insert_edges", ends=_ends(edges), rows=[_edge_row(e) for e in edges])

    def close_edges(self, ids: Sequence[str], at: int, recorded_at: int) -> None:
        if ids:
            self._run("close_edges", ids=list(ids), at=at, recorded_at=recorded_at)

    def latest_edge(self, src: str, dst: str, rel: str) -> Edge | None:
        rows = self._run("latest_edge", src=src, dst=dst, rel=rel)
        return _edge(rows[0]["edge"]) if rows else None

    def current_edges(
        self, src: str, dst: str | None = None, rel: str | None = None
    ) -> list[Edge]:
        # Read under the source's lock: a racing link of the same edge waits, then sees it
        # (where it would otherwise open a second current edge and fail on the constraint).
        self._run("lock_entity", src=src)
        return [_edge(r["edge"]) for r in self._run("current_edges", src=src, dst=dst, rel=rel)]

    def current_link_edges(self, sources: Sequence[str]) -> list[Edge]:
        if not sources:
            return []
        rows = self._run("current_link_edges", sources=list(dict.fromkeys(sources)))
        return [_edge(r["edge"]) for r in rows]

    def link_candidates(self, tails: Sequence[str]) -> list[Candidate]:
        if not tails:
            return []
        return [Candidate(**r) for r in self._run("link_candidates", tails=list(set(tails)))]

    def link_sources(self, tails: Sequence[str]) -> list[LinkSource]:
        if not tails:
            return []
        rows = self._run("link_sources", tails=list(set(tails)))
        return [
            LinkSource(entity=r["entity"], kind=r["kind"], scope=r["scope"],
                       targets=tuple(sorted(r["targets"])))
            for r in rows
        ]


def _json_fragment(text: str) -> str:
    """``text`` as it appears inside a stored JSON string (see ``_dump``)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


class _ForgetTx(ForgetTx):
    """``ForgetTx`` in one explicit transaction: the only queries that rewrite content
    (``forget_rewrite_versions``, ``forget_rewrite_edges``) name content properties only."""

    def __init__(self, tx: Transaction) -> None:
        self.tx = tx

    def _run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        text, values = _statement(cypher.load(name), {**_FIELDS, **params})
        return [r.data() for r in self.tx.run(text, values)]

    def versions_containing(
        self, text: str, scope: ScopeFilter
    ) -> list[tuple[NodeVersion, tuple[str, ...]]]:
        rows = self._run("forget_versions_containing", text=text,
                         text_json=_json_fragment(text), marks=list(DECODING_MARKS),
                         **_scope_params(scope))
        return [(_node(r["v"]), tuple(sorted(r["targets"]))) for r in rows]

    def chain(self, entity: str) -> list[tuple[NodeVersion, tuple[str, ...]]]:
        rows = self._run("forget_chain", entity=entity)
        return [(_node(r["v"]), tuple(sorted(r["targets"]))) for r in rows]

    def edges_containing(self, text: str, scope: ScopeFilter) -> list[Edge]:
        rows = self._run("forget_edges_containing", text_json=_json_fragment(text),
                         **_scope_params(scope))
        return [_edge(r["edge"]) for r in rows]

    def edges_touching(self, entity: str) -> list[Edge]:
        return [_edge(r["edge"]) for r in self._run("forget_edges_touching", entity=entity)]

    def requeue_vectors(self, ids: Sequence[str]) -> int:
        """``RequeuesVectors``: the rewritten versions' chunks go in this transaction."""
        rows = self._run("requeue_vectors", ids=list(ids), scope_exact=None, scope_prefix=None)
        return int(rows[0]["queued"]) if rows else 0

    def rewrite_versions(self, rewrites: Sequence[Rewritten]) -> None:
        if not rewrites:
            return
        rows = [
            {
                "id": r.id, "title": r.title, "body": r.body, "data": _dump(r.data),
                "retired_reason": r.retired_reason, "erased": r.erased,
                "link_targets": sorted(set(r.targets)) or None,
                "ft_head": " ".join([_ft(r.title)] * _TITLE_WEIGHT), "ft_body": _ft(r.body),
                "tails": sorted({tail(t) for t in r.targets}),
            }
            for r in rewrites
        ]
        self._run("forget_raise_epoch", tail_epoch=TAIL_EPOCH)
        done = self._run("forget_rewrite_versions", rows=rows, tail_epoch=TAIL_EPOCH)
        missing = {r.id for r in rewrites} - {d["id"] for d in done}
        if missing:
            raise errors.NotFound(f"no version {sorted(missing)[0]}; nothing was rewritten")
        dropped = sorted({t for d in done for t in d["dropped"]})
        if dropped:
            self._run("forget_drop_tails", tails=dropped, tail_epoch=TAIL_EPOCH)

    def rewrite_edges(self, rewrites: Sequence[tuple[str, dict[str, Any]]]) -> None:
        if rewrites:
            self._run("forget_raise_epoch", tail_epoch=TAIL_EPOCH)
            self._run("forget_rewrite_edges",
                      rows=[{"id": i, "data": _dump(d)} for i, d in rewrites])

    def record_audit(self, entry: AuditEntry) -> None:
        self._run("forget_record_audit", entry=dict(entry.__dict__))


# --- the repository -------------------------------------------------------------------------


# The driver logs a failed routing fetch ("Unable to retrieve routing information") at ERROR
# before raising; with no handler configured, logging's last-resort handler printed it on
# stderr above ryvem's own one-line error. A NullHandler keeps it out of stderr; an
# application that configures logging still receives it (it propagates).
logging.getLogger("neo4j").addHandler(logging.NullHandler())


class Neo4jRepository:
    """``GraphRepository`` on a Neo4j 5 server."""

    backend = "neo4j"

    def __init__(self, driver: Driver, uri: str, database: str | None) -> None:
        self._driver = driver
        self._database = database
        self._contexts = _Contexts()
        self._closed = False
        self.uri = uri
        self.location = uri if database is None else f"{uri} (database {database})"

    # --- lifecycle ----------------------------------------------------------------------
    @classmethod
    def connect(
        cls,
        uri: str,
        user: str,
        password: str,
        database: str | None = None,
        *,
        pool_size: int | None = None,
        progress: IndexProgress | None = None,
    ) -> Neo4jRepository:
        """Connect, check the credentials, and create the schema if it is missing.

        ``pool_size`` caps the connections this process keeps (the driver's 100 if None). A
        store from an older ryvem migrates here: its current rows' full-text index
        (``ryvem_text``) is dropped, an every-version index whose analyzer or fields differ is
        dropped, every version's full-text fields are filled (reporting
        ``progress("search index", done, total)``), and the indexes are created and waited
        for until online.
        """
        scheme = uri.partition("://")[0].lower() if "://" in uri else ""
        # http(s) would start the driver's preview HTTP client, never Bolt; any other scheme
        # (or none) fails in the driver as "50N42: Unexpected error has occurred".
        if scheme not in _BOLT_SCHEMES:
            raise errors.InvalidInput(
                f"cannot use Neo4j URI {uri!r}: ryvem speaks Bolt; use bolt://host:7687 or "
                "neo4j://host:7687 (+s or +ssc for TLS)"
            )
        try:
            driver = GraphDatabase.driver(
                uri,
                auth=(user, password),
                max_connection_pool_size=pool_size or _POOL_SIZE,
                connection_timeout=_CONNECT_TIMEOUT_S,
                connection_acquisition_timeout=2 * _CONNECT_TIMEOUT_S,
                max_transaction_retry_time=30.0,
                notifications_min_severity="OFF",
            )
        except (*DRIVER_ERRORS, ValueError) as e:
            raise from_driver(e, uri) from e
        repo = cls(driver, uri, database)
        try:
            driver.verify_connectivity()
            repo._bootstrap(progress)
        except (*DRIVER_ERRORS, ValueError) as e:
            driver.close()
            raise from_driver(e, uri) from e
        except BaseException:
            driver.close()
            raise
        return repo

    def _bootstrap(self, progress: IndexProgress | None = None) -> None:
        """Create missing constraints and indexes (idempotent), wait until they are online,
        and run the data migrations (``migrate_*``) the store has not had."""
        self._create_schema(progress)
        done = set(self._query("migrations_done")[0]["done"])
        for name in cypher.names("migrate_"):
            if name not in done:
                # CALL { ... } IN TRANSACTIONS needs an auto-commit query.
                with self._session(WRITE_ACCESS) as session:
                    session.run(cypher.load(name)).consume()

    def _create_schema(self, progress: IndexProgress | None = None) -> None:
        """Create what is missing of the schema.

        An older ryvem's current-rows full-text index (``ryvem_text``) is dropped, as is an
        every-version index that differs from what this ryvem creates (an older analyzer or
        fields); when the every-version index is missing, the versions' full-text fields are
        (re)filled before it is created.
        """
        found = {r["name"]: r for r in self._query("schema_names")}
        if "ryvem_text" in found:  # the current rows' own index: search reads ryvem_text_all
            self._query("drop_text_index", write=True)
        text = found.get("ryvem_text_all")
        if text is not None and (
            text["analyzer"] != _ANALYZER or list(text["properties"] or []) != _TEXT_FIELDS
        ):
            self._query("drop_text_all_index", write=True)
            del found["ryvem_text_all"]
        if "ryvem_text_all" not in found:
            self._fill_text_fields(progress)
        missing = []
        for name in cypher.names("schema_"):
            m = _SCHEMA_NAME.search(cypher.load(name))
            if m is None or m.group(1) not in found:
                missing.append(name)
        if not missing:
            return
        for name in missing:
            try:
                self._query(name, write=True)
            except nx.ClientError as e:  # a concurrent bootstrap created it first
                if "AlreadyExists" not in (e.code or ""):
                    raise
        self._query("await_indexes", seconds=_INDEX_WAIT_S)
        if "schema_20_chunk_vectors" in missing:
            # A store from before vectors: queue its current rows once (they embed later;
            # lexical search sees them meanwhile). An empty store queues nothing.
            self._query("requeue_vectors", write=True, ids=None, scope_exact=None,
                        scope_prefix=None)

    def _fill_text_fields(self, progress: IndexProgress | None) -> None:
        """Give every version its full-text fields (an older store kept them on current rows
        only, without the key), a page of versions at a time."""
        total = self._query("count_versions")[0]["n"]
        if not total:
            return
        if progress is not None:
            progress("search index", 0, total)
        after, done = "", 0
        while True:
            page = self._query("text_fields_page", after=after, batch=_LOAD_CHUNK)
            if not page:
                return
            rows = [
                {"id": r["id"], **_text_fields(r["title"], r["key"], r["body"])} for r in page
            ]
            self._query("set_text_fields", write=True, rows=rows)
            after, done = page[-1]["id"], done + len(page)
            if progress is not None:
                progress("search index", min(done, total), max(total, done))

    def close(self) -> None:
        self._driver.close()
        self._closed = True

    @property
    def reads_concurrently(self) -> bool:
        """Searches may run from several threads at once (``ports.ReadsConcurrently``): the
        driver is thread-safe and each read takes a session of its own from its pool, so a
        hybrid search's lexical query waits on the server while the question is embedded and
        the vector query sent (hybrid p50 21-24 -> 18-22 ms on the SilverBullet corpus,
        docs/notes/search-notes.md)."""
        return not self._closed

    def __enter__(self) -> Neo4jRepository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- plumbing -----------------------------------------------------------------------
    def _query(self, name: str, *, write: bool = False, **params: Any) -> list[dict[str, Any]]:
        if not write:  # one round trip, where execute_query's transaction adds a COMMIT
            with self._session(READ_ACCESS) as session:
                return [r.data() for r in session.run(*_statement(_cypher(name, params),
                                                                  {**_FIELDS, **params}))]
        records, _, _ = self._driver.execute_query(
            *_statement(_cypher(name, params), {**_FIELDS, **params}),
            database_=self._database,
            routing_=RoutingControl.WRITE if write else RoutingControl.READ,
        )
        return [r.data() for r in records]

    def _fetch(self, text: str, params: dict[str, Any]) -> list[list[Any]]:
        """One read as an auto-commit query: a single round trip (RUN and PULL pipelined),
        where a managed transaction adds a COMMIT. Values only, no record objects."""
        with self._session(READ_ACCESS) as session:
            return session.run(*_statement(text, params)).values()

    def _session(self, access: str = WRITE_ACCESS) -> Session:
        # The same bookmark manager as execute_query: on a cluster, a read after a write
        # sees that write (causal consistency).
        return self._driver.session(
            database=self._database,
            default_access_mode=access,
            bookmark_manager=self._driver.execute_query_bookmark_manager,
        )

    def _guard(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except DRIVER_ERRORS as e:
            raise from_driver(e, self.uri) from e

    def _read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return self._guard(lambda: self._query(name, **params))

    def write(self, fn: Callable[[WriteTx], T]) -> T:
        """Run ``fn`` as one write; re-run it after a transient error (a deadlock, a lock
        timeout, a lost connection) or a stale plan, with jittered backoff, for up to
        ``_RETRY_S`` seconds."""
        deadline = time.monotonic() + _RETRY_S
        attempt = 0
        kept = True
        while True:
            tx = _Tx(self, kept)
            try:
                result = fn(tx)
                tx.commit()
                return result
            except _Stale:
                if tx.optimistic:  # planned on a kept context the guard refused: re-read
                    kept = False
                    continue
                if time.monotonic() > deadline:
                    raise errors.Conflict(
                        "the nodes this write reads kept changing under it; try again"
                    ) from None
            except DRIVER_ERRORS as e:
                if not e.is_retryable() or time.monotonic() > deadline:
                    raise from_driver(e, self.uri) from e
            except Exception:
                if not tx.optimistic or tx._planned:
                    raise
                # The rules refused on a kept context (e.g. a Conflict): decide on one read now.
                tx.forget_kept()
                kept = False
                continue
            finally:
                tx.close()
            attempt += 1
            time.sleep(min(0.2, 0.002 * 2 ** min(attempt, 7)) * random.uniform(0.5, 1.5))

    # --- forgetting (the Forgets capability) ------------------------------------------------
    def forget(self, fn: Callable[[ForgetTx], T], *, dry_run: bool = False) -> T:
        """Run ``fn`` in one explicit transaction (re-run after a transient error, as
        ``write``): the rewrite and its audit entry commit together or not at all. A
        ``dry_run`` runs in a read transaction that is rolled back, never committed."""
        deadline = time.monotonic() + _RETRY_S
        attempt = 0
        while True:
            try:
                with self._session(READ_ACCESS if dry_run else WRITE_ACCESS) as session, \
                        session.begin_transaction() as tx:
                    result = fn(_ForgetTx(tx))
                    if dry_run:
                        tx.rollback()
                    else:
                        tx.commit()
                        self._contexts.clear()  # what it rewrote may be in a kept context
                    return result
            except DRIVER_ERRORS as e:
                if not e.is_retryable() or time.monotonic() > deadline:
                    raise from_driver(e, self.uri) from e
            attempt += 1
            time.sleep(min(0.2, 0.002 * 2 ** min(attempt, 7)) * random.uniform(0.5, 1.5))

    def scrub(self, progress: Progress | None = None) -> None:
        """Nothing a client can do: the properties and the full-text index entries are
        rewritten by the transaction; the server's store files, transaction logs and index
        segments keep old bytes until the operator compacts them (docs/concepts/forgetting.md)."""
        if progress is not None:
            progress("done", 1, 1)

    def cleanup_pending(self) -> bool:
        return False  # no cleanup a client can run is ever left half done (see scrub)

    def audit(self) -> list[AuditEntry]:
        return [
            AuditEntry.model_construct(**r["entry"]) for r in self._read("forget_audit")
        ]

    # --- reads --------------------------------------------------------------------------
    def get_version(self, id: str) -> NodeVersion | None:
        rows = self._read("get_version", ids=[id])
        return _node(rows[0]["v"]) if rows else None

    def get_identity(
        self, identity: Identity, as_of: int | None, known_at: int | None = None
    ) -> NodeVersion | None:
        rows = self._read(
            "get_identity", ident=_ident(identity), as_of=as_of, known_at=known_at
        )
        return _node(rows[0]["v"]) if rows else None

    def latest_of_identity(
        self, identity: Identity, known_at: int | None = None
    ) -> NodeVersion | None:
        rows = self._read("latest_of_identity", ident=_ident(identity), known_at=known_at)
        return _node(rows[0]["v"]) if rows else None

    def get_entity(
        self, entity: str, as_of: int | None, known_at: int | None = None
    ) -> NodeVersion | None:
        return self.get_entities([entity], as_of, known_at).get(entity)

    def get_entities(
        self, entities: Sequence[str], as_of: int | None, known_at: int | None = None
    ) -> dict[str, NodeVersion]:
        if not entities:
            return {}
        rows = self._read(
            "get_entities", entities=list(dict.fromkeys(entities)), as_of=as_of,
            known_at=known_at,
        )
        return {v.entity: v for v in (_node(r["v"]) for r in rows)}

    def get_heads(
        self, entities: Sequence[str], as_of: int | None, known_at: int | None = None
    ) -> dict[str, NodeHead]:
        if not entities:
            return {}
        rows = self._read(
            "get_heads", entities=list(dict.fromkeys(entities)), as_of=as_of, known_at=known_at
        )
        return {h.entity: h for h in (NodeHead._make(r["h"]) for r in rows)}

    def find_by_key(
        self, key: str, scope: ScopeFilter, as_of: int | None, known_at: int | None = None
    ) -> list[NodeVersion]:
        rows = self._read(
            "find_by_key", key=key, as_of=as_of, known_at=known_at, **_scope_params(scope)
        )
        return [_node(r["v"]) for r in rows]

    def chain(self, entity: str) -> list[NodeVersion]:
        return [_node(r["v"]) for r in self._read("chain", entity=entity)]

    def edges_of(
        self, entity: str, as_of: int | None, known_at: int | None = None
    ) -> list[Edge]:
        edges = [
            _edge(r["edge"])
            for r in self._read("edges_of", entity=entity, as_of=as_of, known_at=known_at)
        ]
        out = sorted((e for e in edges if e.src == entity), key=lambda e: (e.rel, e.dst, e.id))
        into = sorted((e for e in edges if e.src != entity), key=lambda e: (e.rel, e.src, e.id))
        return out + into

    def search(
        self,
        query: SearchQuery,
        kinds: Sequence[str],
        scope: ScopeFilter,
        limit: int,
        as_of: int | None,
        known_at: int | None = None,
        every_version: bool = False,
    ) -> list[SearchHit]:
        filters: dict[str, Any] = {"kinds": list(kinds), "limit": limit, **_scope_params(scope)}
        lucene = "" if query.empty else _lucene(query)
        if not query.empty and not lucene:
            return []
        if not lucene:
            if as_of is None and known_at is None:
                rows = self._read("recent_current", **filters)
            else:
                rows = self._read("recent_as_of", as_of=as_of, known_at=known_at, **filters)
            return [
                SearchHit.model_construct(
                    id=r["id"], kind=r["kind"], scope=r["scope"], title=r["title"],
                    snippet=opening(r["body"] or ""), score=0.0,
                )
                for r in rows
            ]
        current = as_of is None and known_at is None and not every_version
        clocks: dict[str, Any] = {} if current else {"as_of": as_of, "known_at": known_at}
        if every_version:
            clocks["ever"] = True  # the window test dropped (queries.load)
        # Lucene hands over its best k hits; ask again with a larger k until the top `limit`
        # of the hits that pass the filters is exact (see search_fulltext).
        k = max(_SEARCH_FETCH * limit, _SEARCH_FETCH_MIN)
        while True:
            answer = self._read("search_fulltext" if current else "search_as_of",
                                query=lucene, k=k, **clocks, **filters)[0]
            rows = answer["rows"]
            if answer["fetched"] < k or limit < 1 or (
                len(rows) >= limit and rows[-1][5] > answer["floor"]
            ):
                break
            k *= 8
        return [
            SearchHit.model_construct(
                id=id, kind=kind, scope=sc, title=title,
                snippet=snippet(title, body or "", query), score=round(float(score), 6),
            )
            for id, kind, sc, title, body, score in rows
        ]

    # --- vectors (the StoresVectors capability) -------------------------------------------
    def vector_backlog(self, limit: int) -> list[PendingText]:
        rows = self._read("vector_backlog", limit=limit)
        return [PendingText(id=r["id"], ticket=int(r["ticket"]), title=r["title"],
                            body=r["body"] or "") for r in rows]

    def vector_pending(self) -> int:
        return int(self._read("vector_pending")[0]["pending"])

    def put_vectors(
        self, model: str, rows: Sequence[tuple[PendingText, Sequence[bytes]]]
    ) -> int:
        if not rows:
            return 0
        payload = [
            {"id": p.id, "ticket": p.ticket, "vectors": [_floats(v) for v in vectors]}
            for p, vectors in rows
        ]
        done = self._guard(lambda: self._query("put_vectors", write=True, model=model,
                                               rows=payload))
        return len(done)

    def requeue_vectors(
        self, ids: Sequence[str] | None = None, scope: ScopeFilter | None = None
    ) -> int:
        params = _scope_params(scope or ScopeFilter())
        rows = self._guard(lambda: self._query(
            "requeue_vectors", write=True, ids=None if ids is None else list(ids), **params))
        return int(rows[0]["queued"]) if rows else 0

    def other_vector_models(self, model: str) -> dict[str, int]:
        rows = self._read("other_vector_models", model=model)
        return {str(r["model"]): int(r["rows"]) for r in rows}

    def vector_search(
        self,
        model: str,
        vector: bytes,
        kinds: Sequence[str],
        scope: ScopeFilter,
        limit: int,
    ) -> list[SearchHit]:
        filters = {"kinds": list(kinds), "limit": limit, **_scope_params(scope)}
        query = _floats(vector)
        # The index returns the k nearest chunks before any filter: start at a few per hit
        # wanted and widen while filters (or one page's many chunks) leave too few.
        k = max(10 * limit, 100)
        while True:
            rows = self._read("vector_search", model=model, vector=query, k=k, **filters)
            if len(rows) >= limit:
                break
            total = int(self._read("count_chunks")[0]["chunks"])
            if k >= total:
                break
            k = min(k * 8, total)
        return [
            SearchHit.model_construct(
                id=r["id"], kind=r["kind"], scope=r["scope"], title=r["title"],
                snippet=opening(r["body"] or ""),
                score=round(2.0 * float(r["score"]) - 1.0, 6),  # back to the cosine
            )
            for r in rows
        ]

    def rebuild_text_index(self) -> int:
        # The server maintains its full-text index as rows change (the indexed fields are
        # written with each current row): there is nothing to rebuild, only to count.
        return int(self._read("count_current")[0]["current"])

    def expand(
        self,
        frontier: Sequence[str],
        side: Literal["out", "in"],
        rels: Sequence[str] | None,
        as_of: int | None,
        scope: ScopeFilter,
        known_at: int | None = None,
    ) -> Sequence[EdgeRow]:
        if not frontier:
            return []
        rows = self._read(
            "expand_out" if side == "out" else "expand_in",
            frontier=list(frontier),
            rels=None if rels is None else list(rels),
            as_of=as_of,
            known_at=known_at,
            **_scope_params(scope),
        )
        return [
            (r["id"], r["rel"], r["src"], r["dst"])
            for r in rows
        ]

    def neighbourhood(
        self,
        start: str,
        depth: int,
        direction: Literal["out", "in", "both"],
        rels: Sequence[str] | None,
        as_of: int | None,
        scope: ScopeFilter,
        known_at: int | None = None,
    ) -> Neighbourhood | None:
        """A walk's whole sub-graph in one query (``walk_out``/``walk_in``/``walk_both``): a
        breadth-first shortest-path search from the start finds the nodes within depth - 1
        hops, then the edges the walk can report and the heads of their ends come back with
        them in the same answer."""
        reach = depth - 1
        text = cypher.with_bound(
            f"walk_{direction}", max(1, reach), past=as_of is not None,
            known=known_at is not None,
        )
        params = {
            **_FIELDS, "start": start, "reach": reach,
            "rels": None if rels is None else list(rels), "as_of": as_of, "known_at": known_at,
            **_scope_params(scope),
        }
        records = self._guard(lambda: self._fetch(text, params))
        if not records:
            return Neighbourhood((), {})
        rows, found = records[0]
        heads = {h.entity: h for h in (NodeHead._make(x) for x in found)}
        # The near end of every edge is the start or a node the pattern already checked, so
        # "both ends valid and in scope" is "the far end valid and in scope".
        fits = {e for e, h in heads.items() if scope.matches(h.scope)}
        return Neighbourhood([tuple(r) for r in rows if r[2] in fits and r[3] in fits], heads)

    def link_candidates(self, tails: Sequence[str]) -> list[Candidate]:
        if not tails:
            return []
        return [Candidate(**r) for r in self._read("link_candidates", tails=list(set(tails)))]

    def link_targets(self, version_id: str) -> tuple[str, ...]:
        rows = self._read("link_targets", id=version_id)
        return tuple(sorted(rows[0]["targets"])) if rows else ()

    def stats(self) -> Stats:
        rows = self._read("stats_rows")[0]
        edges = self._read("stats_edges")[0]

        def groups(name: str) -> dict[str, int]:
            return {r["name"]: r["count"] for r in self._read(name)}

        return Stats(
            backend=self.backend,
            location=self.location,
            current_rows=rows["current"],
            superseded_rows=rows["superseded"],
            retired_rows=rows["retired"],
            edges_current=edges["current"],
            edges_closed=edges["closed"],
            kinds=groups("stats_kinds"),
            scopes=groups("stats_scopes"),
            rels=groups("stats_rels"),
        )

    # --- whole-graph streams ------------------------------------------------------------
    def iter_versions(
        self, batch: int = 1000
    ) -> Iterator[list[tuple[NodeVersion, tuple[str, ...]]]]:
        last = ""
        while True:
            rows = self._read("iter_versions", after=last, batch=batch)
            if not rows:
                return
            batch_rows = [(_node(r["v"]), tuple(sorted(r["targets"]))) for r in rows]
            yield batch_rows
            last = batch_rows[-1][0].id

    def iter_edges(self, batch: int = 1000) -> Iterator[list[Edge]]:
        last = ""
        while True:
            rows = self._read("iter_edges", after=last, batch=batch)
            if not rows:
                return
            yield [_edge(r["edge"]) for r in rows]
            last = rows[-1]["edge"]["id"]

    def load(
        self, versions: Iterable[tuple[NodeVersion, tuple[str, ...]]], edges: Iterable[Edge]
    ) -> tuple[int, int]:
        """Insert rows verbatim in one transaction, skipping ids already present; batched
        ``UNWIND`` statements of a few hundred rows each."""
        # Closed rows first, so a current row never meets its own successor's constraint.
        order = sorted(versions, key=lambda p: (p[0].valid_to is None, p[0].valid_from))
        vrows = [_version_row(v, t) for v, t in order]
        erows = [_edge_row(e) for e in sorted(edges, key=lambda e: e.valid_to is None)]

        def work(tx: ManagedTransaction) -> tuple[int, int]:
            nv = ne = 0
            for i in range(0, len(vrows), _LOAD_CHUNK):
                rec = tx.run(*_statement(cypher.load("load_versions"),
                                         {"rows": vrows[i : i + _LOAD_CHUNK]}))
                nv += rec.single(strict=True)["created"]
            for i in range(0, len(erows), _LOAD_CHUNK):
                chunk = erows[i : i + _LOAD_CHUNK]
                rec = tx.run(*_statement(cypher.load("load_edges"),
                                         {"ends": _ends(chunk), "rows": chunk}))
                ne += rec.single(strict=True)["created"]
            return nv, ne

        def run() -> tuple[int, int]:
            with self._session() as session:
                return session.execute_write(work)

        return self._guard(run)
