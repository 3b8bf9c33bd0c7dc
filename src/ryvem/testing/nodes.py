"""Nodes on the time axis: supersede, append, retire, revive, as-of reads and history."""

from __future__ import annotations

from itertools import pairwise

import pytest

from ryvem.application.service import Service
from ryvem.domain.model import SUPERSEDES, Edge, NodeVersion
from ryvem.domain.timeutil import Clock, format_us
from ryvem.errors import AmbiguousRef, Conflict, IntegrityError, InvalidInput, NotFound
from ryvem.ports import GraphRepository

from .base import ContractBase

REPO_SCOPE = "repo:0f8fad5b-d9cb-469f-a165-70867728950e"


class FrozenClock(Clock):
    """A wall clock stuck at one microsecond: every reading is the same."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at = at

    def now(self) -> int:
        return self.at


def all_versions(repo: GraphRepository) -> list[NodeVersion]:
    return [v for batch in repo.iter_versions() for v, _ in batch]


def all_edges(repo: GraphRepository) -> list[Edge]:
    return [e for batch in repo.iter_edges() for e in batch]


def supersedes_edges(repo: GraphRepository) -> list[Edge]:
    return [e for e in all_edges(repo) if e.rel == SUPERSEDES]


# --- bad input ---------------------------------------------------------------------------

def _nested(depth: int) -> dict[str, object]:
    value: dict[str, object] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


BAD_WRITES: list[tuple[str, dict[str, object]]] = [
    ("kind upper case", {"kind": "Decision"}),
    ("kind empty", {"kind": ""}),
    ("kind with space", {"kind": "big decision"}),
    ("kind underscore", {"kind": "business_rule"}),
    ("kind too long", {"kind": "k" * 65}),
    ("kind trailing newline", {"kind": "decision\n"}),
    ("kind not text", {"kind": 3}),
    ("title empty", {"title": ""}),
    ("title blank", {"title": "   \n"}),
    ("title NUL", {"title": "a\x00b"}),
    ("title lone surrogate", {"title": "a\ud800"}),
    ("title too long", {"title": "t" * 1001}),
    ("key empty", {"key": ""}),
    ("key padded", {"key": " cache"}),
    ("key newline", {"key": "a\nb"}),
    ("key too long", {"key": "k" * 10_000}),
    ("body NUL", {"body": "x\x00"}),
    ("body too big", {"body": "x" * (8 * 1024 * 1024 + 1)}),
    ("data list", {"data": [1, 2]}),
    ("data json list", {"data": "[1, 2]"}),
    ("data not json", {"data": "{nope"}),
    ("data NaN", {"data": {"x": float("nan")}}),
    ("data non-string key", {"data": {1: "x"}}),
    ("data too deep", {"data": '{"a":' * 40 + "1" + "}" * 40}),
    ("data too deep as a dict", {"data": _nested(40)}),
    ("data object value", {"data": {"x": object()}}),
]


class NodesContract(ContractBase):
    """Nodes on the time axis: supersede, append, retire, revive, as-of reads and history."""

    # --- supersede ---------------------------------------------------------------------------

    def test_a_supersede_closes_the_old_row_inserts_the_new_one_and_links_them(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """A keyed rewrite closes the old row, inserts a current successor and a supersedes edge."""
        v1 = service.write("decision", "Cache with Redis", key="cache", body="one")
        v2 = service.write("decision", "Cache in process", key="cache", body="two")

        old = repo.get_version(v1.id)
        new = repo.get_version(v2.id)
        assert old is not None and new is not None
        assert old.valid_to == new.valid_from
        assert old.superseded_by == new.id
        assert old.retired_reason is None
        assert new.valid_to is None and new.supersedes == old.id
        assert new.entity == old.entity == v1.id
        edges = supersedes_edges(repo)
        assert [(e.src, e.dst, e.valid_from) for e in edges] == [(new.id, old.id, new.valid_from)]
        assert [v.id for v in all_versions(repo) if v.is_current] == [new.id]

    def test_a_first_keyed_write_is_its_own_entity_and_supersedes_nothing(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """The first version of an identity is its own entity, current, with no predecessor."""
        v1 = service.write("task", "Ship it", key="ship")
        assert v1.entity == v1.id
        assert v1.is_current and v1.supersedes is None and v1.superseded_by is None
        assert supersedes_edges(repo) == []

    def test_the_store_rejects_a_second_current_row_for_one_identity(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """A second current row for (kind, key, scope) slipped in behind the service is refused."""
        v1 = service.write("decision", "Cache", key="cache")
        intruder = v1.model_copy(update={"id": "f" * 24, "entity": "f" * 24, "title": "Intruder"})
        with pytest.raises(IntegrityError):
            repo.load([(intruder, ())], [])
        assert repo.get_version("f" * 24) is None
        assert [v.id for v in all_versions(repo)] == [v1.id]

    def test_the_same_key_in_another_kind_or_scope_is_another_identity(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """Writes sharing a key but not kind and scope do not supersede one another."""
        a = service.write("decision", "A", key="cache")
        b = service.write("task", "B", key="cache")
        c = service.write("decision", "C", key="cache", scope=REPO_SCOPE)
        assert len({a.entity, b.entity, c.entity}) == 3
        assert all(v.is_current for v in all_versions(repo))
        assert supersedes_edges(repo) == []

    def test_an_unkeyed_write_always_appends(self, service: Service, repo: GraphRepository) -> None:
        """Two unkeyed writes with the same content make two independent current nodes."""
        a = service.write("review", "Looks good")
        b = service.write("review", "Looks good")
        assert a.id != b.id
        assert a.entity == a.id and b.entity == b.id
        assert a.key is None and b.key is None
        assert sorted(v.id for v in all_versions(repo) if v.is_current) == sorted([a.id, b.id])
        assert supersedes_edges(repo) == []

    def test_writing_the_same_title_body_and_data_again_creates_no_version(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """An identical rewrite returns the current version and adds no row or edge."""
        v1 = service.write("decision", "Cache", key="cache", body="b", data={"x": 1})
        again = service.write("decision", "Cache", key="cache", body="b", data={"x": 1})
        assert again == v1
        assert [v.id for v in all_versions(repo)] == [v1.id]
        assert all_edges(repo) == []

    def test_data_key_order_does_not_make_a_rewrite_a_change(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """The same data object in another key order is the same content."""
        v1 = service.write("task", "T", key="t", data={"a": 1, "b": {"x": [1, 2], "y": None}})
        again = service.write("task", "T", key="t", data='{"b": {"y": null, "x": [1, 2]}, "a": 1}')
        assert again.id == v1.id
        assert [v.id for v in all_versions(repo)] == [v1.id]

    def test_a_rewrite_that_changes_only_the_body_whitespace_creates_a_version(
        self,
        service: Service,
    ) -> None:
        """Content is compared exactly: a trailing newline in the body is a change."""
        v1 = service.write("task", "T", key="t", body="text")
        v2 = service.write("task", "T", key="t", body="text\n")
        assert v2.id != v1.id and v2.body == "text\n"

    def test_a_rewrite_that_changes_only_the_data_creates_a_version(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """Data is part of the content: changing it alone supersedes the row."""
        v1 = service.write("task", "T", key="t", data={"status": "open"})
        v2 = service.write("task", "T", key="t", data={"status": "done"})
        assert v2.id != v1.id and v2.supersedes == v1.id
        assert service.get("task/t").data == {"status": "done"}

    def test_valid_from_strictly_increases_within_an_identity_even_with_a_frozen_clock(
        self,
        repo: GraphRepository,
    ) -> None:
        """Five writes in one microsecond still get strictly increasing, contiguous windows."""
        svc = Service(repo, clock=FrozenClock(1_800_000_000_000_000))
        written = [svc.write("task", f"step {i}", key="t") for i in range(5)]
        chain = svc.history("task/t")
        assert [v.id for v in chain] == [v.id for v in written]
        starts = [v.valid_from for v in chain]
        assert starts == sorted(set(starts))
        for older, newer in pairwise(chain):
            assert older.valid_to == newer.valid_from
        assert chain[-1].is_current

    def test_the_written_values_read_back_exactly(self, service: Service) -> None:
        """Title, body, data, kind, key and scope round-trip unchanged, including Unicode."""
        data = {
            "n": 1, "f": 1.5, "ok": True, "none": None, "list": [1, "two"], "nested": {"a": "é"}
        }
        body = "# Heading\n\nLine with émoji 🚀 and `code`\n"
        v = service.write("business-rule", "Règle ✓", key="rules/vat", scope=REPO_SCOPE, body=body,
                          data=data)
        got = service.get("business-rule/rules/vat", scope=REPO_SCOPE)
        assert (got.id, got.kind, got.key, got.scope) == (v.id, "business-rule", "rules/vat",
                                                          REPO_SCOPE)
        assert (got.title, got.body, got.data) == ("Règle ✓", body, data)

    # --- retire and revive -------------------------------------------------------------------

    def test_retire_closes_the_window_and_keeps_the_reason(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """Retiring the current row closes it with the reason and leaves no current row."""
        v1 = service.write("decision", "Cache", key="cache")
        retired = service.retire("decision/cache", reason="no longer needed")
        stored = repo.get_version(v1.id)
        assert stored is not None
        assert stored.valid_to is not None and stored.valid_to > stored.valid_from
        assert stored.retired_reason == "no longer needed"
        assert stored.superseded_by is None
        assert retired.valid_to == stored.valid_to and retired.retired_reason == "no longer needed"
        assert repo.get_identity(("decision", "cache", "global"), None) is None
        assert [v.id for v in all_versions(repo)] == [v1.id]

    def test_retire_without_a_reason_is_allowed(
        self, service: Service, repo: GraphRepository
    ) -> None:
        """The reason is optional: retiring without one stores no reason."""
        v1 = service.write("task", "T", key="t")
        service.retire(v1.id)
        stored = repo.get_version(v1.id)
        assert stored is not None and stored.valid_to is not None and stored.retired_reason is None

    def test_retiring_a_retired_row_is_a_conflict(
        self, service: Service, repo: GraphRepository
    ) -> None:
        """A second retire is refused with Conflict and changes nothing."""
        v1 = service.write("decision", "Cache", key="cache")
        service.retire("decision/cache", reason="first")
        before = repo.get_version(v1.id)
        with pytest.raises(Conflict, match="not current"):
            service.retire("decision/cache", reason="second")
        with pytest.raises(Conflict):
            service.retire(v1.id)
        assert repo.get_version(v1.id) == before

    def test_retiring_a_superseded_row_by_id_is_a_conflict(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """Only the current version can be retired; an old version's id is refused."""
        v1 = service.write("decision", "One", key="cache")
        v2 = service.write("decision", "Two", key="cache")
        with pytest.raises(Conflict):
            service.retire(v1.id)
        current = repo.get_version(v2.id)
        assert current is not None and current.is_current

    def test_retiring_an_unknown_node_is_not_found(self, service: Service) -> None:
        """Retiring a reference that names nothing is NotFound."""
        with pytest.raises(NotFound):
            service.retire("decision/nothing-here")

    def test_a_write_after_retire_revives_the_identity_in_one_chain(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """A write to a retired identity starts a new current row superseding the retired one."""
        v1 = service.write("decision", "Cache", key="cache")
        service.retire("decision/cache", reason="dropped")
        v3 = service.write("decision", "Cache again", key="cache")

        retired = repo.get_version(v1.id)
        assert retired is not None
        assert v3.supersedes == v1.id and v3.entity == v1.entity and v3.is_current
        assert retired.superseded_by == v3.id
        assert retired.retired_reason == "dropped"
        assert retired.valid_to is not None and retired.valid_to < v3.valid_from
        assert [(e.src, e.dst) for e in supersedes_edges(repo)] == [(v3.id, v1.id)]
        assert [v.id for v in service.history(v1.id)] == [v1.id, v3.id]

    def test_writing_the_retired_content_again_still_revives(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """Identical content after a retire is a revival, not a no-op."""
        v1 = service.write("task", "Same", key="t")
        service.retire("task/t")
        v2 = service.write("task", "Same", key="t")
        assert v2.id != v1.id and v2.is_current and v2.supersedes == v1.id

    def test_a_retired_identity_is_absent_between_retire_and_revive(self, service: Service) -> None:
        """As of a time inside the gap, the identity did not exist."""
        v1 = service.write("task", "T", key="t")
        retired = service.retire("task/t")
        v2 = service.write("task", "T2", key="t")
        assert retired.valid_to is not None
        assert service.get("task/t", as_of=retired.valid_to - 1).id == v1.id
        assert retired.valid_to < v2.valid_from
        with pytest.raises(NotFound):
            service.get("task/t", as_of=retired.valid_to)
        assert service.get("task/t", as_of=v2.valid_from).id == v2.id

    # --- as-of reads -------------------------------------------------------------------------

    def test_as_of_at_the_exact_boundary_sees_the_new_row_and_one_microsecond_earlier_the_old(
        self,
        service: Service,
    ) -> None:
        """Valid at T means valid_from <= T < valid_to, to the microsecond."""
        v1 = service.write("decision", "Old", key="cache")
        v2 = service.write("decision", "New", key="cache")
        assert service.get("decision/cache", as_of=v2.valid_from).id == v2.id
        assert service.get("decision/cache", as_of=v2.valid_from - 1).id == v1.id
        assert service.get("decision/cache", as_of=v1.valid_from).id == v1.id
        with pytest.raises(NotFound):
            service.get("decision/cache", as_of=v1.valid_from - 1)
        assert service.get("decision/cache").id == v2.id

    def test_as_of_accepts_iso_8601_text(self, service: Service) -> None:
        """An ISO 8601 as-of string selects the version valid at that instant."""
        v1 = service.write("decision", "Old", key="cache")
        v2 = service.write("decision", "New", key="cache")
        assert service.get("decision/cache", as_of=format_us(v2.valid_from - 1)).id == v1.id
        assert service.get("decision/cache", as_of=format_us(v2.valid_from)).id == v2.id

    def test_an_id_read_as_of_a_time_gives_the_version_of_that_entity_valid_then(
        self,
        service: Service,
    ) -> None:
        """Any version id with as_of names the entity's version valid at that time."""
        v1 = service.write("decision", "Old", key="cache")
        v2 = service.write("decision", "New", key="cache")
        assert service.get(v2.id, as_of=v1.valid_from).id == v1.id
        assert service.get(v1.id, as_of=v2.valid_from).id == v2.id

    # --- history -----------------------------------------------------------------------------

    def test_history_from_every_member_of_a_chain_is_the_same_list(self, service: Service) -> None:
        """History is the whole chain oldest first, whichever version id names it."""
        ids = [service.write("decision", f"v{i}", key="cache").id for i in range(4)]
        service.retire("decision/cache")
        ids.append(service.write("decision", "v4", key="cache").id)
        for member in ids:
            assert [v.id for v in service.history(member)] == ids
        assert [v.id for v in service.history("decision/cache")] == ids

    def test_history_of_an_unkeyed_node_is_just_that_node(self, service: Service) -> None:
        """An unkeyed node has a one-version history."""
        a = service.write("review", "LGTM")
        service.write("review", "LGTM")
        assert [v.id for v in service.history(a.id)] == [a.id]

    def test_every_chain_link_is_consistent_both_ways(self, service: Service) -> None:
        """In a chain, supersedes and superseded_by point at each other."""
        for i in range(3):
            service.write("task", f"t{i}", key="t")
        chain = service.history("task/t")
        assert chain[0].supersedes is None and chain[-1].superseded_by is None
        for older, newer in pairwise(chain):
            assert older.superseded_by == newer.id and newer.supersedes == older.id

    @pytest.mark.parametrize("case", BAD_WRITES, ids=[c[0] for c in BAD_WRITES])
    def test_bad_input_is_rejected_with_one_line_and_nothing_is_written(
        self,
        service: Service, repo: GraphRepository, case: tuple[str, dict[str, object]]
    ) -> None:
        """Malformed kinds, titles, keys, bodies and data raise InvalidInput and store nothing."""
        v1 = service.write("decision", "Keep me", key="cache")
        request: dict[str, object] = {"kind": "decision", "title": "New", "key": "cache"}
        request.update(case[1])
        kind, title = request.pop("kind"), request.pop("title")
        with pytest.raises(InvalidInput) as info:
            service.write(kind, title, **request)  # type: ignore[arg-type]  # deliberately bad
        assert "\n" not in str(info.value) and str(info.value)
        assert [v.id for v in all_versions(repo)] == [v1.id]
        assert all_edges(repo) == []
        assert service.get("decision/cache") == v1

    def test_a_batch_naming_one_identity_twice_is_refused_whole(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """write_many refuses a batch that writes the same identity twice and stores nothing."""
        nodes = [
            service.prepare("task", "One", key="t"),
            service.prepare("task", "Other", key="u"),
            service.prepare("task", "Two", key="t"),
        ]
        with pytest.raises(InvalidInput):
            service.write_many(nodes)
        assert all_versions(repo) == []

    def test_a_batch_write_commits_every_node_together(
        self,
        service: Service, repo: GraphRepository
    ) -> None:
        """write_many creates, supersedes and keeps unchanged in one call, reporting each
        outcome."""
        service.write("task", "Old", key="a")
        service.write("task", "Same", key="b")
        results = service.write_many([
            service.prepare("task", "New", key="a"),
            service.prepare("task", "Same", key="b"),
            service.prepare("task", "Fresh", key="c"),
        ])
        assert [r.outcome for r in results] == ["superseded", "unchanged", "created"]
        current = sorted((v.key or "", v.title) for v in all_versions(repo) if v.is_current)
        assert current == [("a", "New"), ("b", "Same"), ("c", "Fresh")]

    # --- references --------------------------------------------------------------------------

    def test_a_node_is_named_by_id_by_kind_and_key_or_by_a_unique_bare_key(
        self, service: Service
    ) -> None:
        """An id, KIND/KEY and an unambiguous bare key all name the current version."""
        v1 = service.write("page", "Notes", key="notes/a")
        v2 = service.write("page", "Notes 2", key="notes/a")
        assert service.get(v2.id).id == v2.id
        assert service.get(v1.id).id == v1.id  # an old id names that exact version
        assert service.get("page/notes/a").id == v2.id
        assert service.get("notes/a").id == v2.id

    def test_a_bare_key_shared_by_two_kinds_is_ambiguous(self, service: Service) -> None:
        """A bare key naming several current nodes is refused with the candidates listed."""
        service.write("task", "T", key="cache")
        service.write("decision", "D", key="cache")
        with pytest.raises(AmbiguousRef) as info:
            service.get("cache")
        assert sorted(info.value.candidates) == ["decision/cache", "task/cache"]
        assert service.get("task/cache").kind == "task"

    @pytest.mark.parametrize("ref", ["", "   "])
    def test_an_empty_reference_is_invalid_input(self, service: Service, ref: str) -> None:
        """An empty reference is a usage error, not a lookup."""
        with pytest.raises(InvalidInput):
            service.get(ref)

    def test_an_unknown_reference_is_not_found(self, service: Service) -> None:
        """Ids, KIND/KEY and keys that name nothing are NotFound."""
        for ref in ["0" * 24, "task/none", "none"]:
            with pytest.raises(NotFound):
                service.get(ref)

    # --- renames ---------------------------------------------------------------------------

    def test_a_rename_keeps_one_node_whose_history_spans_both_keys(
        self, service: Service, repo: GraphRepository
    ) -> None:
        """A write with renamed_from closes the old key's version and continues its entity
        under the new key: one history, the old key no longer current (reading it names the
        moved node, as reading any closed version does), the past readable under it."""
        v1 = service.write("page", "Plan", key="notes/plan", body="first")
        [result] = service.write_many([
            service.prepare("page", "Plan", key="archive/plan", body="moved",
                            renamed_from="notes/plan"),
        ])
        assert result.outcome == "renamed"
        moved = result.version
        assert (moved.entity, moved.supersedes, moved.key) == (v1.entity, v1.id, "archive/plan")
        assert [v.key for v in service.history("page/archive/plan")] == [
            "notes/plan", "archive/plan",
        ]
        assert service.get("page/notes/plan").id == moved.id  # the old name follows the move
        assert repo.get_identity(("page", "notes/plan", "global"), None) is None
        assert service.get(v1.id).superseded_by == moved.id
        assert service.get("page/notes/plan", as_of=moved.valid_from - 1).body == "first"
        assert [(e.src, e.dst) for e in supersedes_edges(repo)] == [(moved.id, v1.id)]

    def test_links_to_a_renamed_page_follow_its_keys(self, service: Service) -> None:
        """A link to the old key dangles after the rename; a link to the new key resolves to
        the same node, and links the page itself holds move with it."""
        service.write("page", "Target", key="old")
        service.write("page", "Other", key="other")
        service.write("page", "Fan", key="fan", body="[[old]] and [[new]]")
        assert service.unresolved("page/fan") == ["new"]
        service.write_many([
            service.prepare("page", "Target", key="new", body="see [[other]]",
                            renamed_from="old"),
        ])
        assert service.unresolved("page/fan") == ["old"]
        walked = service.traverse("page/fan")
        assert [s.dst.key for s in walked] == ["new"]
        assert [s.dst.key for s in service.traverse("page/new")] == ["other"]

    def test_a_rename_onto_a_current_key_is_refused_and_writes_nothing(
        self, service: Service, repo: GraphRepository
    ) -> None:
        """Two current nodes cannot become one: the rename is a Conflict, nothing is written."""
        service.write("page", "A", key="a")
        service.write("page", "B", key="b")
        before = all_versions(repo)
        with pytest.raises(Conflict):
            service.write_many([service.prepare("page", "A", key="b", renamed_from="a")])
        assert all_versions(repo) == before

    def test_a_rename_from_a_key_with_no_current_version_is_a_plain_write(
        self, service: Service
    ) -> None:
        """Renaming from a retired or unknown key writes the new key as usual."""
        service.write("page", "Gone", key="gone")
        service.retire("page/gone")
        [r] = service.write_many([service.prepare("page", "N", key="n", renamed_from="gone")])
        assert r.outcome == "created"
        [r2] = service.write_many([service.prepare("page", "M", key="m", renamed_from="nope")])
        assert r2.outcome == "created"

    def test_writing_a_key_a_rename_moved_away_from_starts_a_new_node_there(
        self, service: Service, repo: GraphRepository
    ) -> None:
        """After notes/plan is renamed to archive/plan, writing notes/plan again (a vault's new
        page at the old path) creates a second node there: the moved node keeps its own key
        and history, links to the old key resolve to the new node, and the old key's past
        still reads the moved node's first version."""
        v1 = service.write("page", "Plan", key="notes/plan", body="first")
        service.write("page", "Fan", key="fan", body="see [[notes/plan]]")
        [moved] = service.write_many([
            service.prepare("page", "Plan", key="archive/plan", body="moved",
                            renamed_from="notes/plan"),
        ])
        [fresh] = service.write_many([service.prepare("page", "New plan", key="notes/plan")])
        assert fresh.outcome == "created"
        new = fresh.version
        assert new.entity not in (v1.entity, new.supersedes) and new.supersedes is None
        assert new.valid_from >= moved.version.valid_from
        assert service.get("page/notes/plan").id == new.id
        assert service.get("page/archive/plan").id == moved.version.id
        assert [v.key for v in service.history("page/archive/plan")] == [
            "notes/plan", "archive/plan",
        ]
        assert [v.id for v in service.history("page/notes/plan")] == [new.id]
        assert service.get("page/notes/plan", as_of=moved.version.valid_from - 1).id == v1.id
        assert [s.dst.id for s in service.traverse("page/fan")] == [new.id]
        # Writing it again supersedes the new node, as any key does.
        again = service.write("page", "New plan", key="notes/plan", body="second")
        assert (again.entity, again.supersedes) == (new.entity, new.id)

    def test_a_dated_rename_starts_after_the_old_keys_latest_valid_time(
        self, service: Service
    ) -> None:
        """A rename's valid time continues the node's history: at or after its latest valid
        time (equal moves it a microsecond on), never before it."""
        v1 = service.write("page", "P", key="old", valid_from="2024-01-10T00:00:00Z")
        with pytest.raises(InvalidInput):
            service.write_many([service.prepare(
                "page", "P", key="new", renamed_from="old", valid_from="2024-01-09T00:00:00Z"
            )])
        [r] = service.write_many([service.prepare(
            "page", "P", key="new", renamed_from="old", valid_from="2024-01-10T00:00:00Z"
        )])
        assert (r.outcome, r.version.valid_from) == ("renamed", v1.valid_from + 1)
        assert service.get("page/old", as_of="2024-01-10T00:00:00Z").id == v1.id
