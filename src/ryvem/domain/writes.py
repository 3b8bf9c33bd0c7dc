"""The write rules, as pure planning: what a batch of node writes does, given what the store
read. No store, no I/O: the application reads, calls :func:`plan_writes` and
:func:`plan_link_refresh`, and hands what they decided to the store's write transaction.

The rules (each stated once, here):

- **insert-or-supersede** on (kind, key, scope): a keyed write closes the identity's current
  version and continues its entity; writing exactly the current title, body and data again
  is ``unchanged`` (no version, whatever the valid time says); an unkeyed write appends.
- **revive**: a key whose node was retired gets a new version on the same entity.
- **rename** (``renamed_from``): the old key's current version closes and the node continues
  under the new key; refused when the new key is current.
- **append-only valid time**: a supplied valid time may not precede the identity's latest
  valid time (equal is taken as 1 µs later, as two writes in one microsecond are).
- **links**: a node's ``links`` edges match the links its body and data hold, resolved by
  :mod:`ryvem.domain.links`; edges open no earlier than the node they reach appeared, and
  never before the edge they replace closed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ryvem.domain.ids import IdSequence
from ryvem.domain.links import Candidate, Link, extract_links, normalize, resolve_links, tail
from ryvem.domain.model import LINKS, SUPERSEDES, Edge, Identity, NodeVersion
from ryvem.domain.redaction import links_of
from ryvem.domain.timeutil import format_us
from ryvem.errors import Conflict, InvalidInput

__all__ = [
    "Close",
    "EdgeOpen",
    "LinkRefresh",
    "Linker",
    "NewNode",
    "NodeWrites",
    "Outcome",
    "WriteResult",
    "append_only",
    "by_last_segment",
    "node_name",
    "plan_link_refresh",
    "plan_writes",
]

Outcome = Literal["created", "superseded", "revived", "renamed", "unchanged"]


@dataclass(frozen=True, slots=True)
class NewNode:
    """A validated write request."""

    kind: str
    title: str
    scope: str
    key: str | None = None
    body: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    valid_from: int | None = None
    """When this became true (valid time, microseconds); None: when it is written."""
    renamed_from: str | None = None  # the old key: its current version moves to ``key``

    @property
    def identity(self) -> Identity | None:
        return None if self.key is None else (self.kind, self.key, self.scope)

    @property
    def old_identity(self) -> Identity | None:
        """The identity a rename moves from (same kind and scope), if this is a rename."""
        return None if self.renamed_from is None else (self.kind, self.renamed_from, self.scope)


@dataclass(frozen=True, slots=True)
class WriteResult:
    version: NodeVersion
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class Close:
    """Close a current version's window at valid time ``at``, recorded at ``recorded_at``."""

    id: str
    at: int
    recorded_at: int
    superseded_by: str | None = None
    retired_reason: str | None = None


@dataclass(frozen=True, slots=True)
class Linker:
    """A current version whose ``links`` edges are being brought up to date, from valid time
    ``at`` on."""

    entity: str
    kind: str
    scope: str
    key: str | None
    links: tuple[Link, ...]
    at: int

    @classmethod
    def of(cls, v: NodeVersion, at: int) -> Linker:
        return cls(v.entity, v.kind, v.scope, v.key, tuple(links_of(v)), max(at, v.valid_from))


def append_only(what: str, at: int, floor: int, *, strict: bool) -> int:
    """A supplied valid time ``at`` against the latest valid time ``floor`` of what it
    changes: before it is an error (history is append-only on both clocks); equal to it,
    when the change needs a later instant (``strict``), it is taken as 1 µs later, as two
    writes in one microsecond are."""
    if at < floor:
        raise InvalidInput(
            f"valid time {format_us(at)} precedes {what}'s latest valid time "
            f"{format_us(floor)}: history is append-only on both clocks, so a change can "
            "only be dated at or after the last one (a new node may start in the past)"
        )
    return floor + 1 if strict and at == floor else at


