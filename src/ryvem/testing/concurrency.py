"""Concurrent writers, each with its own handle on one store: nothing lost, one chain.

Backend-neutral: the handles come from the backend's ``open_another()`` (for SQLite another
connection to the same file, for Neo4j another driver on the same server), one per thread.
The SQLite-only process races, at full size, are in tests/reliability.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from itertools import pairwise

from ryvem.application.service import Service
from ryvem.domain.model import LINKS, SUPERSEDES, Edge, NodeVersion
from ryvem.ports import GraphRepository

from .base import ContractBase

WRITERS = 8
SUPERSEDES_EACH = 10
OWN_EACH = 2  # distinct identities each writer creates besides the shared one
LINKS_EACH = 5  # re-links of one pair per writer
PAGES_EACH = 4  # pages (or target versions) per writer


class ConcurrencyContract(ContractBase):
    """Concurrent writers, each with its own handle on one store: nothing lost, one chain."""

    def race(self, repo: GraphRepository, writers: int, per_writer: int, own: int) -> None:
        main = Service(repo)
        first = main.write("decision", "race start", key="race")
        acked: list[list[NodeVersion]] = [[] for _ in range(writers)]
        owned: list[list[NodeVersion]] = [[] for _ in range(writers)]
        failures: list[BaseException] = []
        start = threading.Barrier(writers)

        def write(i: int) -> None:
            try:
                handle = self.open_another()
            except BaseException as e:
                failures.append(e)
                start.abort()
                return
            try:
                svc = Service(handle)
                start.wait()
                for n in range(per_writer):
                    acked[i].append(
                        svc.write("decision", f"race w{i} {n}", key="race", body=f"w{i} wrote {n}")
                    )
                    if n < own:
                        owned[i].append(svc.write("task", f"own w{i} {n}", key=f"own-{i}-{n}"))
                    time.sleep(0.001)  # let the other writers in between, so the writes interleave
            except BaseException as e:
                failures.append(e)
            finally:
                handle.close()

        threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert failures == []

        chain = main.history("decision/race")
        acks = [v for mine in acked for v in mine]
        assert len(chain) == 1 + len(acks) == 1 + writers * per_writer, "no version lost"
        assert chain[0].id == first.id and {v.entity for v in chain} == {first.id}
        assert {v.id for v in chain[1:]} == {v.id for v in acks}
        assert [v.is_current for v in chain] == [False] * (len(chain) - 1) + [True]
        for old, new in pairwise(chain):
            assert old.valid_from < new.valid_from and old.valid_to == new.valid_from
            assert old.superseded_by == new.id and new.supersedes == old.id
        for i in range(writers):  # each writer's writes are in the chain in the order it made them
            mine = [v.title for v in chain if v.title.startswith(f"race w{i} ")]
            assert mine == [f"race w{i} {n}" for n in range(per_writer)]

        versions = [v for batch in repo.iter_versions() for v, _ in batch]
        race_rows = [v for v in versions if v.identity == ("decision", "race", "global")]
        assert len(race_rows) == len(chain)
        assert [v.id for v in race_rows if v.is_current] == [chain[-1].id], "one current row"
        own_rows = [v for v in versions if v.kind == "task"]
        assert sorted(v.id for v in own_rows) == sorted(v.id for mine in owned for v in mine)
        assert len(own_rows) == writers * own and all(v.is_current for v in own_rows)
        assert len({v.identity for v in own_rows}) == writers * own
        sup = [e for batch in repo.iter_edges() for e in batch if e.rel == SUPERSEDES]
        assert {(e.src, e.dst) for e in sup} == {(b.id, a.id) for a, b in pairwise(chain)}
        s = repo.stats()
        assert (s.current_rows, s.superseded_rows, s.retired_rows) == (
            1 + writers * own, writers * per_writer, 0
        )

    def test_concurrent_writers_on_their_own_handles_leave_one_chain_and_lose_nothing(
        self, repo: GraphRepository
    ) -> None:
        """8 threads, each on its own handle, supersede one identity 10 times and write 2
        identities of their own: 81 versions in one chain, one current row, nothing lost."""
        self.race(repo, WRITERS, SUPERSEDES_EACH, OWN_EACH)

    def threads(self, writers: int, work: Callable[[Service, int], None]) -> None:
        """Run ``work(service, i)`` in ``writers`` threads, each on its own handle, started
        together; every call must succeed."""
        failures: list[BaseException] = []
        start = threading.Barrier(writers)

        def run(i: int) -> None:
            try:
                handle = self.open_another()
            except BaseException as e:
                failures.append(e)
                start.abort()
                return
            try:
                start.wait()
                work(Service(handle), i)
            except BaseException as e:
                failures.append(e)
            finally:
                handle.close()

        threads = [threading.Thread(target=run, args=(i,)) for i in range(writers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not failures, [repr(e) for e in failures]

    def test_racing_links_of_one_pair_leave_one_current_edge_and_windows_that_follow_on(
        self, repo: GraphRepository
    ) -> None:
        """8 threads, each on its own handle, re-link task/a -> decision/b 5 times with data of
        their own: every call succeeds, 40 edges, one current, each window closing where the
        next opens, and the current edge carries the data of the call that made it."""
        main = Service(repo)
        a = main.write("task", "A", key="a")
        b = main.write("decision", "B", key="b")
        made: list[Edge] = []

        def relink(svc: Service, i: int) -> None:
            for n in range(LINKS_EACH):
                made.append(svc.link("task/a", "decision/b", "depends-on",
                                     data={"writer": i, "n": n}).edge)
                time.sleep(0.001)

        self.threads(WRITERS, relink)
        edges = [e for batch in repo.iter_edges() for e in batch if e.rel == "depends-on"]
        assert {(e.src, e.dst) for e in edges} == {(a.entity, b.entity)}
        assert len(edges) == len(made) == WRITERS * LINKS_EACH
        assert sorted(e.id for e in edges) == sorted(e.id for e in made)
        current = [e for e in edges if e.valid_to is None]
        assert len(current) == 1, "one current edge per (from, to, rel)"
        chain = sorted(edges, key=lambda e: (e.valid_from, e.valid_to or 2**63))
        for old, new in pairwise(chain):
            assert old.valid_to == new.valid_from, "windows follow on, never overlap"
        [now] = current
        assert [e.data for e in main.edges_of("task/a")] == [now.data]

    def test_racing_writes_of_linking_pages_and_their_target_leave_every_link_resolved(
        self, repo: GraphRepository
    ) -> None:
        """7 threads write pages whose bodies link to [[target]] while an eighth creates
        target and rewrites it: whatever the interleaving, every page ends with exactly one
        current links edge, to target — a dangling link resolves even when its page and its
        target commit at the same moment."""
        main = Service(repo)

        def write(svc: Service, i: int) -> None:
            for n in range(PAGES_EACH):
                if i == 0:
                    svc.write("note", f"target {n}", key="target", body=f"version {n}")
                else:
                    svc.write("note", f"page {i}.{n}", key=f"page-{i}-{n}",
                              body=f"see [[target]] ({i}.{n})")
                time.sleep(0.001)

        self.threads(WRITERS, write)
        target = main.get("note/target")
        links = [e for batch in repo.iter_edges() for e in batch
                 if e.rel == LINKS and e.valid_to is None]
        pages = {main.get(f"note/page-{i}-{n}").entity
                 for i in range(1, WRITERS) for n in range(PAGES_EACH)}
        assert sorted((e.src, e.dst) for e in links) == sorted(
            (p, target.entity) for p in pages
        ), "each page has one current links edge, to target"

    def test_a_second_handle_sees_what_the_first_wrote_and_the_first_sees_its_writes(
        self, repo: GraphRepository
    ) -> None:
        """open_another() is the same store: each handle reads the other's committed writes."""
        first = Service(repo).write("decision", "From the first handle", key="shared")
        other = self.open_another()
        try:
            again = Service(other)
            assert again.get("decision/shared").id == first.id
            second = again.write("decision", "From the second handle", key="shared")
        finally:
            other.close()
        assert [v.id for v in Service(repo).history("decision/shared")] == [first.id, second.id]
