"""The repository port: what the service needs from a store, and nothing else.

``GraphRepository`` and ``WriteTx`` are :class:`typing.Protocol` s; adapters satisfy them
structurally and are checked by the shared contract suite, :mod:`ryvem.testing`.

Writes go through :meth:`GraphRepository.write`: the adapter opens one transaction, hands
the service's function a ``WriteTx`` bound to it, and commits only if the function returns.
An adapter may run the function again after a transient failure (a lock, a deadlock), so
the function must not have side effects outside the transaction. Every ``WriteTx`` method
takes a batch, so a write costs a fixed number of round trips however many nodes it touches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from ryvem.domain.links import Candidate
from ryvem.domain.model import (
    AuditEntry,
    Edge,
    Identity,
    NodeHead,
    NodeVersion,
    SearchHit,
    Stats,
)
from ryvem.domain.redaction import Rewritten
from ryvem.domain.scopes import ScopeFilter
from ryvem.domain.search import SearchQuery
from ryvem.domain.traversal import EdgeRow
from ryvem.domain.writes import Close

__all__ = [
    "AppliesPlans",
    "Close",
    "ForgetTx",
    "Forgets",
    "GraphRepository",
    "IndexProgress",
    "LinkSource",
    "Neighbourhood",
    "PendingText",
    "Progress",
    "ReadsConcurrently",
    "RebuildsTextIndex",
    "RequeuesVectors",
    "StoresVectors",
    "WalksInOneQuery",
    "WarmsUp",
    "WriteContext",
    "WritePlan",
    "WriteTx",
]

T = TypeVar("T")

IndexProgress = Callable[[str, int, int], None]
"""``progress(phase, done, total)``: how far an adapter's one-off index (re)build has got,
called while a store migrates on open (e.g. ``"search index"``; ``total`` rows). Opening a
store takes one optionally; the CLI draws a progress bar from it."""


@dataclass(frozen=True, slots=True)
class LinkSource:
    """A current version whose body links to ``targets`` (normalised)."""

    entity: str
    kind: str
    scope: str
    targets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WriteContext:
    """What a write reads before it is planned, fetched at once (see ``AppliesPlans``).

    Each answer comes with what it covers, so a planner can tell an empty answer from a
    question that was not asked: ``latest`` covers ``identities``; ``sources`` (current
    versions linking to a target with one of these last segments) covers ``source_tails``;
    ``candidates`` covers ``candidate_tails``; ``link_edges`` (current ``links`` edges
    leaving these entities) covers ``edge_sources``.
    """

    latest: Mapping[Identity, NodeVersion]
    identities: frozenset[Identity]
    sources: Sequence[LinkSource]
    source_tails: frozenset[str]
    candidates: Sequence[Candidate]
    candidate_tails: frozenset[str]
    link_edges: Sequence[Edge]
    edge_sources: frozenset[str]


@dataclass(slots=True)
class WritePlan:
    """A write the service decided, for the store to apply whole.

    ``expect`` holds, for each identity the plan read, the id of its newest version then
    (None: it had none); the store applies the plan only if that still holds and every row
    and edge it closes is still current, else it re-runs the write from its reads.
    """

    expect: dict[Identity, str | None]
    closes: list[Close]
    revives: list[tuple[str, str]]
    versions: list[NodeVersion]
    targets: list[tuple[str, ...]]
    edges: list[Edge]
    edge_closes: list[tuple[str, int, int]]
    """(edge id, valid time it closes at, system time the closure is recorded at)."""

    @property
    def empty(self) -> bool:
        return not (self.closes or self.revives or self.versions or self.edges
                    or self.edge_closes)


@runtime_checkable
class AppliesPlans(Protocol):
    """An optional capability of a ``WriteTx``: read a write's context in one round trip and
    apply its plan in one more.

    The service then runs its write rules against the context and records what they write
    into a ``WritePlan`` (``application.planning``), and calls ``apply`` once. A store whose
    round trips are free (SQLite) runs the rules against its primitives directly.
    """

    def write_context(
        self,
        identities: Sequence[Identity],
        key_tails: Sequence[tuple[Identity, str]],
        tails: Sequence[str],
    ) -> WriteContext:
        """The newest version of each identity; the current link sources of the key tails of
        identities without a current version; candidates for ``tails`` and for those
        sources' targets; the current ``links`` edges leaving every entity read."""

    def apply(self, plan: WritePlan) -> None:
        """Apply the plan at once, or raise to have the write re-run if it went stale."""


