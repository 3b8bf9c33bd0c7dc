"""Copy a whole graph from one repository to another (``ryvem graph copy``).

Every node version and every edge is copied verbatim — ids, windows, chains, retire reasons
and link targets — by streaming the source's ``iter_versions``/``iter_edges`` batches into
the target's ``load``, one transaction per batch. Versions go first, so every edge lands
after the versions it joins. ``load`` skips ids the target already holds, so running a copy
again adds nothing and a copy interrupted half-way can simply be run again. The audit trail
of redactions and purges comes last (entries the target lacks, by id, oldest first, in one
transaction), so a store rebuilt by a round trip still says what was forgotten. At the end
the counts on both sides are compared: rows by state, current rows per kind and per scope,
edges by state and current edges per rel.

Before it writes anything, a copy into a store that already holds current rows checks that
no row it brings contradicts them: a current version of an identity (kind, key, scope) the
target holds under another id, or a current edge (from, to, rel) it holds under another id —
a target with rows of its own, or one an earlier copy filled before the source changed. Such
a copy is refused whole (``Conflict``; it used to stop at the first batch holding one, with
the batches before it written). A writer racing the copy can still make one batch refuse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ryvem.domain.model import Identity, Stats
from ryvem.errors import Conflict, InvalidInput
from ryvem.ports import Forgets, ForgetTx, GraphRepository

__all__ = ["CopyReport", "Progress", "compare_stats", "copy_graph"]

DEFAULT_BATCH = 1000

Phase = Literal["versions", "edges"]
Progress = Callable[[Phase, int, int], None]
"""Called after each batch: (phase, rows done in this phase, rows in this phase in total)."""


@dataclass(frozen=True)
class CopyReport:
    """What a copy did and whether both sides now hold the same counts."""

    source: Stats
    target: Stats
    versions_read: int
    versions_new: int
    edges_read: int
    edges_new: int
    differences: list[str] = field(default_factory=list)
    audit_read: int = 0
    audit_new: int = 0

    @property
    def counts_match(self) -> bool:
        return not self.differences

    def record(self) -> dict[str, Any]:
        return {
            "from": {"backend": self.source.backend, "location": self.source.location},
            "to": {"backend": self.target.backend, "location": self.target.location},
            "versions": {"read": self.versions_read, "new": self.versions_new},
            "edges": {"read": self.edges_read, "new": self.edges_new},
            "audit": {"read": self.audit_read, "new": self.audit_new},
            "counts_match": self.counts_match,
            "differences": self.differences,
            "counts": _totals(self.target),
        }


def _totals(s: Stats) -> dict[str, Any]:
    return {
        "current_rows": s.current_rows,
        "superseded_rows": s.superseded_rows,
        "retired_rows": s.retired_rows,
        "edges_current": s.edges_current,
        "edges_closed": s.edges_closed,
        "kinds": dict(s.kinds),
        "scopes": dict(s.scopes),
        "rels": dict(s.rels),
    }


def compare_stats(a: Stats, b: Stats) -> list[str]:
    """One line per count that differs between two stores (empty when all agree)."""
    out: list[str] = []
    ta, tb = _totals(a), _totals(b)
    for name in ("current_rows", "superseded_rows", "retired_rows", "edges_current",
                 "edges_closed"):
        if ta[name] != tb[name]:
            out.append(f"{name.replace('_', ' ')}: {a.backend} {ta[name]}, {b.backend} {tb[name]}")
    for group, label in (("kinds", "kind"), ("scopes", "scope"), ("rels", "rel")):
        ga, gb = ta[group], tb[group]
        for name in sorted(set(ga) | set(gb)):
            if ga.get(name, 0) != gb.get(name, 0):
                out.append(
                    f"{label} {name}: {a.backend} {ga.get(name, 0)}, {b.backend} {gb.get(name, 0)}"
                )
    return out


def copy_graph(
    source: GraphRepository,
    target: GraphRepository,
    *,
    batch: int = DEFAULT_BATCH,
    progress: Progress | None = None,
) -> CopyReport:
    """Copy every version and edge of ``source`` into ``target`` and compare the counts."""
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise InvalidInput(f"batch must be a positive integer, got {batch!r}")
    if source.backend == target.backend and source.location == target.location:
        raise InvalidInput(f"source and target are the same store ({source.location})")
    clashes = _clashes(source, target, batch)
    if clashes:
        more = f" and {len(clashes) - 1} more" if len(clashes) > 1 else ""
        raise Conflict(
            f"nothing was copied: {target.backend} already holds {clashes[0]}{more}, each under "
            "another id than the source's (a copy adds rows to a store; it does not merge "
            "two histories): copy into an empty store"
        )
    before = source.stats()
    total_versions = before.current_rows + before.superseded_rows + before.retired_rows
    total_edges = before.edges_current + before.edges_closed
    versions_read = versions_new = edges_read = edges_new = 0
    if progress is not None:
        progress("versions", 0, total_versions)
    for rows in source.iter_versions(batch):
        new, _ = target.load(rows, [])
        versions_read += len(rows)
        versions_new += new
        if progress is not None:
            progress("versions", versions_read, max(total_versions, versions_read))
    if progress is not None:
        progress("edges", 0, total_edges)
    for edges in source.iter_edges(batch):
        _, new = target.load([], edges)
        edges_read += len(edges)
        edges_new += new
        if progress is not None:
            progress("edges", edges_read, max(total_edges, edges_read))
    audit_read, audit_new = _copy_audit(source, target)
    after_source = source.stats()
    after_target = target.stats()
    return CopyReport(
        source=after_source,
        target=after_target,
        versions_read=versions_read,
        versions_new=versions_new,
        edges_read=edges_read,
        edges_new=edges_new,
        differences=compare_stats(after_source, after_target),
        audit_read=audit_read,
        audit_new=audit_new,
    )


def _clashes(source: GraphRepository, target: GraphRepository, batch: int) -> list[str]:
    """What the copy would contradict in ``target``, one phrase each (module doc): current
    rows of ``source`` whose identity, or current edges whose (from, to, rel), ``target``
    holds current under another id. Nothing to read when ``target`` holds no current row."""
    held = target.stats()
    if held.current_rows == 0 and held.edges_current == 0:
        return []
    nodes: dict[Identity, str] = {}
    for rows in target.iter_versions(batch):
        for v, _ in rows:
            if v.valid_to is None and v.key is not None:
                nodes[(v.kind, v.key, v.scope)] = v.id
    links: dict[tuple[str, str, str], str] = {}
    for edges in target.iter_edges(batch):
        for e in edges:
            if e.valid_to is None:
                links[(e.src, e.dst, e.rel)] = e.id
    out: list[str] = []
    for rows in source.iter_versions(batch):
        for v, _ in rows:
            if v.valid_to is None and v.key is not None:
                there = nodes.get((v.kind, v.key, v.scope))
                if there is not None and there != v.id:
                    out.append(f"a current {v.kind} {v.key!r} in {v.scope}")
    for edges in source.iter_edges(batch):
        for e in edges:
            there = links.get((e.src, e.dst, e.rel))
            if e.valid_to is None and there is not None and there != e.id:
                out.append(f"a current {e.rel} edge between the same two nodes")
    return out


def _copy_audit(source: GraphRepository, target: GraphRepository) -> tuple[int, int]:
    """Append to ``target`` the audit entries of ``source`` it lacks (by id, oldest first);
    (entries read, entries new). Nothing when either store cannot forget."""
    if not (isinstance(source, Forgets) and isinstance(target, Forgets)):
        return 0, 0
    entries = source.audit()
    have = {e.id for e in target.audit()}
    new = [e for e in reversed(entries) if e.id not in have]

    def record(tx: ForgetTx) -> None:
        for entry in new:
            tx.record_audit(entry)

    if new:
        target.forget(record)
    return len(entries), len(new)
