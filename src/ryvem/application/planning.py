"""Planned writes: the service's write rules run against prefetched reads, writes recorded.

For a store whose round trips cost (Neo4j), ``Service.write_many`` reads everything a write
needs in one query (``AppliesPlans.write_context``), runs its usual rules against a
``PlanningTx`` — a ``WriteTx`` that answers reads from that context as the store would answer
them *after* the writes recorded so far, and records every write into a ``WritePlan`` — and
hands the plan to the store once (``AppliesPlans.apply``). The rules are the same code either
way; only where their reads come from and when their writes land changes.

A read the context does not cover is passed on to the real transaction (correct, at the price
of a round trip), so the context only decides how fast a write is, never what it does.
"""

from __future__ import annotations

from collections.abc import Sequence

from ryvem.domain.links import Candidate, normalize, tail
from ryvem.domain.model import LINKS, Edge, Identity, NodeVersion
from ryvem.ports import AppliesPlans, Close, LinkSource, WriteContext, WritePlan, WriteTx

__all__ = ["PlanningTx"]


class PlanningTx(WriteTx):
    """Reads from a ``WriteContext`` (overlaid with the recorded writes), writes into a plan."""

    def __init__(self, tx: AppliesPlans, real: WriteTx, context: WriteContext) -> None:
        self._store = tx
        self._real = real
        self._ctx = context
        self.plan = WritePlan({}, [], [], [], [], [], [])
        self._closed_versions: set[str] = set()
        self._closed_edges: set[str] = set()
        self._new_entities: set[str] = set()

    def apply(self) -> None:
        """Send the recorded plan to the store (nothing when the rules wrote nothing)."""
        if not self.plan.empty:
            self._store.apply(self.plan)

    # --- what the recorded writes changed ----------------------------------------------------
    def _touched_entities(self) -> set[str]:
        """Entities whose current version the plan closes or replaces."""
        return {v.entity for v in self.plan.versions} | self._closed_entities()

    def _closed_entities(self) -> set[str]:
        """Entities whose current version the plan closes (the closes of a write are of the
        newest versions it read)."""
        closed = self._closed_versions
        return {v.entity for v in self._ctx.latest.values() if v.id in closed} if closed else set()

    def _new_current(self) -> list[tuple[NodeVersion, tuple[str, ...]]]:
        return [
            (v, t)
            for v, t in zip(self.plan.versions, self.plan.targets, strict=True)
            if v.valid_to is None
        ]

    # --- reads ---------------------------------------------------------------------------------
    def latest_by_identity(self, identities: Sequence[Identity]) -> dict[Identity, NodeVersion]:
        missing = [i for i in identities if i not in self._ctx.identities]
        out = {i: self._ctx.latest[i] for i in identities if i in self._ctx.latest}
        if missing:
            out.update(self._real.latest_by_identity(missing))
        for v in self.plan.versions:  # recorded versions are the newest
            if v.key is not None and (v.kind, v.key, v.scope) in identities:
                out[(v.kind, v.key, v.scope)] = v
        for ident in identities:
            self.plan.expect.setdefault(ident, out[ident].id if ident in out else None)
        return out

    def current_of_entities(self, entities: Sequence[str]) -> dict[str, NodeVersion]:
        return self._real.current_of_entities(entities)

    def current_edges(
        self, src: str, dst: str | None = None, rel: str | None = None
    ) -> list[Edge]:
        return self._real.current_edges(src, dst, rel)

    def latest_edge(self, src: str, dst: str, rel: str) -> Edge | None:
        return self._real.latest_edge(src, dst, rel)

    def link_candidates(self, tails: Sequence[str]) -> list[Candidate]:
        wanted = set(tails)
        covered = wanted & self._ctx.candidate_tails
        # An entity the plan gives a new current version is a candidate under that version's
        # key only (a rename moves it), so its stored candidates give way to the loop below.
        gone = self._closed_entities() | {v.entity for v, _ in self._new_current()}
        found: dict[tuple[str, str, str, str], Candidate] = {}
        for c in self._ctx.candidates:
            if tail(c.norm) in covered and c.entity not in gone:
                found[(c.entity, c.kind, c.key, c.scope)] = c
        if wanted - covered:
            for c in self._real.link_candidates(sorted(wanted - covered)):
                if c.entity not in gone:
                    found[(c.entity, c.kind, c.key, c.scope)] = c
        for v, _ in self._new_current():
            if v.key is not None and tail(normalize(v.key)) in wanted:
                found[(v.entity, v.kind, v.key, v.scope)] = Candidate(
                    v.entity, v.kind, v.key, v.scope
                )
        return list(found.values())

    def link_sources(self, tails: Sequence[str]) -> list[LinkSource]:
        wanted = set(tails)
        covered = wanted & self._ctx.source_tails
        touched = self._touched_entities()
        found: dict[str, LinkSource] = {}
        pre = [s for s in self._ctx.sources if {tail(t) for t in s.targets} & covered]
        if wanted - covered:
            pre += self._real.link_sources(sorted(wanted - covered))
        for s in pre:
            if s.entity not in touched:
                found[s.entity] = s
        for v, targets in self._new_current():
            if {tail(t) for t in targets} & wanted:
                found[v.entity] = LinkSource(v.entity, v.kind, v.scope, tuple(sorted(set(targets))))
        return list(found.values())

    def current_link_edges(self, sources: Sequence[str]) -> list[Edge]:
        wanted = set(sources)
        known = self._ctx.edge_sources | self._new_entities
        edges = [e for e in self._ctx.link_edges if e.src in wanted]
        unknown = sorted(wanted - known)
        if unknown:
            edges += self._real.current_link_edges(unknown)
        edges = [e for e in edges if e.id not in self._closed_edges]
        edges += [e for e in self.plan.edges
                  if e.rel == LINKS and e.src in wanted and e.valid_to is None]
        return edges

    # --- writes, recorded --------------------------------------------------------------------
    def close_versions(self, closes: Sequence[Close]) -> None:
        self.plan.closes.extend(closes)
        self._closed_versions.update(c.id for c in closes)

    def mark_superseded(self, pairs: Sequence[tuple[str, str]]) -> None:
        self.plan.revives.extend(pairs)

    def insert_versions(
        self, versions: Sequence[NodeVersion], targets: Sequence[tuple[str, ...]]
    ) -> None:
        self.plan.versions.extend(versions)
        self.plan.targets.extend(targets)
        # A version that is its own entity was minted just now: nothing links from it yet.
        self._new_entities.update(v.entity for v in versions if v.entity == v.id)

    def insert_edges(self, edges: Sequence[Edge]) -> None:
        self.plan.edges.extend(edges)

    def close_edges(self, ids: Sequence[str], at: int, recorded_at: int) -> None:
        self.plan.edge_closes.extend((i, at, recorded_at) for i in ids)
        self._closed_edges.update(ids)
