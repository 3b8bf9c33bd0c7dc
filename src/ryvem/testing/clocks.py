"""The two clocks: valid time (when a fact was true, supplied by the caller) and system time
(when ryvem recorded it, its own clock), read together at any (as_of, known_at).

One story, written with a clock the test sets, so every system time is known:

* R1 (03-01): ``page/latency`` valid from 02-01; ``decision/cache`` "Cache in Redis",
  linking ``[[latency]]``, *backdated* to 02-20; ``task/add-cache`` valid from 02-21.
* R2 (03-02): ``task/add-cache -implements-> decision/cache``, valid from 02-22.
* R3 (03-05): ``decision/cache`` "Cache in process" (no link) valid from 03-03: the links
  edge and the first version close at 03-03, recorded at R3.
* R4 (03-10): a *late retire* of ``decision/cache`` at 03-07.

Each case reads at (as_of, known_at) and says what ryvem answers; the table is the semantics
(XTDB-style, with linear chains): a row is visible when it was recorded by known_at, began by
as_of, and its window was still open at as_of as known at known_at.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ryvem.application.service import Service
from ryvem.domain.model import NodeVersion
from ryvem.domain.timeutil import Clock, format_us, parse_time
from ryvem.errors import InvalidInput, NotFound
from ryvem.export import build_payload
from ryvem.ports import GraphRepository

from .base import ContractBase

R1, R2, R3, R4 = (parse_time(f"2026-03-{d:02d}") for d in (1, 2, 5, 10))
BEFORE_R1 = "2026-02-28"
AFTER_R1 = "2026-03-01T12:00:00Z"  # R1 recorded, R2 not yet
AFTER_R2 = "2026-03-03T12:00:00Z"  # the link recorded, v2 not yet
AFTER_R3 = "2026-03-06"  # v2 recorded, the retire not yet
LATER = "2026-03-20"  # everything recorded


class SetClock(Clock):
    """A clock the test moves: ``now()`` counts up from the instant last set, 1 µs a read."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.t = at

    def set(self, at: int) -> None:
        self.t = at

    def now(self) -> int:
        self.t += 1
        return self.t

    def after(self, previous: int | None) -> int:
        self.t = max(self.t + 1, (previous or 0) + 1)
        return self.t


# (as_of, known_at) -> the title `get decision/cache` shows, with its valid_to as known then
# ("open" / "closed"), or None when no version is visible there.
GET_CASES: list[tuple[str | None, str | None, tuple[str, str] | None]] = [
    (None, None, ("Cache in process", "closed")),  # retired now: the newest version
    ("2026-02-19", None, None),  # before the backdated valid_from
    ("2026-02-25", None, ("Cache in Redis", "closed")),  # the backdated version
    ("2026-03-04", None, ("Cache in process", "closed")),
    ("2026-03-08", None, None),  # after the late retire, as known now
    (None, BEFORE_R1, None),  # nothing recorded yet
    ("2026-02-25", BEFORE_R1, None),
    (None, AFTER_R1, ("Cache in Redis", "open")),  # current as known then
    ("2026-02-25", AFTER_R1, ("Cache in Redis", "open")),
    ("2026-03-04", AFTER_R1, ("Cache in Redis", "open")),  # v2 not recorded yet
    ("2026-03-04", AFTER_R3, ("Cache in process", "open")),
    ("2026-03-08", AFTER_R3, ("Cache in process", "open")),  # the retire not recorded yet
    (None, AFTER_R3, ("Cache in process", "open")),
    ("2026-03-08", LATER, None),
    (None, LATER, ("Cache in process", "closed")),
]