@dataclass
class NodeWrites:
    """What a batch of node writes decided: the rows to write and what their links need."""

    results: list[WriteResult] = field(default_factory=list)
    versions: list[NodeVersion] = field(default_factory=list)
    targets: list[tuple[str, ...]] = field(default_factory=list)
    closes: list[Close] = field(default_factory=list)
    revives: list[tuple[str, str]] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    sources: list[Linker] = field(default_factory=list)
    """The written versions whose links edges must be brought up to date."""
    changed_tails: set[str] = field(default_factory=set)
    """Last key segments that appeared (or moved away): links to them re-resolve."""
    appeared_at: dict[str, int] = field(default_factory=dict)
    """Entity → valid time it appeared at its key: an edge to it opens no earlier."""
    since: int = 0
    """The earliest valid time a key appeared at (re-resolved links change from then)."""


def node_name(v: NodeVersion) -> str:
    """How a message names a node: KIND/KEY, or its id when it has no key."""
    return f"{v.kind}/{v.key}" if v.key is not None else v.id


def _predecessor(
    n: NewNode, latest: Mapping[Identity, NodeVersion]
) -> tuple[NodeVersion | None, NodeVersion | None, int | None]:
    """(the version this write continues, the one a rename moves, the valid-time floor)."""
    prev = latest.get(n.identity) if n.identity is not None else None
    floor = None if prev is None else prev.latest_valid
    moved = latest.get(n.old_identity) if n.old_identity is not None else None
    if moved is not None and moved.is_current:
        if prev is not None and prev.is_current:
            raise Conflict(
                f"cannot rename {node_name(moved)} to {n.kind}/{n.key}: that key is "
                "current; nothing was written"
            )
        # The node moves: its history continues under the new key, after both the old key's
        # latest valid time and the new key's (an earlier page there).
        floor = moved.valid_from if floor is None else max(floor, moved.valid_from)
        return moved, moved, floor
    if prev is not None and not prev.is_current and prev.superseded_by is not None:
        # The key's node was renamed away (its newest version here was superseded under
        # another key): this write starts a new node at the key, after the moved one's time
        # here, instead of reviving a version that already has a successor.
        return None, None, floor
    return prev, None, floor


def _version(n: NewNode, vid: str, prev: NodeVersion | None, at: int, recorded: int) -> NodeVersion:
    return NodeVersion.model_construct(
        id=vid, entity=prev.entity if prev is not None else vid, kind=n.kind, scope=n.scope,
        key=n.key, title=n.title, body=n.body, data=n.data, valid_from=at, valid_to=None,
        superseded_by=None, supersedes=None if prev is None else prev.id, retired_reason=None,
        recorded_at=recorded, closure_recorded_at=None,
    )


def _edge(
    eid: str, rel: str, src: str, dst: str, data: dict[str, str], at: int, recorded: int
) -> Edge:
    return Edge.model_construct(
        id=eid, rel=rel, src=src, dst=dst, data=data, valid_from=at, valid_to=None,
        recorded_at=recorded, closure_recorded_at=None,
    )


