"""The write rules as pure planning (``ryvem.domain.writes``), tried without a store."""

from __future__ import annotations

import pytest

from ryvem.domain.ids import IdSequence
from ryvem.domain.links import Candidate
from ryvem.domain.model import LINKS, SUPERSEDES, Edge, Identity, NodeVersion
from ryvem.domain.writes import (
    Linker,
    NewNode,
    append_only,
    plan_link_refresh,
    plan_writes,
)
from ryvem.errors import Conflict, InvalidInput

NOW = 1_000_000_000


def _version(
    key: str, title: str, *, valid_from: int = 100, valid_to: int | None = None,
    superseded_by: str | None = None, body: str = "",
) -> NodeVersion:
    return NodeVersion(
        id=f"{valid_from:013x}{'0' * 11}", entity=f"e-{key}", kind="note", scope="global",
        key=key, title=title, body=body, valid_from=valid_from, valid_to=valid_to,
        superseded_by=superseded_by, recorded_at=valid_from,
    )


def _ident(key: str) -> Identity:
    return ("note", key, "global")


def test_a_keyed_write_with_no_predecessor_is_created_at_the_batch_instant() -> None:
    plan = plan_writes([NewNode("note", "A", "global", key="a")], {}, IdSequence(NOW))
    [result] = plan.results
    assert result.outcome == "created"
    assert result.version.valid_from == NOW and result.version.recorded_at == NOW
    assert result.version.entity == result.version.id
    assert plan.closes == [] and plan.edges == []
    assert plan.changed_tails == {"a"}


def test_a_write_over_the_current_version_supersedes_it_on_the_same_entity() -> None:
    prev = _version("a", "old")
    plan = plan_writes([NewNode("note", "new", "global", key="a")], {_ident("a"): prev},
                       IdSequence(NOW))
    [result] = plan.results
    assert result.outcome == "superseded"
    assert result.version.entity == prev.entity and result.version.supersedes == prev.id
    [close] = plan.closes
    assert (close.id, close.at, close.superseded_by) == (prev.id, NOW, result.version.id)
    [edge] = plan.edges
    assert (edge.rel, edge.src, edge.dst) == (SUPERSEDES, result.version.id, prev.id)


def test_writing_the_current_content_again_is_unchanged_and_plans_no_row() -> None:
    prev = _version("a", "same")
    plan = plan_writes([NewNode("note", "same", "global", key="a", valid_from=500)],
                       {_ident("a"): prev}, IdSequence(NOW))
    assert [r.outcome for r in plan.results] == ["unchanged"]
    assert plan.results[0].version is prev
    assert plan.versions == [] and plan.closes == []


def test_a_retired_key_written_again_is_revived_on_its_old_entity() -> None:
    prev = _version("a", "gone", valid_to=200)
    plan = plan_writes([NewNode("note", "back", "global", key="a")], {_ident("a"): prev},
                       IdSequence(NOW))
    [result] = plan.results
    assert result.outcome == "revived" and result.version.entity == prev.entity
    assert plan.revives == [(prev.id, result.version.id)] and plan.closes == []


def test_a_valid_time_before_the_latest_one_is_refused_and_an_equal_one_moves_one_microsecond(
) -> None:
    prev = _version("a", "old", valid_from=-5_000)  # before 1970: valid time is signed
    with pytest.raises(InvalidInput, match="precedes note/a's latest valid time"):
        plan_writes([NewNode("note", "x", "global", key="a", valid_from=-6_000)],
                    {_ident("a"): prev}, IdSequence(NOW))
    plan = plan_writes([NewNode("note", "x", "global", key="a", valid_from=-5_000)],
                       {_ident("a"): prev}, IdSequence(NOW))
    assert plan.results[0].version.valid_from == -4_999
    assert append_only("a", 7, 3, strict=False) == 7


def test_a_rename_onto_a_current_key_is_a_conflict() -> None:
    latest = {_ident("a"): _version("a", "A"), _ident("b"): _version("b", "B")}
    with pytest.raises(Conflict, match="cannot rename note/a to note/b"):
        plan_writes([NewNode("note", "B2", "global", key="b", renamed_from="a")], latest,
                    IdSequence(NOW))


def test_a_rename_closes_the_old_key_and_continues_its_entity_under_the_new_one() -> None:
    old = _version("a", "A")
    plan = plan_writes([NewNode("note", "A", "global", key="b", renamed_from="a")],
                       {_ident("a"): old}, IdSequence(NOW))
    [result] = plan.results
    assert result.outcome == "renamed" and result.version.entity == old.entity
    assert result.version.key == "b"
    assert plan.closes[0].id == old.id
    assert {"a", "b"} <= plan.changed_tails  # links to either key re-resolve


def test_ids_of_one_batch_sort_in_the_order_the_batch_wrote_them() -> None:
    nodes = [NewNode("note", f"n{i}", "global", key=f"k{i}") for i in range(50)]
    plan = plan_writes(nodes, {}, IdSequence(NOW))
    ids = [v.id for v in plan.versions]
    assert ids == sorted(ids) and len(set(ids)) == 50


def test_a_body_link_is_planned_as_an_edge_to_the_candidate_it_resolves_to() -> None:
    source = Linker.of(_version("a", "A", body="see [[b]]"), NOW)
    target = Candidate(entity="e-b", kind="note", key="b", scope="global")
    refresh = plan_link_refresh([source], {"b": [target]}, {}, {})
    assert [(o.src, o.dst, o.data) for o in refresh.opens] == [("e-a", "e-b", {"target": "b"})]
    [edge] = refresh.new_edges(IdSequence(NOW))
    assert (edge.rel, edge.valid_from, edge.recorded_at) == (LINKS, NOW, NOW)


def test_a_link_no_longer_written_closes_its_edge_and_opens_nothing() -> None:
    source = Linker.of(_version("a", "A", body="no links now"), NOW)
    old = Edge(id="x" * 24, rel=LINKS, src="e-a", dst="e-b", data={"target": "b"},
               valid_from=50, recorded_at=50)
    refresh = plan_link_refresh([source], {}, {"e-a": {"e-b": old}}, {})
    assert dict(refresh.closes) == {NOW: [old.id]} and refresh.opens == []


def test_an_edge_to_a_node_that_appears_later_opens_when_it_appears() -> None:
    source = Linker.of(_version("a", "A", body="[[b]]"), 100)
    target = Candidate(entity="e-b", kind="note", key="b", scope="global")
    refresh = plan_link_refresh([source], {"b": [target]}, {}, {"e-b": 900})
    assert [o.at for o in refresh.opens] == [900]