@dataclass(frozen=True, slots=True)
class Neighbourhood:
    """Everything one walk can touch, read at once (see ``WalksInOneQuery``).

    ``edges``: every edge, of the walk's rels and valid at its time, incident on the walk's
    sides to a node within depth - 1 hops of the start, whose far end is valid then and in
    scope (duplicates allowed). ``heads``: the head valid then of every end of those edges.
    """

    edges: Sequence[EdgeRow]
    heads: Mapping[str, NodeHead]


@runtime_checkable
class WalksInOneQuery(Protocol):
    """An optional capability: a store that reads a walk's whole sub-graph in one query.

    The service runs the same ``domain.traversal.bfs`` over it in memory, so the answer is
    the level-by-level walk's. A store without it (SQLite, whose ``expand`` is a local call)
    is walked level by level; a store may also return None to decline one walk.
    """

    def neighbourhood(
        self,
        start: str,
        depth: int,
        direction: Literal["out", "in", "both"],
        rels: Sequence[str] | None,
        as_of: int | None,
        scope: ScopeFilter,
        known_at: int | None = None,
    ) -> Neighbourhood | None: ...


@dataclass(frozen=True, slots=True)
class PendingText:
    """A current version waiting for its vectors: the text to embed and its queue ticket.

    ``ticket`` changes whenever the version is queued again (its vectors were dropped), so
    :meth:`StoresVectors.put_vectors` can refuse vectors computed from an older text.
    """

    id: str
    ticket: int
    title: str
    body: str


@runtime_checkable
class StoresVectors(Protocol):
    """An optional capability of a ``GraphRepository``: chunk vectors of current versions.

    Vectors are versioned like the text: a version is queued for embedding in the
    transaction that writes it, and its vectors (or its place in the queue) go in the
    transaction that closes it (supersede, retire), so a search never sees a closed row's
    vectors. Embedding itself happens outside any write (``application.search``): the
    application reads the backlog, embeds it, and hands the vectors back. A vector is
    little-endian float32 bytes (4 bytes a dimension), unit length, so cosine is a dot
    product; vectors of different ``model`` names are never compared.

    SQLite keeps blobs and scores them exactly with numpy; Neo4j keeps ``(:Chunk)`` nodes
    under a vector index. The application checks for the capability (``isinstance``); a
    store without it is searched lexically only.
    """

    def vector_backlog(self, limit: int) -> list[PendingText]:
        """Up to ``limit`` queued current versions, oldest ticket first."""

    def vector_pending(self) -> int:
        """How many current versions wait for vectors."""

    def put_vectors(
        self, model: str, rows: Sequence[tuple[PendingText, Sequence[bytes]]]
    ) -> int:
        """Store each version's chunk vectors (replacing any) and take it off the queue, in
        one transaction. A version closed or queued again since its text was read (another
        ticket) is skipped. Returns how many versions got vectors."""

    def requeue_vectors(
        self, ids: Sequence[str] | None = None, scope: ScopeFilter | None = None
    ) -> int:
        """Drop the vectors of these version ids (None: of every version in ``scope``, or of
        every version at all) and queue those that are current for embedding again, in one
        transaction. The call to make after a version's text changes in place (redaction).
        Returns how many versions were queued."""

    def vector_search(
        self,
        model: str,
        vector: bytes,
        kinds: Sequence[str],
        scope: ScopeFilter,
        limit: int,
    ) -> list[SearchHit]:
        """Current versions in ``scope`` (of ``kinds``; empty = all) whose vectors of
        ``model`` are nearest ``vector``, best first, one hit per version scored by its best
        chunk (``score`` is that chunk's similarity; the snippet is the body's start)."""

    def other_vector_models(self, model: str) -> dict[str, int]:
        """The models other than ``model`` whose vectors current versions still hold, each
        with how many versions (empty when every vector is of ``model``). Those versions have
        no rank in a search of ``model`` and are not queued: ``requeue_vectors`` embeds them
        again (the store was embedded by an older model)."""


