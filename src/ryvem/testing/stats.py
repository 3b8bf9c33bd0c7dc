"""Stats: the counts of rows by state, edges by state, and current rows per kind, scope and rel."""

from __future__ import annotations

from collections import Counter

from ryvem.application.service import Service
from ryvem.domain.model import Stats
from ryvem.ports import GraphRepository

from .base import ContractBase

BOARD = "board:infra"


def known_writes(svc: Service) -> None:
    """A supersede, an unchanged rewrite, unkeyed rows, a retire and a revival, a retire that
    stays, a second scope, a late-resolving link, an edge re-linked with new data, an unlink."""
    svc.write("decision", "Cache with Redis", key="cache", body="Needs [[latency]].")
    svc.write("decision", "Cache in process", key="cache", body="Only [[latency]] now.")
    svc.write("decision", "Cache in process", key="cache", body="Only [[latency]] now.")
    svc.write("page", "Latency", key="latency", body="p99 under 20 ms")
    svc.write("note", "An unkeyed thought")
    svc.write("note", "An unkeyed thought")
    svc.write("task", "Old task", key="old")
    svc.retire("task/old", reason="done elsewhere")
    svc.write("task", "Old task, back", key="old")
    svc.write("task", "Gone", key="gone", scope=BOARD)
    svc.retire("task/gone", scope=BOARD)
    svc.write("task", "Infra work", key="infra", scope=BOARD)
    svc.link("decision/cache", "task/old", "depends-on", data={"weight": 2})
    svc.link("decision/cache", "task/old", "depends-on", data={"weight": 3})
    svc.link("page/latency", "task/old", "about")
    svc.unlink("page/latency", "task/old", "about")


def counted(repo: GraphRepository) -> Stats:
    """The same counts, taken row by row from the whole-graph streams."""
    versions = [v for batch in repo.iter_versions() for v, _ in batch]
    edges = [e for batch in repo.iter_edges() for e in batch]
    current = [v for v in versions if v.valid_to is None]
    return Stats(
        backend=repo.backend,
        location=repo.location,
        current_rows=len(current),
        superseded_rows=sum(v.valid_to is not None and v.superseded_by is not None
                            for v in versions),
        retired_rows=sum(v.valid_to is not None and v.superseded_by is None for v in versions),
        edges_current=sum(e.valid_to is None for e in edges),
        edges_closed=sum(e.valid_to is not None for e in edges),
        kinds=dict(Counter(v.kind for v in current)),
        scopes=dict(Counter(v.scope for v in current)),
        rels=dict(Counter(e.rel for e in edges if e.valid_to is None)),
    )


class StatsContract(ContractBase):
    """Stats: the counts of rows by state, edges by state, and current rows per kind, scope
    and rel."""

    def test_an_empty_store_counts_nothing_and_names_itself(self, repo: GraphRepository) -> None:
        """Every count of an empty store is zero, and it reports its own backend and location."""
        s = repo.stats()
        assert (s.backend, s.location) == (repo.backend, repo.location)
        assert (s.current_rows, s.superseded_rows, s.retired_rows) == (0, 0, 0)
        assert (s.edges_current, s.edges_closed) == (0, 0)
        assert (s.kinds, s.scopes, s.rels) == ({}, {}, {})

    def test_stats_count_rows_and_edges_by_state_after_a_known_sequence_of_writes(
        self, service: Service, repo: GraphRepository
    ) -> None:
        """A retired row later revived counts as superseded; only a retire that stays counts as
        retired; per-kind, per-scope and per-rel counts are of current rows and edges only."""
        known_writes(service)
        s = service.stats()
        assert (s.current_rows, s.superseded_rows, s.retired_rows) == (6, 2, 1)
        assert (s.edges_current, s.edges_closed) == (4, 2)
        assert s.kinds == {"decision": 1, "note": 2, "page": 1, "task": 2}
        assert s.scopes == {"global": 5, BOARD: 1}
        assert s.rels == {"depends-on": 1, "links": 1, "supersedes": 2}

    def test_stats_agree_with_the_rows_the_store_streams(
        self, service: Service, repo: GraphRepository
    ) -> None:
        """Every count equals the one taken row by row from iter_versions and iter_edges."""
        known_writes(service)
        assert repo.stats() == counted(repo)