# (from, rel, direction, as_of, known_at) -> the refs the walk reaches, in order.
WALK_CASES: list[tuple[str, str | None, str, str | None, str | None, list[str]]] = [
    ("task/add-cache", "implements", "out", "2026-02-23", None, ["cache"]),
    ("task/add-cache", "implements", "out", "2026-02-21T12:00:00Z", None, []),  # not yet valid
    ("task/add-cache", "implements", "out", "2026-02-23", AFTER_R1, []),  # not yet recorded
    ("task/add-cache", "implements", "out", "2026-02-23", AFTER_R2, ["cache"]),
    ("task/add-cache", "implements", "out", "2026-03-08", None, []),  # its target retired
    ("task/add-cache", "implements", "out", "2026-03-08", AFTER_R3, ["cache"]),
    ("task/add-cache", "implements", "out", None, AFTER_R3, ["cache"]),
    ("task/add-cache", "implements", "out", None, None, []),
    ("decision/cache", "links", "out", "2026-02-25", None, ["latency"]),
    ("decision/cache", "links", "out", "2026-03-04", None, []),  # v2 dropped the link
    ("decision/cache", "links", "out", "2026-03-04", AFTER_R2, ["latency"]),  # not known yet
    ("page/latency", "links", "in", "2026-03-04", AFTER_R2, ["cache"]),  # backlinks
    ("page/latency", "links", "in", "2026-03-04", AFTER_R3, []),
    ("task/add-cache", None, "out", "2026-03-04", AFTER_R2, ["cache", "latency"]),  # 2 hops
    ("task/add-cache", None, "out", "2026-03-04", None, ["cache"]),
]

# (text, as_of, known_at) -> the titles search finds.
SEARCH_CASES: list[tuple[str | None, str | None, str | None, list[str]]] = [
    ("redis", None, None, []),
    ("redis", "2026-02-25", None, ["Cache in Redis"]),
    ("redis", None, AFTER_R1, ["Cache in Redis"]),
    ("redis", None, AFTER_R3, []),
    ("process", None, AFTER_R3, ["Cache in process"]),
    ("process", None, None, []),  # retired
    ("process", "2026-03-04", AFTER_R1, []),  # not recorded yet
    ("cache", "2026-02-25", AFTER_R1, ["Cache in Redis"]),
    (None, None, BEFORE_R1, []),
    (None, "2026-02-15", AFTER_R1, ["Latency"]),
]


def _ids(cases: list[Any]) -> list[str]:
    return ["-".join(str(x) for x in c[:-1]) for c in cases]


