"""Node versions and edges: validity windows, identity, and the JSON record faces print."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ryvem.domain.model import Edge, NodeVersion

T0 = 1_796_040_000_000_000


def version(**kw: object) -> NodeVersion:
    fields: dict[str, object] = {
        "id": "a" * 24, "entity": "a" * 24, "kind": "decision", "scope": "global",
        "key": "cache", "title": "Cache", "valid_from": T0,
    }
    fields.update(kw)
    return NodeVersion(**fields)


def test_a_window_is_half_open_valid_from_inclusive_valid_to_exclusive() -> None:
    """valid_at(T) is valid_from <= T < valid_to, for versions and edges alike."""
    closed = version(valid_to=T0 + 10)
    assert not closed.valid_at(T0 - 1)
    assert closed.valid_at(T0) and closed.valid_at(T0 + 9)
    assert not closed.valid_at(T0 + 10)
    edge = Edge(id="e" * 24, rel="about", src="a", dst="b", valid_from=T0, valid_to=T0 + 1)
    assert edge.valid_at(T0) and not edge.valid_at(T0 + 1)


def test_a_current_version_is_valid_from_its_start_onwards() -> None:
    """A null valid_to means current and valid at every later time."""
    v = version()
    assert v.is_current and v.valid_at(T0) and v.valid_at(10**17) and not v.valid_at(T0 - 1)


def test_identity_and_ref_depend_on_the_key() -> None:
    """A keyed version has (kind, key, scope) and is named by its key; unkeyed by its id."""
    keyed = version(scope="board:x")
    assert keyed.identity == ("decision", "cache", "board:x") and keyed.ref == "cache"
    unkeyed = version(key=None)
    assert unkeyed.identity is None and unkeyed.ref == "a" * 24


def test_the_record_prints_times_as_iso_8601_with_z() -> None:
    """record() is the JSON node every face prints, with ISO times and every field."""
    rec = version(valid_to=T0 + 1, superseded_by="b" * 24, data={"x": 1}).record()
    assert rec["valid_from"] == "2026-11-30T12:00:00.000000Z"
    assert rec["valid_to"] == "2026-11-30T12:00:00.000001Z"
    assert rec["superseded_by"] == "b" * 24 and rec["data"] == {"x": 1}
    assert set(rec) == {"id", "entity", "kind", "key", "scope", "title", "body", "data",
                        "valid_from", "valid_to", "superseded_by", "supersedes",
                        "retired_reason", "erased", "recorded_at", "closure_recorded_at"}
    assert rec["recorded_at"] == rec["valid_from"]  # built without system time: as valid
    assert rec["closure_recorded_at"] == rec["valid_to"]
    assert version().record()["valid_to"] is None


def test_versions_are_frozen_and_reject_unknown_fields() -> None:
    """A version cannot be edited in place or carry fields the model does not know."""
    v = version()
    with pytest.raises(ValidationError):
        v.title = "changed"  # type: ignore[misc]  # assigning to a frozen model on purpose
    with pytest.raises(ValidationError):
        version(colour="red")


def test_a_trusted_read_result_behaves_exactly_like_a_validated_model() -> None:
    """trusted() (the adapters' fast path for rows they read) equals, dumps, copies and stays
    frozen like a model built with validation."""
    from ryvem.domain.model import Edge, trusted

    v = version(data={"x": [1, 2]}, valid_to=T0 + 5, superseded_by="b" * 24)
    fast = trusted(NodeVersion, dict(v.model_dump()))
    assert fast == v and fast.model_dump() == v.model_dump() and fast.record() == v.record()
    assert fast.model_copy(update={"title": "t2"}).title == "t2"
    with pytest.raises(ValidationError):
        fast.title = "changed"  # type: ignore[misc]  # assigning to a frozen model on purpose
    e = Edge(id="c" * 24, rel="links", src="a" * 24, dst="b" * 24, valid_from=T0)
    assert trusted(Edge, dict(e.model_dump())) == e


def test_the_latest_valid_time_of_a_row_before_1970_is_negative_not_floored_at_zero() -> None:
    day = 86_400_000_000
    assert version(valid_from=-day).latest_valid == -day
    closed = version(valid_from=-2 * day, valid_to=-day, closure_recorded_at=T0)
    assert closed.latest_valid == -day
    assert closed.latest_instant == T0  # the known-time clock is the store's: after 1970