@runtime_checkable
class RequeuesVectors(Protocol):
    """An optional capability of a ``ForgetTx``: drop the vectors of versions whose text was
    rewritten, and queue the current ones again, inside the forgetting's own transaction
    (``application.forget.text_changed``). Neo4j has it; SQLite needs none, since its
    trigger on a title or body update does the same in the same transaction."""

    def requeue_vectors(self, ids: Sequence[str]) -> int:
        """Drop these versions' vectors and queue the current ones again; how many queued."""


@runtime_checkable
class RebuildsTextIndex(Protocol):
    """An optional capability: rebuild the lexical index from the rows (``graph reindex``)."""

    def rebuild_text_index(self) -> int:
        """Rebuild the full-text index of current rows; returns how many rows it holds."""


@runtime_checkable
class ReadsConcurrently(Protocol):
    """An optional capability: ``search`` and ``vector_search`` may run at the same time
    from two threads, each as fast as alone (``reads_concurrently`` True). A hybrid search
    then runs its lexical leg beside the question's embedding and its vector leg."""

    @property
    def reads_concurrently(self) -> bool:
        """True when this store's searches run side by side (it may depend on how the store
        was opened)."""


@runtime_checkable
class WarmsUp(Protocol):
    """An optional capability: read ahead what a long-lived process's searches will need, so
    that its first search costs what the later ones do (``ryvem-mcp`` asks for it once, in
    the background, when the host's handshake is done: ``Session.start_warming``). SQLite
    has it; a Neo4j store keeps its indexes in the server, so opening it is all there is to
    do."""

    def warm(self, vector_model: str | None) -> None:
        """Load the vectors of ``vector_model`` (None: none) into memory, and start reading
        what full-text search keeps in memory; return once the vectors are loaded (the rest
        goes on in the background)."""


Progress = Callable[[str, int, int | None], None]
"""A long maintenance step reports (stage, done, total or None when it cannot be known)."""


