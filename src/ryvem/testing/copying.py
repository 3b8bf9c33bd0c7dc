"""The copy round trip: this backend → a fresh SQLite store → a fresh store of this backend.

``ryvem.application.copy.copy_graph`` streams versions (with their link targets) and edges
verbatim; both hops must keep every id, window, chain, retire reason, link target and edge.
"""

from __future__ import annotations

import pytest

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.copy import copy_graph
from ryvem.application.service import Service
from ryvem.domain.model import Edge, NodeVersion
from ryvem.errors import Conflict
from ryvem.ports import Forgets, GraphRepository

from .base import ContractBase
from .stats import known_writes


def versions(repo: GraphRepository) -> list[tuple[NodeVersion, tuple[str, ...]]]:
    return [p for batch in repo.iter_versions() for p in batch]


def edges(repo: GraphRepository) -> list[Edge]:
    return [e for batch in repo.iter_edges() for e in batch]


def fill(svc: Service) -> None:
    """The stats sequence, plus a dangling link that resolves late and Unicode data."""
    known_writes(svc)
    svc.write("decision", "Cache in process", key="cache", body="Only [[latency]] and [[budget]].",
              data={"why": "Redis was overkill", "ünïcode": ["é", 1, None, True]})
    svc.write("page", "Budget", key="budget")


