"""Edges: typed, directed, windowed, joining entities so they follow supersedes."""

from __future__ import annotations

import pytest

from ryvem.application.service import Service
from ryvem.domain.model import SUPERSEDES, Edge
from ryvem.errors import IntegrityError, InvalidInput, NotFound
from ryvem.ports import GraphRepository

from .base import ContractBase


def all_edges(repo: GraphRepository) -> list[Edge]:
    return [e for batch in repo.iter_edges() for e in batch]


def user_edges(repo: GraphRepository, rel: str) -> list[Edge]:
    return [e for e in all_edges(repo) if e.rel == rel]


class EdgesContract(ContractBase):
    """Edges: typed, directed, windowed, joining entities so they follow supersedes."""

    def test_link_opens_a_current_edge_between_two_entities(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """A link is one current, directed edge carrying its data, seen from both ends."""
        a = service.write("task", "A", key="a")
        b = service.write("decision", "B", key="b")
        view = service.link("task/a", "decision/b", "implements", data={"why": "spec"})
        assert (view.edge.rel, view.edge.src, view.edge.dst) == ("implements", a.entity, b.entity)
        assert (view.from_id, view.to_id) == (a.id, b.id)
        assert view.edge.data == {"why": "spec"} and view.edge.valid_to is None
        assert [e.id for e in service.edges_of("task/a")] == [view.edge.id]
        assert [e.id for e in service.edges_of("decision/b")] == [view.edge.id]
        assert [(e.src, e.dst) for e in user_edges(repo, "implements")] == [(a.entity, b.entity)]

    def test_an_edge_reaches_the_current_version_after_its_target_is_superseded(
        self,
        service: Service,
    ) -> None:
        """After B is superseded, traversing A→B arrives at B's new version."""
        service.write("task", "A", key="a")
        b1 = service.write("decision", "B one", key="b")
        service.link("task/a", "decision/b", "depends-on")
        b2 = service.write("decision", "B two", key="b")

        steps = service.traverse("task/a")
        assert [(s.src.key, s.dst.id, s.rel, s.hop) for s in steps] == [
            ("a", b2.id, "depends-on", 1)
        ]
        back = service.traverse("decision/b", direction="in")
        assert [(s.src.key, s.dst.key, s.direction) for s in back] == [("a", "b", "in")]
        assert [s.dst.id for s in service.traverse("task/a", as_of=b2.valid_from - 1)] == [b1.id]

    def test_an_edge_survives_a_supersede_of_its_source(self, service: Service) -> None:
        """Superseding the source keeps its outgoing edges on the new version."""
        service.write("task", "A one", key="a")
        service.write("decision", "B", key="b")
        service.link("task/a", "decision/b", "depends-on")
        a2 = service.write("task", "A two", key="a")
        steps = service.traverse(a2.id)
        assert [(s.src.id, s.dst.key) for s in steps] == [(a2.id, "b")]

    def test_supersedes_edges_join_versions_and_stay_out_of_ordinary_walks(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """A supersedes edge joins version ids, and default traversals and edge lists omit it."""
        v1 = service.write("decision", "One", key="d")
        v2 = service.write("decision", "Two", key="d")
        assert [(e.src, e.dst) for e in user_edges(repo, SUPERSEDES)] == [(v2.id, v1.id)]
        assert service.traverse("decision/d", direction="both") == []
        assert service.edges_of("decision/d") == []

    def test_unlinking_closes_the_window_and_as_of_still_sees_the_edge(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """Unlink closes the edge; reads now miss it, reads as of its window find it."""
        service.write("task", "A", key="a")
        service.write("task", "B", key="b")
        opened = service.link("task/a", "task/b", "blocks").edge
        closed = service.unlink("task/a", "task/b", "blocks").edge
        assert closed.id == opened.id
        assert closed.valid_to is not None and closed.valid_to >= opened.valid_from

        stored = user_edges(repo, "blocks")
        assert [(e.id, e.valid_to) for e in stored] == [(opened.id, closed.valid_to)]
        assert service.edges_of("task/a") == []
        assert service.traverse("task/a") == []
        assert [e.id for e in service.edges_of("task/a", as_of=opened.valid_from)] == [opened.id]
        assert [s.dst.key for s in service.traverse("task/a", as_of=opened.valid_from)] == ["b"]
        assert service.edges_of("task/a", as_of=closed.valid_to) == []

    def test_unlinking_a_missing_edge_is_not_found(self, service: Service) -> None:
        """Unlinking an edge that is not current is NotFound, also the second time."""
        service.write("task", "A", key="a")
        service.write("task", "B", key="b")
        with pytest.raises(NotFound):
            service.unlink("task/a", "task/b", "blocks")
        service.link("task/a", "task/b", "blocks")
        service.unlink("task/a", "task/b", "blocks")
        with pytest.raises(NotFound):
            service.unlink("task/a", "task/b", "blocks")

    def test_linking_again_after_unlink_opens_a_new_edge(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """A re-link after unlink is a new edge; the closed one stays in the past."""
        service.write("task", "A", key="a")
        service.write("task", "B", key="b")
        first = service.link("task/a", "task/b", "blocks").edge
        service.unlink("task/a", "task/b", "blocks")
        second = service.link("task/a", "task/b", "blocks").edge
        assert second.id != first.id
        stored = user_edges(repo, "blocks")
        assert sorted(e.id for e in stored) == sorted([first.id, second.id])
        assert [e.id for e in stored if e.valid_to is None] == [second.id]

    def test_linking_again_with_the_same_data_is_a_no_op(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """The same (from, to, rel, data) twice keeps one edge with its original window."""
        service.write("task", "A", key="a")
        service.write("task", "B", key="b")
        first = service.link("task/a", "task/b", "blocks", data={"n": 1}).edge
        second = service.link("task/a", "task/b", "blocks", data={"n": 1}).edge
        assert second == first
        assert user_edges(repo, "blocks") == [first]

    def test_linking_again_with_other_data_supersedes_the_edge(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """New data closes the old edge and opens a current one; one current edge remains."""
        service.write("task", "A", key="a")
        service.write("task", "B", key="b")
        first = service.link("task/a", "task/b", "blocks", data={"n": 1}).edge
        second = service.link("task/a", "task/b", "blocks", data={"n": 2}).edge
        assert second.id != first.id and second.data == {"n": 2}
        stored = {e.id: e for e in user_edges(repo, "blocks")}
        assert set(stored) == {first.id, second.id}
        assert stored[first.id].valid_to == second.valid_from
        assert stored[second.id].valid_to is None
        assert [e.data for e in service.edges_of("task/a")] == [{"n": 2}]
        assert [e.data for e in service.edges_of("task/a", as_of=first.valid_from)] == [{"n": 1}]

    def test_different_rels_between_the_same_nodes_are_different_edges(
        self, service: Service
    ) -> None:
        """(from, to, rel) is the edge's identity: another rel is another edge."""
        service.write("task", "A", key="a")
        service.write("task", "B", key="b")
        service.link("task/a", "task/b", "blocks")
        service.link("task/a", "task/b", "about")
        assert sorted(e.rel for e in service.edges_of("task/a")) == ["about", "blocks"]

    @pytest.mark.parametrize("rel", ["supersedes", "links"])
    def test_reserved_rels_cannot_be_linked_by_hand(
        self,
        service: Service, repo: GraphRepository, rel: str
    ) -> None:
        """supersedes and links come only from writes and bodies; link refuses them."""
        service.write("task", "A", key="a")
        service.write("task", "B", key="b")
        with pytest.raises(InvalidInput, match="reserved"):
            service.link("task/a", "task/b", rel)
        with pytest.raises(InvalidInput, match="reserved"):
            service.unlink("task/a", "task/b", rel)
        assert all_edges(repo) == []

    @pytest.mark.parametrize(
        "rel", ["Blocks", "", "depends_on", "a b", "-x", "x" * 65, "é", "blocks\n"]
    )
    def test_a_rel_that_is_not_a_lowercase_slug_is_rejected(
        self,
        service: Service, repo: GraphRepository, rel: str
    ) -> None:
        """Rels are lowercase slugs; anything else is InvalidInput and writes nothing."""
        service.write("task", "A", key="a")
        service.write("task", "B", key="b")
        with pytest.raises(InvalidInput):
            service.link("task/a", "task/b", rel)
        assert all_edges(repo) == []

    @pytest.mark.parametrize("data", ["[1, 2]", "not json", {"x": float("nan")}, 7])
    def test_edge_data_that_is_not_a_json_object_is_rejected(
        self,
        service: Service, repo: GraphRepository, data: object
    ) -> None:
        """Edge data must be a JSON object; otherwise nothing is linked."""
        service.write("task", "A", key="a")
        service.write("task", "B", key="b")
        with pytest.raises(InvalidInput):
            service.link("task/a", "task/b", "blocks", data=data)
        assert all_edges(repo) == []

    def test_linking_to_a_retired_node_is_not_found(
        self, service: Service, repo: GraphRepository
    ) -> None:
        """A retired node cannot gain new edges."""
        service.write("task", "A", key="a")
        service.write("task", "B", key="b")
        service.retire("task/b")
        with pytest.raises(NotFound):
            service.link("task/a", "task/b", "blocks")
        assert all_edges(repo) == []

    def test_the_store_rejects_a_second_current_edge_for_one_from_to_rel(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """A duplicate current (src, dst, rel) slipped in behind the service is refused."""
        service.write("task", "A", key="a")
        service.write("task", "B", key="b")
        edge = service.link("task/a", "task/b", "blocks").edge
        twin = edge.model_copy(update={"id": "e" * 24})
        with pytest.raises(IntegrityError):
            repo.load([], [twin])
        assert user_edges(repo, "blocks") == [edge]

    def test_a_traversal_follows_direction_depth_and_rel_filters(self, service: Service) -> None:
        """Out, in and both walk the right way, depth bounds the walk, rels narrow it."""
        for k in "abcd":
            service.write("task", k.upper(), key=k)
        service.link("task/a", "task/b", "blocks")
        service.link("task/b", "task/c", "blocks")
        service.link("task/c", "task/d", "about")
        service.link("task/d", "task/a", "blocks")  # a cycle

        assert [(s.hop, s.src.key, s.dst.key) for s in service.traverse("task/a", depth=2)] == [
            (1, "a", "b"),
            (2, "b", "c"),
        ]
        deep = service.traverse("task/a", depth=10)
        assert [(s.src.key, s.dst.key) for s in deep] == [("a", "b"), ("b", "c"), ("c", "d"),
                                                          ("d", "a")]
        only_blocks = service.traverse("task/a", depth=10, rels=["blocks"])
        assert [(s.src.key, s.dst.key) for s in only_blocks] == [("a", "b"), ("b", "c")]
        into = service.traverse("task/a", direction="in")
        assert [(s.src.key, s.dst.key, s.direction) for s in into] == [("d", "a", "in")]
        both = service.traverse("task/a", direction="both")
        assert [(s.src.key, s.dst.key, s.direction) for s in both] == [
            ("a", "b", "out"),
            ("d", "a", "in"),
        ]