class ForgetTx(Protocol):
    """The one audited way to rewrite stored content, inside one transaction (see
    ``Forgets``). Nothing here can change an id, kind, key, scope, window or chain: a
    rewrite names a version by id and carries only its content (``domain.redaction``)."""

    def versions_containing(
        self, text: str, scope: ScopeFilter
    ) -> list[tuple[NodeVersion, tuple[str, ...]]]:
        """Every version in scope (any window) whose title, body, data, retire reason, link
        targets, kind, key or scope may hold ``text``, with its link targets: a superset,
        which the caller checks exactly."""

    def chain(self, entity: str) -> list[tuple[NodeVersion, tuple[str, ...]]]:
        """Every version of an entity, oldest first, with its link targets."""

    def edges_containing(self, text: str, scope: ScopeFilter) -> list[Edge]:
        """Every edge (any window) with an end in scope whose data may hold ``text`` (a
        superset, checked by the caller)."""

    def edges_touching(self, entity: str) -> list[Edge]:
        """Every edge (any window, any rel but ``supersedes``) from or to an entity."""

    def rewrite_versions(self, rewrites: Sequence[Rewritten]) -> None:
        """Replace these versions' content and link targets, in place; the full-text index
        follows. Raises NotFound for an unknown id."""

    def rewrite_edges(self, rewrites: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Replace these edges' data: (edge id, new data)."""

    def record_audit(self, entry: AuditEntry) -> None:
        """Append an audit entry (committed with the rewrite, or not at all)."""


@runtime_checkable
class Forgets(Protocol):
    """An optional capability of a store: redact and purge (``application.forget``).

    ``forget`` runs ``fn`` in one transaction that may rewrite content, and nothing else
    may; with ``dry_run`` it runs ``fn`` in a transaction that only reads and is never
    committed (so it works on a store opened read-only, and ``fn`` must call no rewrite);
    ``scrub`` then removes what the store's files still hold of the old content (SQLite:
    free pages, the WAL, the full-text index's old segments); ``cleanup_pending`` says a
    ``forget`` that rewrote something committed and no ``scrub`` has completed since (one
    that failed: a busy log, a full disk), so the next redaction or purge scrubs even when it
    finds nothing to rewrite; ``audit`` lists what was forgotten, newest first.
    """

    def forget(self, fn: Callable[[ForgetTx], T], *, dry_run: bool = False) -> T: ...

    def scrub(self, progress: Progress | None = None) -> None: ...

    def cleanup_pending(self) -> bool: ...

    def audit(self) -> list[AuditEntry]: ...


class WriteTx(Protocol):
    """Primitive reads and writes inside one open write transaction."""

    def latest_by_identity(self, identities: Sequence[Identity]) -> dict[Identity, NodeVersion]:
        """The newest version (current or retired) of each identity that has one."""

    def current_of_entities(self, entities: Sequence[str]) -> dict[str, NodeVersion]:
        """The current version of each entity that has one."""

    def close_versions(self, closes: Sequence[Close]) -> None:
        """Close current versions; raise Conflict if any is no longer current."""

    def mark_superseded(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Set ``superseded_by`` on retired versions: (retired id, successor id)."""

    def insert_versions(
        self, versions: Sequence[NodeVersion], targets: Sequence[tuple[str, ...]]
    ) -> None:
        """Insert new versions with their body's normalised link targets."""

    def insert_edges(self, edges: Sequence[Edge]) -> None:
        """Insert edges; a second current edge (src, dst, rel) is an IntegrityError."""

    def close_edges(self, ids: Sequence[str], at: int, recorded_at: int) -> None:
        """Close current edges' windows at valid time ``at``, recorded at ``recorded_at``."""

    def latest_edge(self, src: str, dst: str, rel: str) -> Edge | None:
        """The newest edge (current or closed, by valid_from) of (src, dst, rel)."""

    def current_edges(
        self, src: str, dst: str | None = None, rel: str | None = None
    ) -> list[Edge]:
        """Current edges leaving one entity, optionally narrowed to a target and rel, read so
        that a concurrent write of the same source's edges cannot change them before this
        write commits (SQLite: the write lock; Neo4j: the source's lock, see lock_entity)."""

    def current_link_edges(self, sources: Sequence[str]) -> list[Edge]:
        """Current ``links`` edges leaving these entities."""

    def link_candidates(self, tails: Sequence[str]) -> list[Candidate]:
        """Current keyed nodes whose normalised key ends in one of these last segments."""

    def link_sources(self, tails: Sequence[str]) -> list[LinkSource]:
        """Current versions whose bodies link to a target with one of these last segments."""


class GraphRepository(Protocol):
    """A store of versioned nodes and edges. SQLite and Neo4j implement it.

    Reads take a point on both clocks: ``as_of`` (valid time; None: now) and ``known_at``
    (system time; None: now). A row is *visible* there when it was recorded by ``known_at``,
    began by ``as_of``, and its window was still open at ``as_of`` as known at ``known_at``
    (a closure recorded after ``known_at`` does not count): ``NodeVersion.visible``. Rows
    are returned as stored; the service shows them as known at ``known_at``.
    """

    backend: str
    location: str

    def write(self, fn: Callable[[WriteTx], T]) -> T:
        """Run ``fn`` in one atomic write transaction and return its result."""

    def close(self) -> None: ...

    # --- reads -------------------------------------------------------------------------
    def get_version(self, id: str) -> NodeVersion | None: ...

    def get_identity(
        self, identity: Identity, as_of: int | None, known_at: int | None = None
    ) -> NodeVersion | None:
        """The version of an identity visible at (``as_of``, ``known_at``)."""

    def latest_of_identity(
        self, identity: Identity, known_at: int | None = None
    ) -> NodeVersion | None:
        """The newest version of an identity recorded by ``known_at``, current or retired."""

    def get_entity(
        self, entity: str, as_of: int | None, known_at: int | None = None
    ) -> NodeVersion | None:
        """The version of an entity visible at (``as_of``, ``known_at``)."""

    def get_heads(
        self, entities: Sequence[str], as_of: int | None, known_at: int | None = None
    ) -> dict[str, NodeHead]:
        """Body-less heads of each entity's version visible at (``as_of``, ``known_at``)."""

    def find_by_key(
        self, key: str, scope: ScopeFilter, as_of: int | None, known_at: int | None = None
    ) -> list[NodeVersion]:
        """Versions visible at (``as_of``, ``known_at``) with this exact key, any kind."""

    def chain(self, entity: str) -> list[NodeVersion]:
        """Every version of an entity, oldest first."""

    def edges_of(
        self, entity: str, as_of: int | None, known_at: int | None = None
    ) -> list[Edge]:
        """Edges touching an entity (either end) visible at (``as_of``, ``known_at``);
        supersedes excluded."""

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
        """Hits in rank order, best first (``score`` descending; the position is the rank).

        The lexical contract: the domain's :func:`~ryvem.domain.search.lexical_plan` terms
        OR-ed, words stemmed and diacritics folded, ranked by BM25 over title (x4), key (x2)
        and body, rows holding more of the words first; current rows only, or with ``as_of``
        or ``known_at`` the rows visible at (``as_of``, ``known_at``), ranked the same way
        from an index of every version's text; with ``every_version`` (and neither clock)
        every version whenever it held, from that index with no window test (several
        versions of one node may come back: the caller keeps one a node). An empty query
        lists the most recent rows visible for the filters (``every_version`` aside)."""

    def expand(
        self,
        frontier: Sequence[str],
        side: Literal["out", "in"],
        rels: Sequence[str] | None,
        as_of: int | None,
        scope: ScopeFilter,
        known_at: int | None = None,
    ) -> Sequence[EdgeRow]:
        """Edges visible at (``as_of``, ``known_at``) incident to frontier entities whose far
        end is visible then, in scope.

        ``rels`` None means every rel except ``supersedes``.
        """

    def link_candidates(self, tails: Sequence[str]) -> list[Candidate]:
        """As ``WriteTx.link_candidates``, outside a write."""

    def link_targets(self, version_id: str) -> tuple[str, ...]:
        """The normalised link targets stored with a version."""

    def stats(self) -> Stats: ...

    # --- whole-graph streams (export, copy) --------------------------------------------
    def iter_versions(
        self, batch: int = 1000
    ) -> Iterator[list[tuple[NodeVersion, tuple[str, ...]]]]:
        """Every version with its link targets, in id order, in batches."""

    def iter_edges(self, batch: int = 1000) -> Iterator[list[Edge]]:
        """Every edge, in id order, in batches."""

    def load(
        self, versions: Iterable[tuple[NodeVersion, tuple[str, ...]]], edges: Iterable[Edge]
    ) -> tuple[int, int]:
        """Insert rows verbatim (ids and windows kept), skipping ids already present.

        Returns how many versions and edges were new. Used to copy between backends.
        """
