"""Scopes: global, repo:<uuid> and board:<slug> are isolated; reads filter by scope or shape."""

from __future__ import annotations

import pytest

from ryvem.application.service import Service
from ryvem.domain.model import NodeVersion
from ryvem.errors import InvalidInput, NotFound
from ryvem.ports import GraphRepository

from .base import ContractBase

REPO_A = "repo:11111111-1111-4111-8111-111111111111"
REPO_B = "repo:22222222-2222-4222-8222-222222222222"
BOARD = "board:sprint-7"


def all_versions(repo: GraphRepository) -> list[NodeVersion]:
    return [v for batch in repo.iter_versions() for v, _ in batch]


BAD_SCOPES = [
    "",
    "Global",
    "local",
    "repo:",
    "repo:not-a-uuid",
    "repo:11111111-1111-4111-8111-11111111111",
    "repo:*",
    "board:",
    "board:Sprint",
    "board:a b",
    "board:" + "x" * 65,
    "team:x",
    "*",
    "global ",
    "board:sprint\n",
    REPO_A + "\n",
]


class ScopesContract(ContractBase):
    """Scopes: global, repo:<uuid> and board:<slug> are isolated; reads filter by scope or shape."""

    def test_one_key_in_several_scopes_is_several_independent_nodes(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """Superseding or retiring in one scope leaves the same key in other scopes alone."""
        g = service.write("decision", "Global", key="cache")
        a = service.write("decision", "Repo A", key="cache", scope=REPO_A)
        s = service.write("decision", "Board", key="cache", scope=BOARD)
        a2 = service.write("decision", "Repo A v2", key="cache", scope=REPO_A)
        service.retire("decision/cache", scope=BOARD)

        assert a2.supersedes == a.id
        assert service.get("decision/cache").id == g.id
        assert service.get("decision/cache", scope=REPO_A).id == a2.id
        assert [v.id for v in service.history("decision/cache")] == [g.id]
        assert [v.id for v in service.history("decision/cache", scope=REPO_A)] == [a.id, a2.id]
        current = {v.scope: v.id for v in all_versions(repo) if v.is_current}
        assert current == {"global": g.id, REPO_A: a2.id}
        stored = repo.get_version(s.id)
        assert stored is not None and stored.valid_to is not None

    def test_a_reference_resolves_only_inside_its_scope(self, service: Service) -> None:
        """KIND/KEY and bare keys look in the given scope only."""
        service.write("task", "Only in repo A", key="lonely", scope=REPO_A)
        with pytest.raises(NotFound):
            service.get("task/lonely")
        with pytest.raises(NotFound):
            service.get("lonely", scope=REPO_B)
        assert service.get("lonely", scope=REPO_A).scope == REPO_A

    def test_a_service_default_scope_applies_to_writes_and_reads(
        self, repo: GraphRepository
    ) -> None:
        """A service made for one repo writes and reads there unless told otherwise."""
        in_repo = Service(repo, default_scope=REPO_A)
        global_svc = Service(repo)
        v = in_repo.write("task", "Mine", key="t")
        assert v.scope == REPO_A
        assert in_repo.get("task/t").id == v.id
        assert [h.id for h in in_repo.search("mine")] == [v.id]
        assert global_svc.search("mine") == []
        with pytest.raises(NotFound):
            global_svc.get("task/t")

    def test_a_repo_scope_is_stored_in_canonical_lowercase(self, service: Service) -> None:
        """repo:<UUID> in upper case names the same scope as in lower case."""
        v = service.write("task", "T", key="t", scope=REPO_A.upper().replace("REPO:", "repo:"))
        assert v.scope == REPO_A
        assert service.get("task/t", scope=REPO_A).id == v.id

    def test_search_scope_filters_see_one_scope_a_shape_or_everything(
        self, service: Service
    ) -> None:
        """Exact, repo:*, board:*, * and all_scopes each list exactly their rows."""
        g = service.write("note", "Alpha", key="n")
        a = service.write("note", "Alpha", key="n", scope=REPO_A)
        b = service.write("note", "Alpha", key="n", scope=REPO_B)
        s = service.write("note", "Alpha", key="n", scope=BOARD)

        def found(**kw: object) -> set[str]:
            return {h.id for h in service.search("alpha", **kw)}  # type: ignore[arg-type]  # test kwargs

        assert found() == {g.id}
        assert found(scope="global") == {g.id}
        assert found(scope=REPO_B) == {b.id}
        assert found(scope="repo:*") == {a.id, b.id}
        assert found(scope="board:*") == {s.id}
        assert found(scope="*") == {g.id, a.id, b.id, s.id}
        assert found(all_scopes=True) == {g.id, a.id, b.id, s.id}

    def test_a_traversal_stays_in_the_start_scope_unless_asked_for_all(
        self, service: Service
    ) -> None:
        """Edges into another scope are walked only with all_scopes."""
        a = service.write("task", "A", key="a")
        b = service.write("task", "B", key="b", scope=REPO_A)
        service.link(a.id, b.id, "about")
        assert service.traverse("task/a") == []
        assert [s.dst.id for s in service.traverse("task/a", all_scopes=True)] == [b.id]

    @pytest.mark.parametrize("scope", BAD_SCOPES)
    def test_an_invalid_scope_is_rejected_and_nothing_is_written(
        self,
        service: Service, repo: GraphRepository, scope: str
    ) -> None:
        """A write to a malformed scope raises InvalidInput with a clear line and stores nothing."""
        with pytest.raises(InvalidInput, match="scope") as info:
            service.write("task", "T", key="t", scope=scope)
        assert "\n" not in str(info.value)
        assert all_versions(repo) == []

    @pytest.mark.parametrize("scope", ["repo:nope", "board:Upper", "everything"])
    def test_an_invalid_scope_filter_is_rejected_on_reads(
        self, service: Service, scope: str
    ) -> None:
        """Reads refuse malformed scope filters instead of returning nothing."""
        with pytest.raises(InvalidInput):
            service.search("x", scope=scope)
        with pytest.raises(InvalidInput):
            service.get("task/t", scope=scope)

    def test_a_scope_and_all_scopes_together_are_refused(self, service: Service) -> None:
        """Giving both a scope and all scopes is ambiguous and refused."""
        with pytest.raises(InvalidInput):
            service.search("x", scope=REPO_A, all_scopes=True)

    def test_a_service_with_an_invalid_default_scope_cannot_be_made(
        self, repo: GraphRepository
    ) -> None:
        """The default scope is validated when the service is made."""
        with pytest.raises(InvalidInput):
            Service(repo, default_scope="repo:bad")
