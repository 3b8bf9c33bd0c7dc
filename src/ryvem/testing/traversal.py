"""Traversal: breadth-first over every edge, as of any time, identical on every backend."""

from __future__ import annotations

import pytest

from ryvem.application.service import Service
from ryvem.domain.model import NodeVersion, Step
from ryvem.domain.traversal import discovered_refs
from ryvem.errors import InvalidInput, NotFound

from .base import ContractBase


def page(service: Service, key: str, body: str = "", scope: str | None = None) -> NodeVersion:
    return service.write("page", key.title(), key=key, body=body, scope=scope)


def walk(steps: list[Step]) -> list[tuple[str, str, str, int]]:
    """(from, to, direction, hop) of each step, in order."""
    return [(s.src.ref, s.dst.ref, s.direction, s.hop) for s in steps]


class TraversalContract(ContractBase):
    """Traversal: breadth-first over every edge, as of any time, identical on every backend."""

    @pytest.fixture
    def ring(self, service: Service) -> Service:
        """a → b, a → c, b → d, d → a (a cycle through b and d); e → a from outside."""
        for key in ("b", "c", "d", "e"):
            page(service, key)
        page(service, "a", "Links to [[b]] and [[c]].")
        page(service, "b", "Onward to [[d]].")
        page(service, "d", "Back to [[a]].")
        page(service, "e", "Into the ring: [[a]].")
        return service

    def test_depth_one_out_is_exactly_what_the_node_links_to(self, ring: Service) -> None:
        """The default walk lists the node's own outgoing links at hop 1."""
        assert walk(ring.traverse("a")) == [("a", "b", "out", 1), ("a", "c", "out", 1)]

    def test_depth_two_out_adds_the_next_level(self, ring: Service) -> None:
        """Depth 2 reports the edges of the nodes first reached at hop 1."""
        assert walk(ring.traverse("a", depth=2)) == [
            ("a", "b", "out", 1), ("a", "c", "out", 1), ("b", "d", "out", 2),
        ]

    def test_a_cycle_terminates_and_reports_its_closing_edge_once(self, ring: Service) -> None:
        """At depth 10 the walk around a → b → d → a stops; d → a is reported once, at hop 3."""
        assert walk(ring.traverse("a", depth=10)) == [
            ("a", "b", "out", 1), ("a", "c", "out", 1), ("b", "d", "out", 2), ("d", "a", "out", 3),
        ]

    def test_two_node_cycle_terminates(self, service: Service) -> None:
        """A → B → A at the deepest depth yields the two edges and stops."""
        page(service, "x", "[[y]]")
        page(service, "y", "[[x]]")
        assert walk(service.traverse("x", depth=10)) == [("x", "y", "out", 1), ("y", "x", "out", 2)]
        assert walk(service.traverse("x", depth=10, direction="in")) == [
            ("y", "x", "in", 1), ("x", "y", "in", 2),
        ]

    def test_in_walks_backlinks_level_by_level(self, ring: Service) -> None:
        """Direction in follows edges backwards: who links here, then who links to them."""
        assert walk(ring.traverse("a", direction="in")) == [
            ("d", "a", "in", 1), ("e", "a", "in", 1)
        ]
        assert walk(ring.traverse("a", direction="in", depth=2)) == [
            ("d", "a", "in", 1), ("e", "a", "in", 1), ("b", "d", "in", 2),
        ]
        assert walk(ring.traverse("a", direction="in", depth=10)) == [
            ("d", "a", "in", 1), ("e", "a", "in", 1), ("b", "d", "in", 2), ("a", "b", "in", 3),
        ]

    def test_both_lists_out_edges_before_in_edges_at_every_level(self, ring: Service) -> None:
        """For both, each level's out-edges come first, then its in-edges; no edge twice."""
        assert walk(ring.traverse("a", direction="both")) == [
            ("a", "b", "out", 1), ("a", "c", "out", 1), ("d", "a", "in", 1), ("e", "a", "in", 1),
        ]
        steps = ring.traverse("a", direction="both", depth=2)
        assert walk(steps) == [
            ("a", "b", "out", 1), ("a", "c", "out", 1), ("d", "a", "in", 1), ("e", "a", "in", 1),
            ("b", "d", "out", 2),
        ]
        assert walk(ring.traverse("a", direction="both", depth=10)) == walk(steps)

    @pytest.mark.parametrize(("given", "same_as"), [(0, 1), (-3, 1), ("-3", 1), (11, 10)])
    def test_depth_is_clamped_to_one_through_ten(
        self, service: Service, given: object, same_as: int
    ) -> None:
        """Depth 0 and -3 walk like 1; depth 11 walks like 10 on a chain twelve pages long."""
        for i in range(12):
            page(service, f"n{i}", f"[[n{i + 1}]]" if i < 11 else "")
        steps = service.traverse("n0", depth=given)
        assert walk(steps) == walk(service.traverse("n0", depth=same_as))
        assert len(steps) == same_as
        assert steps[-1].hop == same_as

    @pytest.mark.parametrize("bad", ["2.5", "deep", 2.5])
    def test_a_non_integer_depth_is_refused(self, ring: Service, bad: object) -> None:
        """A depth that is not an integer is invalid input."""
        with pytest.raises(InvalidInput, match="depth must be an integer"):
            ring.traverse("a", depth=bad)

    def test_an_unknown_direction_is_refused(self, ring: Service) -> None:
        """Only out, in and both are directions."""
        with pytest.raises(InvalidInput, match="unknown direction"):
            ring.traverse("a", direction="up")

    def test_a_missing_start_is_not_found(self, ring: Service) -> None:
        """Walking from a node that does not exist is NotFound."""
        with pytest.raises(NotFound):
            ring.traverse("nowhere")

    def test_discovered_nodes_are_listed_once_in_order(self, service: Service) -> None:
        """A diamond reaches its tip twice but lists it once; the start is never listed."""
        for key in ("top", "left", "right", "tip"):
            page(service, key)
        page(service, "top", "[[left]] [[right]]")
        page(service, "left", "[[tip]] [[top]]")
        page(service, "right", "[[tip]]")
        top = service.get("top")
        steps = service.traverse("top", depth=3)
        assert [s.dst.ref for s in steps] == ["left", "right", "top", "tip", "tip"]
        assert discovered_refs(top.entity, steps) == ["left", "right", "tip"]

    def test_discovered_nodes_of_both_list_out_ends_then_in_ends(self, ring: Service) -> None:
        """For both, the nodes reached by out-edges come before those reached by in-edges."""
        a = ring.get("a")
        steps = ring.traverse("a", direction="both", depth=2)
        assert discovered_refs(a.entity, steps) == ["b", "c", "d", "e"]
        back = ring.traverse("a", direction="in", depth=10)
        assert discovered_refs(a.entity, back) == ["d", "e", "b"]

    def test_as_of_walks_the_links_of_the_body_valid_then(self, service: Service) -> None:
        """Before a supersede that changed the body's links the old links show; after, the new."""
        page(service, "old-target")
        page(service, "new-target")
        v1 = page(service, "hub", "See [[old-target]].")
        v2 = page(service, "hub", "See [[new-target]] instead.")
        assert walk(service.traverse("hub", as_of=v1.valid_from)) == [
            ("hub", "old-target", "out", 1)
        ]
        assert walk(service.traverse("hub", as_of=v2.valid_from - 1)) == [
            ("hub", "old-target", "out", 1)
        ]
        assert walk(service.traverse("hub", as_of=v2.valid_from)) == [
            ("hub", "new-target", "out", 1)
        ]
        assert walk(service.traverse("hub")) == [("hub", "new-target", "out", 1)]
        assert walk(service.traverse("old-target", direction="in", as_of=v1.valid_from)) == [
            ("hub", "old-target", "in", 1)
        ]
        assert service.traverse("old-target", direction="in") == []
        assert walk(service.traverse("new-target", direction="in")) == [
            ("hub", "new-target", "in", 1)
        ]

    def test_as_of_before_a_node_existed_is_not_found(self, service: Service) -> None:
        """A walk as of a time before the start node existed finds no start."""
        v = page(service, "late", "[[x]]")
        with pytest.raises(NotFound):
            service.traverse("late", as_of=v.valid_from - 1)

    def test_a_dangling_link_resolves_when_its_target_appears(self, service: Service) -> None:
        """A link to a missing page is kept, listed as unresolved, and becomes an edge later."""
        page(service, "early", "Waiting for [[Later Page]] and [[never]].")
        assert service.traverse("early") == []
        assert service.unresolved("early") == ["later page", "never"]
        late = service.write("page", "Later", key="Later Page")
        assert walk(service.traverse("early")) == [("early", "Later Page", "out", 1)]
        assert walk(service.traverse("Later Page", direction="in")) == [
            ("early", "Later Page", "in", 1)
        ]
        assert service.traverse("early", as_of=late.valid_from - 1) == []
        assert service.unresolved("early") == ["never"]

    def test_a_link_moves_to_a_better_match_when_one_appears(self, service: Service) -> None:
        """A bare link first resolved by last segment moves to an exact key written later."""
        page(service, "src", "[[topic]]")
        page(service, "deep/topic")
        assert walk(service.traverse("src")) == [("src", "deep/topic", "out", 1)]
        page(service, "topic")
        assert walk(service.traverse("src")) == [("src", "topic", "out", 1)]

    def test_typed_edges_are_walked_and_rel_narrows_the_walk(self, service: Service) -> None:
        """Every user rel is crossed by default; --rel keeps only the named ones."""
        page(service, "lib")
        page(service, "doc")
        page(service, "app", "Read [[doc]].")
        service.link("app", "lib", "depends-on")
        assert walk(service.traverse("app")) == [("app", "lib", "out", 1), ("app", "doc", "out", 1)]
        assert [s.rel for s in service.traverse("app")] == ["depends-on", "links"]
        assert walk(service.traverse("app", rels=["depends-on"])) == [("app", "lib", "out", 1)]
        assert walk(service.traverse("app", rels=["links"])) == [("app", "doc", "out", 1)]
        assert walk(service.traverse("lib", direction="in")) == [("app", "lib", "in", 1)]

    def test_supersedes_edges_are_not_walked(self, service: Service) -> None:
        """A superseded node's history never shows up as a neighbour; asking for it is refused."""
        page(service, "doc", "one")
        page(service, "doc", "two")
        assert service.traverse("doc", direction="both", depth=10) == []
        with pytest.raises(InvalidInput, match="supersedes"):
            service.traverse("doc", rels=["supersedes"])

    def test_a_walk_stays_in_its_scope_unless_all_scopes(self, service: Service) -> None:
        """A link into global from a board is crossed only with all_scopes."""
        page(service, "shared")
        page(service, "local", "[[shared]]", scope="board:team")
        assert service.traverse("local", scope="board:team") == []
        steps = service.traverse("local", scope="board:team", all_scopes=True)
        assert walk(steps) == [("local", "shared", "out", 1)]

    def test_a_step_record_has_exactly_the_documented_keys(self, ring: Service) -> None:
        """Each JSON edge record carries type, hemisphere, from, to, rel, direction, hop, and
        the ids of the two versions it joins (a key may be shared by two kinds)."""
        records = [s.record() for s in ring.traverse("a", direction="both")]
        assert records[0] == {
            "type": "edge", "hemisphere": "knowledge", "from": "a", "to": "b", "rel": "links",
            "direction": "out", "hop": 1, "from_id": ring.get("a").id, "to_id": ring.get("b").id,
        }
        assert records[-1]["direction"] == "in"
        assert all(set(r) == set(records[0]) for r in records)

    def test_retiring_a_link_target_re_resolves_the_link(self, service: Service) -> None:
        """Retiring the node a link resolved to moves the link to the next match, or drops it."""
        page(service, "src", "See [[topic]].")
        service.write("page", "Global topic", key="topic", scope="global")
        scoped = Service(service.repo, default_scope="board:team")
        scoped.write("page", "Src", key="src", body="See [[topic]].")
        scoped.write("page", "Team topic", key="topic")
        assert walk(scoped.traverse("src")) == [("src", "topic", "out", 1)]
        assert scoped.traverse("src")[0].dst.scope == "board:team"
        scoped.retire("topic")
        moved = scoped.traverse("src", all_scopes=True)
        assert [(s.dst.key, s.dst.scope) for s in moved] == [("topic", "global")]
        service.retire("topic")
        assert scoped.traverse("src", all_scopes=True) == []
        assert scoped.unresolved("src") == ["topic"]
        scoped.write("page", "Team topic again", key="topic")
        assert [(s.dst.key, s.dst.scope) for s in scoped.traverse("src")] == [
            ("topic", "board:team")
        ]