def plan_writes(
    nodes: Sequence[NewNode], latest: Mapping[Identity, NodeVersion], mint: IdSequence
) -> NodeWrites:
    """Decide a batch of node writes from ``latest`` (each identity's newest version, as the
    store read it), recorded at ``mint.at``, which is also the valid time of every node that
    gives none: its versions and their links edges open together. Ids come from ``mint`` in
    batch order (the far node's "age" orders a walk)."""
    recorded = mint.at
    out = NodeWrites(since=recorded)
    appeared: list[NodeVersion] = []
    for n in nodes:
        prev, moved, floor = _predecessor(n, latest)
        renaming = moved is not None
        if (
            not renaming and prev is not None and prev.is_current
            and (prev.title, prev.body, prev.data) == (n.title, n.body, n.data)
        ):
            out.results.append(WriteResult(prev, "unchanged"))
            continue
        at = recorded
        if n.valid_from is not None:
            at = n.valid_from if floor is None else append_only(
                f"{n.kind}/{n.key}", n.valid_from, floor, strict=True
            )
        vid = mint()
        version = _version(n, vid, prev, at, recorded)
        outcome: Outcome = "created"
        if prev is not None:
            out.edges.append(_edge(mint(), SUPERSEDES, vid, prev.id, {}, at, recorded))
            if renaming or prev.is_current:
                out.closes.append(Close(prev.id, at, recorded, superseded_by=vid))
                outcome = "renamed" if renaming else "superseded"
            else:
                out.revives.append((prev.id, vid))
                outcome = "revived"
        if renaming and prev is not None:
            out.changed_tails.add(tail(normalize(prev.key or "")))
        if outcome != "superseded" and n.key is not None:
            appeared.append(version)
            out.appeared_at[version.entity] = at
        links = tuple(extract_links(n.body, n.key, n.data))
        out.versions.append(version)
        out.targets.append(tuple(dict.fromkeys(link.target for link in links)))
        if links or outcome != "created":
            out.sources.append(Linker(version.entity, n.kind, n.scope, n.key, links, at))
        out.results.append(WriteResult(version, outcome))
    out.changed_tails |= {tail(normalize(v.key)) for v in appeared if v.key is not None}
    out.since = min((v.valid_from for v in appeared), default=recorded)
    return out


@dataclass(frozen=True, slots=True)
class EdgeOpen:
    src: str
    dst: str
    data: dict[str, str]
    at: int


@dataclass
class LinkRefresh:
    """The links edges to close (valid time → ids) and to open, for a set of sources."""

    closes: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    opens: list[EdgeOpen] = field(default_factory=list)

    def new_edges(self, mint: IdSequence) -> list[Edge]:
        return [_edge(mint(), LINKS, o.src, o.dst, o.data, o.at, mint.at) for o in self.opens]


def plan_link_refresh(
    sources: Iterable[Linker],
    by_tail: Mapping[str, Sequence[Candidate]],
    have: Mapping[str, Mapping[str, Edge]],
    appeared_at: Mapping[str, int],
) -> LinkRefresh:
    """Make each source's current ``links`` edges (``have``: src → dst → edge) match its links
    resolved against ``by_tail`` (last key segment → candidates). An edge whose link changed
    anchor or field is closed and reopened with the new data; a source's edges change at its
    ``at``, an edge to a node that appeared in this write opens no earlier than it did, and
    never before an edge it replaces closed. The outcome depends only on the sources' links and
    the candidates, never on the order things were written."""
    out = LinkRefresh()
    for s in sources:
        want, _ = resolve_links(s.links, s.entity, s.scope, s.kind, s.key, by_tail)
        current = have.get(s.entity, {})
        closed_at: dict[str, int] = {}
        for dst, e in current.items():
            if dst not in want or e.data != want[dst].edge_data():
                closed_at[dst] = max(s.at, e.valid_from)
                out.closes[closed_at[dst]].append(e.id)
        for dst, link in want.items():
            data = link.edge_data()
            if dst not in current or current[dst].data != data:
                at = max(s.at, appeared_at.get(dst, s.at), closed_at.get(dst, s.at))
                out.opens.append(EdgeOpen(s.entity, dst, data, at))
    return out


def by_last_segment(
    lookup: Callable[[Sequence[str]], Iterable[Candidate]], targets: Iterable[str]
) -> dict[str, list[Candidate]]:
    """Candidate keys for these link targets, grouped by last segment: one lookup."""
    tails = sorted({tail(t) for t in targets})
    grouped: dict[str, list[Candidate]] = defaultdict(list)
    for cand in lookup(tails) if tails else []:
        grouped[tail(cand.norm)].append(cand)
    return grouped