class ClocksContract(ContractBase):
    """Valid time supplied by the caller, system time recorded by ryvem, read together."""

    @pytest.fixture
    def clock(self) -> SetClock:
        return SetClock(R1)

    @pytest.fixture
    def story(self, repo: GraphRepository, clock: SetClock) -> Iterator[Service]:
        svc = Service(repo, clock=clock)
        clock.set(R1)
        svc.write("page", "Latency", key="latency", valid_from="2026-02-01")
        svc.write("decision", "Cache in Redis", key="cache", body="Because [[latency]].",
                  valid_from="2026-02-20")
        svc.write("task", "Add a cache server", key="add-cache", valid_from="2026-02-21")
        clock.set(R2)
        svc.link("task/add-cache", "decision/cache", "implements", valid_from="2026-02-22")
        clock.set(R3)
        svc.write("decision", "Cache in process", key="cache", body="No link.",
                  valid_from="2026-03-03")
        clock.set(R4)
        svc.retire("decision/cache", reason="no cache after all", valid_to="2026-03-07")
        clock.set(parse_time(LATER))
        yield svc

    # --- writing on two clocks --------------------------------------------------------------
    def test_a_backdated_write_is_valid_from_the_past_and_recorded_now(
        self, story: Service
    ) -> None:
        """valid_from is what the caller said; recorded_at is ryvem's own clock."""
        v1, v2 = story.history("decision/cache")
        assert v1.valid_from == parse_time("2026-02-20") and R1 <= v1.recorded_at < R2
        assert v1.valid_to == parse_time("2026-03-03")
        assert R3 <= (v1.closure_recorded_at or 0) < R4
        assert v2.valid_to == parse_time("2026-03-07")
        assert (v2.closure_recorded_at or 0) >= R4
        assert v2.retired_reason == "no cache after all"
        assert v2.record()["recorded_at"] == format_us(v2.recorded_at)

    def test_a_write_without_a_valid_time_is_valid_from_when_it_is_recorded(
        self, service: Service
    ) -> None:
        """Without valid_from both clocks read the same instant: nothing changes for callers
        that never date anything."""
        v = service.write("decision", "Now", key="now")
        assert v.valid_from == v.recorded_at and v.closure_recorded_at is None
        gone = service.retire("decision/now")
        assert gone.valid_to == gone.closure_recorded_at

    def test_a_valid_time_before_the_latest_one_is_refused_and_writes_nothing(
        self, story: Service, repo: GraphRepository
    ) -> None:
        """History is append-only on both clocks: a change dated before the identity's latest
        valid time (here the retire at 03-07) is refused, saying so."""
        before = [v.id for batch in repo.iter_versions() for v, _ in batch]
        with pytest.raises(InvalidInput, match="append-only"):
            story.write("decision", "Too early", key="cache", valid_from="2026-03-06")
        assert [v.id for batch in repo.iter_versions() for v, _ in batch] == before
        revived = story.write("decision", "Back", key="cache", valid_from="2026-03-08")
        assert revived.valid_from == parse_time("2026-03-08")
        with pytest.raises(NotFound):
            story.get("decision/cache", as_of="2026-03-07T12:00:00Z")  # retired in between

    def test_a_valid_time_equal_to_the_latest_one_is_taken_one_microsecond_later(
        self, service: Service
    ) -> None:
        """Two changes dated the same instant (two commits in one second) keep their order."""
        a = service.write("page", "One", key="p", valid_from="2026-01-01")
        b = service.write("page", "Two", key="p", valid_from="2026-01-01")
        assert b.valid_from == a.valid_from + 1
        assert [v.title for v in service.history("page/p")] == ["One", "Two"]

    def test_valid_time_before_1970_is_an_ordinary_signed_instant(
        self, service: Service
    ) -> None:
        """A node dated before the epoch supersedes with a later pre-1970 time, a change
        dated 1970-01-01 keeps that instant (no floor at 0 moved it 1 µs), and as-of reads
        before, at and after the epoch see the version valid then."""
        service.write("task", "B", key="b", valid_from="1969-12-31")
        b2 = service.write("task", "B2", key="b", valid_from="1969-12-31T12:00:00Z")
        assert b2.valid_from == parse_time("1969-12-31T12:00:00Z") < 0
        b3 = service.write("task", "B3", key="b", valid_from="1970-01-01")
        assert b3.valid_from == 0
        assert [v.title for v in service.history("task/b")] == ["B", "B2", "B3"]
        assert service.get("task/b", as_of="1969-12-31T06:00:00Z").title == "B"
        assert service.get("task/b", as_of="1969-12-31T23:59:59Z").title == "B2"
        assert service.get("task/b", as_of="1970-01-01T00:00:00Z").title == "B3"
        with pytest.raises(InvalidInput, match="append-only"):
            service.write("task", "Too early", key="b", valid_from="1969-12-31T18:00:00Z")
        gone = service.retire("task/b", valid_to="1970-01-02")
        assert gone.valid_to == parse_time("1970-01-02")
        with pytest.raises(NotFound):
            service.get("task/b", as_of="1970-01-03")

    def test_a_valid_time_in_the_future_is_refused(self, service: Service) -> None:
        """ryvem records what was true up to now."""
        with pytest.raises(InvalidInput, match="future"):
            service.write("decision", "Later", key="later", valid_from="9999-01-01")
        service.write("decision", "Now", key="now")
        with pytest.raises(InvalidInput, match="future"):
            service.retire("decision/now", valid_to="9999-01-01")

    def test_a_retire_before_the_version_began_is_refused(self, service: Service) -> None:
        """A late retire may be dated back to, but not before, the version's valid_from."""
        service.write("decision", "D", key="d", valid_from="2026-01-10")
        with pytest.raises(InvalidInput, match="append-only"):
            service.retire("decision/d", valid_to="2026-01-09")
        gone = service.retire("decision/d", valid_to="2026-01-11")
        assert gone.valid_to == parse_time("2026-01-11")

    def test_an_edge_takes_a_valid_time_under_the_same_rule(self, story: Service) -> None:
        """link's valid_from may not precede the edge it supersedes; unlink's valid_to may
        not precede the edge's own valid_from."""
        story.write("decision", "Back", key="cache", valid_from="2026-03-08")
        with pytest.raises(InvalidInput, match="append-only"):
            story.link("task/add-cache", "decision/cache", "implements", data={"x": 1},
                       valid_from="2026-02-21")
        with pytest.raises(InvalidInput, match="append-only"):
            story.unlink("task/add-cache", "decision/cache", "implements",
                         valid_to="2026-02-21")
        closed = story.unlink("task/add-cache", "decision/cache", "implements",
                              valid_to="2026-03-09")
        assert closed.edge.valid_to == parse_time("2026-03-09")
        with pytest.raises(InvalidInput, match="append-only"):
            story.link("task/add-cache", "decision/cache", "implements",
                       valid_from="2026-03-08")
        again = story.link("task/add-cache", "decision/cache", "implements",
                           valid_from="2026-03-09")
        assert again.edge.valid_from == parse_time("2026-03-09")

    def test_a_new_node_may_start_before_nodes_recorded_earlier(self, service: Service) -> None:
        """Only an identity's own history is append-only: a new node may start in the past."""
        service.write("page", "New", key="new")
        old = service.write("page", "Old", key="old", valid_from="2020-05-01")
        assert old.valid_from == parse_time("2020-05-01")
        assert service.get("page/old", as_of="2021-01-01").id == old.id

    # --- reading on two clocks ----------------------------------------------------------------
    @pytest.mark.parametrize(("as_of", "known_at", "expected"), GET_CASES, ids=_ids(GET_CASES))
    def test_get_answers_the_table(
        self, story: Service, as_of: str | None, known_at: str | None,
        expected: tuple[str, str] | None,
    ) -> None:
        """get at (as_of, known_at): the version visible there, its window as known then."""
        if expected is None:
            with pytest.raises(NotFound):
                story.get("decision/cache", as_of=as_of, known_at=known_at)
            return
        v = story.get("decision/cache", as_of=as_of, known_at=known_at)
        assert (v.title, "open" if v.valid_to is None else "closed") == expected
        if known_at is not None and v.valid_to is None:
            assert v.superseded_by is None and v.retired_reason is None
            assert v.closure_recorded_at is None

    def test_get_by_id_refuses_a_version_not_recorded_by_known_at(self, story: Service) -> None:
        """An id names its version only once it was recorded."""
        v2 = story.history("decision/cache")[1]
        with pytest.raises(NotFound, match="not recorded"):
            story.get(v2.id, known_at=AFTER_R1)
        assert story.get(v2.id, known_at=AFTER_R3).valid_to is None

    def test_bare_keys_resolve_on_both_clocks(self, story: Service) -> None:
        """A bare key resolves among the rows visible at (as_of, known_at)."""
        assert story.get("cache", known_at=AFTER_R1).title == "Cache in Redis"
        with pytest.raises(NotFound):
            story.get("cache", known_at=BEFORE_R1)

    def test_history_lists_what_was_recorded_by_known_at_and_begun_by_as_of(
        self, story: Service
    ) -> None:
        """history at known_at: the versions recorded by then, windows as known then; with
        as_of: those begun by then."""
        now = story.history("decision/cache")
        assert [(v.title, v.valid_to is None) for v in now] == [
            ("Cache in Redis", False), ("Cache in process", False)]
        then = story.history("decision/cache", known_at=AFTER_R1)
        assert [(v.title, v.valid_to, v.superseded_by) for v in then] == [
            ("Cache in Redis", None, None)]
        mid = story.history("decision/cache", known_at=AFTER_R3)
        assert [(v.title, v.valid_to is None) for v in mid] == [
            ("Cache in Redis", False), ("Cache in process", True)]
        assert [v.title for v in story.history("decision/cache", as_of="2026-02-25")] == [
            "Cache in Redis"]
        # Whole, as `get` at the same instant shows it: a later end keeps its successor (it
        # lost the successor only, and read as retired).
        early = story.history("decision/cache", as_of="2026-02-25")[0]
        assert early == story.get("cache", as_of="2026-02-25") == now[0]
        assert early.superseded_by == now[1].id
        with pytest.raises(NotFound):
            story.history("decision/cache", known_at=BEFORE_R1)
        with pytest.raises(NotFound):
            story.history("decision/cache", as_of="2026-02-10")

    @pytest.mark.parametrize(
        ("start", "rel", "direction", "as_of", "known_at", "expected"), WALK_CASES,
        ids=_ids(WALK_CASES),
    )
    def test_walks_answer_the_table(
        self, story: Service, start: str, rel: str | None, direction: str,
        as_of: str | None, known_at: str | None, expected: list[str],
    ) -> None:
        """Walks cross only edges, and reach only nodes, visible at (as_of, known_at)."""
        try:
            steps = story.traverse(
                start, depth=1 if rel else 2, direction=direction,
                rels=[rel] if rel else None, as_of=as_of, known_at=known_at,
            )
        except NotFound:
            steps = []
        far = [s.dst.ref if s.direction == "out" else s.src.ref for s in steps]
        assert far == expected

    def test_edges_show_their_windows_as_known_then(self, story: Service) -> None:
        """The links edge closed at 03-03, recorded at R3: before R3 it is open."""
        [then] = [e for e in story.edges_of("decision/cache", as_of="2026-02-25",
                                            known_at=AFTER_R2) if e.rel == "links"]
        assert then.valid_to is None and then.closure_recorded_at is None
        [now] = [e for e in story.edges_of("decision/cache", as_of="2026-02-25")
                 if e.rel == "links"]
        assert now.valid_to == parse_time("2026-03-03")
        assert story.edges_of("task/add-cache", as_of="2026-02-25", known_at=AFTER_R1) == []

    @pytest.mark.parametrize(
        ("text", "as_of", "known_at", "expected"), SEARCH_CASES, ids=_ids(SEARCH_CASES)
    )
    def test_search_answers_the_table(
        self, story: Service, text: str | None, as_of: str | None, known_at: str | None,
        expected: list[str],
    ) -> None:
        """Search finds the rows visible at (as_of, known_at), by their text then."""
        hits = story.search(text, as_of=as_of, known_at=known_at, kinds=["decision", "page"])
        assert [h.title for h in hits] == expected

    def test_the_export_holds_what_was_recorded_by_known_at(self, story: Service) -> None:
        """export at known_at: the rows recorded by then, windows as known then; at as_of:
        the rows begun by then."""
        def titles(*, as_of: str | None = None, known_at: str | None = None
                   ) -> list[tuple[str, int]]:
            nodes = build_payload(story, as_of=as_of, known_at=known_at)["nodes"]
            return sorted(zip(nodes["t"], nodes["u"], strict=True))

        assert titles(known_at=BEFORE_R1) == []
        assert titles(known_at=AFTER_R1) == [
            ("Add a cache server", 0), ("Cache in Redis", 0), ("Latency", 0)]
        assert [t for t, u in titles() if u] == ["Cache in Redis", "Cache in process"]
        assert [t for t, _ in titles(as_of="2026-02-25")] == [
            "Add a cache server", "Cache in Redis", "Latency"]

    def test_reading_at_a_known_at_after_everything_is_reading_now(
        self, story: Service
    ) -> None:
        """known_at later than every recording answers what a read without it answers."""
        for as_of in (None, "2026-02-25", "2026-03-04", "2026-03-08"):
            try:
                plain: NodeVersion | None = story.get("decision/cache", as_of=as_of)
            except NotFound:
                plain = None
            try:
                late: NodeVersion | None = story.get("decision/cache", as_of=as_of,
                                                     known_at=LATER)
            except NotFound:
                late = None
            assert late == plain