class CopyingContract(ContractBase):
    """The copy round trip: this backend → a fresh SQLite store → a fresh store of this
    backend."""

    def test_a_copy_to_sqlite_and_back_keeps_every_version_edge_and_link_target(
        self, repo: GraphRepository
    ) -> None:
        """Both hops copy every row verbatim; the store that comes back equals the original."""
        fill(Service(repo))
        want_versions, want_edges, want_stats = versions(repo), edges(repo), repo.stats()
        assert any(targets for _, targets in want_versions), "some version has link targets"
        assert any(e.valid_to is not None for e in want_edges), "some edge is closed"
        with SqliteRepository.open(self.tmp_path / "copy" / "ryvem.db") as lite:
            there = copy_graph(repo, lite, batch=5)
            assert there.counts_match, there.differences
            assert (there.versions_new, there.edges_new) == (len(want_versions), len(want_edges))
            assert versions(lite) == want_versions
            assert edges(lite) == want_edges
            # A server-backed backend empties its one store here: the original is in lite now.
            with self.fresh_repository("back") as back:
                home = copy_graph(lite, back, batch=5)
                assert home.counts_match, home.differences
                assert (home.versions_new, home.edges_new) == (len(want_versions), len(want_edges))
                assert versions(back) == want_versions
                assert edges(back) == want_edges
                for v, targets in want_versions:
                    assert back.link_targets(v.id) == targets
                got = back.stats()
                assert got.model_dump(exclude={"location"}) == want_stats.model_dump(
                    exclude={"location"}
                )

    def test_a_copy_carries_the_audit_trail_and_the_erased_marks_once(
        self, repo: GraphRepository
    ) -> None:
        """A store rebuilt by a round trip (the operator's way to compact a server after a
        redaction) still says what was forgotten, by whom and why; a second copy adds no
        entry twice."""
        svc = Service(repo)
        fill(svc)
        svc.write("task", "Rotate the token sk-live-0123456789", key="rotate", scope="global")
        svc.redact("sk-live-0123456789", scope="global", reason="pasted a key")
        svc.purge("decision/cache", scope="global", reason="asked to")
        assert isinstance(repo, Forgets)
        want_audit = repo.audit()
        want_versions = versions(repo)
        assert [e.action for e in want_audit] == ["purge", "redact"]
        with SqliteRepository.open(self.tmp_path / "copy" / "ryvem.db") as lite:
            there = copy_graph(repo, lite, batch=5)
            assert (there.audit_read, there.audit_new) == (2, 2)
            assert lite.audit() == want_audit
            assert versions(lite) == want_versions
            again = copy_graph(repo, lite, batch=5)
            assert (again.audit_read, again.audit_new, again.versions_new) == (2, 0, 0)
            assert lite.audit() == want_audit
            with self.fresh_repository("back") as back:
                home = copy_graph(lite, back, batch=5)
                assert (home.audit_read, home.audit_new) == (2, 2)
                assert isinstance(back, Forgets) and back.audit() == want_audit
                assert [v.erased for v, _ in versions(back)] == [
                    v.erased for v, _ in want_versions
                ]

    def test_a_copy_brings_what_the_source_forgot_since_and_never_brings_forgotten_text_back(
        self, repo: GraphRepository
    ) -> None:
        """A redaction or purge in the source after a copy reached the target only as an
        audit entry: the rows were skipped by id, so the target kept the secret while its
        trail said it was gone. Now a copy rewrites them as the source holds them, in one
        transaction with the entries, and the target's files no longer hold the text; what
        the target forgot on its own is never overwritten; a second redaction in the source
        reaches it; one row redacted differently on each side refuses the copy whole."""
        svc = Service(repo)
        fill(svc)
        svc.write("task", "Rotate sk-live-0123456789 today", key="rotate", scope="global",
                  body="The token sk-live-0123456789 leaked; see [[cache]].")
        svc.link("rotate", "cache", "about", data={"note": "ghp_abcdefghijkl"}, scope="global")
        svc.write("task", "Call ACME-77-PRIVATE back", key="acme", scope="global")
        svc.write("note", "Own words: PRIVATE-TARGET-9", key="own", scope="global")
        folder = self.tmp_path / "copy"
        with SqliteRepository.open(folder / "ryvem.db") as lite:
            assert copy_graph(repo, lite, batch=5).counts_match
            svc.redact("sk-live-0123456789", scope="global", reason="pasted a key")
            svc.redact("ghp_abcdefghijkl", scope="global", reason="a token in an edge")
            svc.purge("task/acme", scope="global", reason="asked to")
            Service(lite).redact("PRIVATE-TARGET-9", scope="global", reason="the target's own")
            again = copy_graph(repo, lite, batch=5)
            assert again.counts_match, again.differences
            assert (again.audit_new, again.versions_new, again.edges_new) == (3, 0, 0)
            assert (again.versions_forgotten, again.edges_forgotten) == (2, 1)
            assert again.kept_forgotten == 1
            got = {v.id: (v, targets) for v, targets in versions(lite)}
            for v, targets in versions(repo):
                if v.key == "own":  # the target's own redaction stays
                    assert got[v.id][0].title == "Own words: [redacted]"
                    assert v.title == "Own words: PRIVATE-TARGET-9"
                    continue
                assert got[v.id] == (v, targets), v.key
            assert [e.data for e in edges(lite)] == [e.data for e in edges(repo)]
            assert isinstance(lite, Forgets) and len(lite.audit()) == 4
            assert copy_graph(repo, lite, batch=5).versions_forgotten == 0  # nothing left
            # A second redaction in the source of a row both redacted reaches the target (a
            # sweep found it refused as "redacted differently", the target keeping the text);
            # one the target makes further on its own is kept.
            svc.redact("leaked; see", scope="global", reason="a second pass")
            third = copy_graph(repo, lite, batch=5)
            assert (third.versions_forgotten, third.kept_forgotten) == (1, 1), third
            body = [v.body for v, _ in versions(lite) if v.key == "rotate"]
            assert body == ["The token [redacted] [redacted] [[cache]]."]
            Service(lite).redact("The token", scope="global", reason="the target, further")
            fourth = copy_graph(repo, lite, batch=5)
            assert (fourth.versions_forgotten, fourth.kept_forgotten) == (0, 2), fourth
            svc.redact("Own words", scope="global", reason="now the source too")
            before = versions(lite), edges(lite), lite.audit()
            with pytest.raises(Conflict, match=r"^nothing was copied: note [0-9a-f]{24} was "
                               "redacted differently in"):
                copy_graph(repo, lite, batch=5)
            assert (versions(lite), edges(lite), lite.audit()) == before
        held = b"".join(p.read_bytes() for p in folder.iterdir() if p.is_file())
        for secret in (b"sk-live-0123456789", b"ghp_abcdefghijkl", b"ACME-77-PRIVATE",
                       b"PRIVATE-TARGET-9"):
            assert secret not in held, secret

    def test_a_copy_that_would_contradict_the_target_is_refused_before_its_first_write(
        self, repo: GraphRepository
    ) -> None:
        """A target holding another current version of one identity took every batch before
        that row and then refused, half-copied. Now nothing is written — neither into a
        store with a row of its own, nor into one an earlier copy filled before the source
        changed — and the message says why, in one line."""
        svc = Service(repo)
        fill(svc)
        budget = next(v for v, _ in versions(repo) if v.key == "budget")
        with SqliteRepository.open(self.tmp_path / "own" / "ryvem.db") as own:
            Service(own).write("page", "Budget, written here", key="budget", scope=budget.scope)
            before = versions(own)
            with pytest.raises(Conflict) as refused:
                copy_graph(repo, own, batch=5)
            assert str(refused.value).startswith(
                "nothing was copied: sqlite already holds a current page 'budget' in "
                f"{budget.scope} under another id than the source's"
            )
            assert versions(own) == before and edges(own) == []
        svc.link("budget", "cache", "about")
        with SqliteRepository.open(self.tmp_path / "copy" / "ryvem.db") as lite:
            assert copy_graph(repo, lite, batch=5).counts_match
            before_versions, before_edges = versions(lite), edges(lite)
            svc.link("budget", "cache", "about", data={"since": 2})  # the edge, superseded
            with pytest.raises(Conflict, match=r"holds the source's earlier about edge between "
                               r"two nodes as current \(the source changed it since\)"):
                copy_graph(repo, lite, batch=5)
            svc.write("page", "Budget, revised", key="budget", scope=budget.scope)
            with pytest.raises(Conflict, match=r"the source's earlier version of page 'budget'"
                               r".* as current \(the source changed it since\) and 1 more"):
                copy_graph(repo, lite, batch=5)
            assert versions(lite) == before_versions and edges(lite) == before_edges
