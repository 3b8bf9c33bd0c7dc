"""Links edges outside an import: the same rule for a put, a later key and a retirement.

Resolution is a pure function of the current nodes' keys and content (``ryvem.domain.links``):
ties go to the linking page's nearest folder, then key order; front-matter (data) links and
``@position`` suffixes link; the edge's data says how the link was written.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ryvem.application.service import Service
from ryvem.domain.model import LINKS, Edge, NodeVersion

from .base import ContractBase


def page(
    service: Service, key: str, body: str = "", data: dict[str, Any] | None = None
) -> NodeVersion:
    return service.write("page", key, key=key, body=body, data=data)


def targets(service: Service, ref: str, as_of: object = None) -> list[str | None]:
    """The keys a node links to (its links edges), in walk order."""
    return [s.dst.key for s in service.traverse(ref, rels=[LINKS], as_of=as_of)]


def links_edges(service: Service, ref: str) -> list[Edge]:
    """Every links edge (current and closed) leaving a node, oldest first."""
    entity = service.get(ref).entity
    edges = [e for b in service.repo.iter_edges() for e in b if e.rel == LINKS]
    return sorted((e for e in edges if e.src == entity), key=lambda e: (e.valid_from, e.id))


KEYS = [f + n for f in ("", "a/", "b/", "a/c/") for n in ("x", "X", "y")]
REFS = ["x", "y", "a/x", "c/x", "x@L1", "y#h", "c/X@2", "ghost"]
PAGE = st.tuples(
    st.lists(st.sampled_from(REFS), max_size=3),  # body links
    st.lists(st.sampled_from(REFS), max_size=2),  # front-matter list items
)
VAULT = st.dictionaries(st.sampled_from(KEYS), PAGE, min_size=1)


def content(links: tuple[list[str], list[str]]) -> tuple[str, dict[str, Any]]:
    body_refs, data_refs = links
    body = " ".join(f"[[{r}]]" for r in body_refs)
    return body, ({"related": [f"[[{r}]]" for r in data_refs]} if data_refs else {})


def graph(service: Service) -> list[tuple[str | None, str | None, str]]:
    """The current links edges by endpoint key, with their data: sorted."""
    keys = {v.entity: v.key for b in service.iter_graph() for v, _ in b}
    return sorted(
        (keys[e.src], keys[e.dst], json.dumps(e.data, sort_keys=True))
        for b in service.iter_edges() for e in b if e.rel == LINKS and e.valid_to is None
    )


def write_all(service: Service, order: list[str], sizes: list[int], vault: dict[str, Any]) -> None:
    """Write the pages in this order, in batches of these sizes (one transaction each)."""
    nodes = [
        service.prepare("page", k, key=k, body=content(vault[k])[0], data=content(vault[k])[1])
        for k in order
    ]
    cuts = list(itertools.accumulate(sizes))
    for lo, hi in itertools.pairwise([0, *[c for c in cuts if c < len(nodes)], len(nodes)]):
        service.write_many(nodes[lo:hi])




class LinksContract(ContractBase):
    """Link resolution on every backend: nearest folder, front matter, positions, any order."""

    def test_a_put_resolves_an_ambiguous_link_to_the_nearest_folder(
        self, service: Service
    ) -> None:
        """[[x]] with a/x and b/x: from b/ it is b/x, from b/sub/ too, from the root a/x."""
        page(service, "b/x")
        page(service, "a/x")
        page(service, "b/page", "See [[x]].")
        page(service, "b/sub/page", "See [[x]].")
        page(service, "page", "See [[x]].")
        assert targets(service, "b/page") == ["b/x"]
        assert targets(service, "b/sub/page") == ["b/x"]
        assert targets(service, "page") == ["a/x"]

    def test_a_nearer_key_written_later_takes_the_link_over(
        self, service: Service
    ) -> None:
        """A link first resolved far away moves when a key appears in the page's own folder."""
        page(service, "a/x")
        page(service, "b/page", "See [[x]].")
        page(service, "page", "See [[x]].")
        assert targets(service, "b/page") == ["a/x"]
        page(service, "b/x")
        assert targets(service, "b/page") == ["b/x"]
        assert targets(service, "page") == ["a/x"]  # key order: a/x still comes first

    def test_retiring_the_chosen_target_moves_the_link_by_the_same_rule(
        self, service: Service
    ) -> None:
        """Retiring the nearest target moves the link to the next by nearness, then key order."""
        for key in ("c/x", "b/x", "a/x"):
            page(service, key)
        page(service, "c/page", "See [[x]].")
        assert targets(service, "c/page") == ["c/x"]
        service.retire("c/x")
        assert targets(service, "c/page") == ["a/x"]
        service.retire("a/x")
        assert targets(service, "c/page") == ["b/x"]
        page(service, "c/x", "back")
        assert targets(service, "c/page") == ["c/x"]

    def test_front_matter_links_are_edges_that_change_with_the_pages_versions(
        self, service: Service
    ) -> None:
        """A data string's [[link]] is an edge carrying its field; a new version moves it."""
        page(service, "Zef Hemel")
        page(service, "Sync")
        v1 = page(service, "ADR/002", "Body.", {"deciders": "[[Zef Hemel]]", "status": "draft"})
        assert targets(service, "ADR/002") == ["Zef Hemel"]
        assert [s.src.key for s in service.traverse("Zef Hemel", direction="in")] == ["ADR/002"]
        assert [e.data for e in links_edges(service, "ADR/002")] == [
            {"target": "zef hemel", "field": "deciders"}
        ]
        v2 = page(service, "ADR/002", "Body.", {"owner": "[[Zef Hemel]]", "related": ["[[Sync]]"]})
        edges = links_edges(service, "ADR/002")
        assert [(e.data, e.valid_from, e.valid_to) for e in edges] == [
            ({"target": "zef hemel", "field": "deciders"}, v1.valid_from, v2.valid_from),
            ({"target": "zef hemel", "field": "owner"}, v2.valid_from, None),
            ({"target": "sync", "field": "related"}, v2.valid_from, None),
        ]
        assert set(targets(service, "ADR/002")) == {"Zef Hemel", "Sync"}
        assert targets(service, "ADR/002", as_of=v1.valid_from) == ["Zef Hemel"]
        page(service, "ADR/002", "Now [[Sync]] only.", {"owner": "Zef"})
        assert targets(service, "ADR/002") == ["Sync"]
        assert service.traverse("Zef Hemel", direction="in") == []
        assert service.get("ADR/002", as_of=v1.valid_from).data["deciders"] == "[[Zef Hemel]]"

    def test_a_front_matter_link_waits_for_its_target_like_a_body_link(
        self, service: Service
    ) -> None:
        """A data link to a missing key is listed as unresolved and resolves when it appears."""
        page(service, "adr", "", {"related": ["[[Later]]", "[[Never]]"]})
        assert service.unresolved("adr") == ["later", "never"]
        page(service, "Later")
        assert targets(service, "adr") == ["Later"]
        assert [e.data for e in links_edges(service, "adr")] == [
            {"target": "later", "field": "related"}
        ]

    def test_position_suffixes_resolve_and_keep_the_position_as_the_anchor(
        self, service: Service
    ) -> None:
        """[[CHANGELOG@L12c42]] and [[Outline@1458]] link those pages; the anchor is in the edge."""
        page(service, "CHANGELOG")
        page(service, "Outline")
        page(service, "Link", "[[CHANGELOG@L12c42]] and [[Outline@1458]]")
        assert targets(service, "Link") == ["CHANGELOG", "Outline"]
        assert service.unresolved("Link") == []
        anchors = sorted((e.data["target"], e.data["anchor"]) for e in links_edges(service, "Link"))
        assert anchors == [("changelog", "@L12c42"), ("outline", "@1458")]
        page(service, "Link", "[[CHANGELOG#Top]] and [[Outline@1458]]")
        now = [e.data for e in links_edges(service, "Link") if e.valid_to is None]
        assert sorted(now, key=lambda d: d["target"]) == [
            {"target": "changelog", "anchor": "#Top"}, {"target": "outline", "anchor": "@1458"},
        ]


    # --- the property: the same pages always give the same edges -------------------------------

    def test_any_insertion_order_and_any_repeat_give_the_same_links_edges(
        self,
    ) -> None:
        """Shuffled orders, batch cuts, drafts written first and re-imports: one edge set."""
        self.make_repository().close()  # a missing server skips here, before hypothesis starts
        counter = itertools.count()

        @settings(max_examples=25, deadline=None)
        @given(vault=VAULT, data=st.data())
        def run(vault: dict[str, Any], data: st.DataObject) -> None:
            results = []
            for attempt in range(2):
                # a fresh, empty store each time
                with self.fresh_repository(f"example-{next(counter)}") as repo:
                    service = Service(repo)
                    keys = sorted(vault)
                    if attempt == 0:  # the reference: sorted, one batch
                        write_all(service, keys, [len(keys)], vault)
                    else:
                        drafts = data.draw(st.lists(st.sampled_from(keys), unique=True), "drafts")
                        draft_vault = {k: (["x", "y"], ["a/x"]) for k in drafts}
                        write_all(service, drafts, [len(drafts)], draft_vault)
                        order = data.draw(st.permutations(keys), "order")
                        sizes = data.draw(st.lists(st.integers(1, 4), min_size=1), "batches")
                        write_all(service, order, sizes, vault)
                    first = graph(service)
                    write_all(service, keys, [len(keys)], vault)  # a re-import changes nothing
                    assert graph(service) == first
                    results.append(first)
            assert results[0] == results[1]

        run()
        assert next(counter) >= 50  # every example really ran against its own stores

