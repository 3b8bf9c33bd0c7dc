"""The two clocks through the real ``ryvem`` console script: ``--valid-from``/``--valid-to``
on the writing verbs, ``--as-of``/``--known-at`` on every reading verb.

System time here is the real clock, so a test reads the ``recorded_at`` the CLI printed and
asks about the moments just before and after it.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from support.cli import Cli, assert_fails


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """The CLI outside any git repository (scope global), with an empty data dir."""
    work = tmp_path / "work"
    work.mkdir()
    return Cli(work, tmp_path / "data")


def just_before(iso: str) -> str:
    t = datetime.fromisoformat(iso.replace("Z", "+00:00")) - timedelta(microseconds=1)
    return t.astimezone(UTC).isoformat().replace("+00:00", "Z")


def test_a_backdated_put_is_valid_from_then_and_recorded_now(cli: Cli) -> None:
    """`put --valid-from` dates the version; `recorded_at` is when ryvem wrote it."""
    rec = cli.json("put", "decision", "--title", "Cache in process", "--key", "cache",
                   "--valid-from", "2026-11-24")
    assert rec["valid_from"] == "2026-11-24T00:00:00.000000Z"
    recorded = datetime.fromisoformat(rec["recorded_at"].replace("Z", "+00:00"))
    assert abs(datetime.now(UTC) - recorded) < timedelta(minutes=5)
    assert rec["closure_recorded_at"] is None
    assert cli.json("get", "cache", "--as-of", "2026-11-25")["id"] == rec["id"]
    assert_fails(cli("get", "cache", "--as-of", "2026-11-23"), 1, "at 2026-11-23")
    human = cli.ok("get", "cache").out
    assert f"recorded {rec['recorded_at']}" in human


def test_a_past_read_of_a_node_that_did_not_exist_then_gives_no_retired_hint(
    cli: Cli,
) -> None:
    """`get KEY --as-of T` before the node existed says so, without the hint about naming a
    retired node by KIND/KEY (it is current, and KIND/KEY fails the same way then); a current
    read of a retired key keeps the hint."""
    cli.ok("put", "decision", "--title", "Cache in process", "--key", "cache",
           "--valid-from", "2026-11-24")
    for ref in ("cache", "decision/cache"):
        r = cli("get", ref, "--as-of", "2026-11-23")
        assert_fails(r, 1, "at 2026-11-23")
        assert "retired" not in r.err, r.err
    cli.ok("retire", "cache")
    assert_fails(cli("get", "cache"), 1, "name a retired one by KIND/KEY")


def test_a_valid_time_before_the_latest_one_is_exit_2_and_writes_nothing(cli: Cli) -> None:
    """Append-only on both clocks: the error says so, in one line, and nothing is written."""
    cli.ok("put", "decision", "--title", "One", "--key", "d", "--valid-from", "2026-11-20")
    r = cli("put", "decision", "--title", "Two", "--key", "d", "--valid-from", "2026-11-19")
    assert_fails(r, 2, "append-only")
    assert "2026-11-20T00:00:00.000000Z" in r.err
    assert len(cli.json("history", "decision/d")) == 1
    assert_fails(cli("retire", "decision/d", "--valid-to", "2026-11-19"), 2, "append-only")
    assert_fails(cli("put", "decision", "--title", "x", "--valid-from", "9999-01-01"), 2, "future")
    assert_fails(cli("put", "decision", "--title", "x", "--valid-from", "someday"), 2, "ISO 8601")
    assert_fails(cli("get", "decision/d", "--known-at", "nope"), 2, "ISO 8601")


def test_a_late_retire_is_seen_only_from_when_it_was_recorded(cli: Cli) -> None:
    """`retire --valid-to` in the past: as known now the node ended then; as known before the
    retire was recorded it was still current."""
    put = cli.json("put", "decision", "--title", "Redis", "--key", "cache",
                   "--valid-from", "2026-11-01")
    gone = cli.json("retire", "decision/cache", "--valid-to", "2026-11-10", "--reason", "no")
    assert gone["valid_to"] == "2026-11-10T00:00:00.000000Z"
    assert gone["closure_recorded_at"] > put["recorded_at"]
    assert_fails(cli("get", "decision/cache", "--as-of", "2026-11-15"), 1)
    before = just_before(gone["closure_recorded_at"])
    then = cli.json("get", "decision/cache", "--as-of", "2026-11-15", "--known-at", before)
    assert (then["title"], then["valid_to"], then["retired_reason"]) == ("Redis", None, None)
    assert cli.json("get", "decision/cache", "--known-at", before)["valid_to"] is None
    assert_fails(cli("get", "decision/cache", "--known-at", just_before(put["recorded_at"])), 1)


def test_history_search_links_and_export_take_both_flags(cli: Cli, tmp_path: Path) -> None:
    """Every reading verb answers --as-of and --known-at."""
    cli.ok("put", "page", "--title", "Latency", "--key", "latency", "--valid-from", "2026-10-01")
    v1 = cli.json("put", "decision", "--title", "Cache in Redis", "--key", "cache",
                  "--body", "See [[latency]].", "--valid-from", "2026-10-05")
    v2 = cli.json("put", "decision", "--title", "Cache in process", "--key", "cache",
                  "--body", "No link.", "--valid-from", "2026-10-10")
    k1 = just_before(v2["recorded_at"])  # v1 recorded, v2 not yet

    chain = cli.json("history", "decision/cache", "--known-at", k1)
    assert [(v["title"], v["valid_to"]) for v in chain] == [("Cache in Redis", None)]
    assert [v["id"] for v in cli.json("history", "decision/cache", "--as-of", "2026-10-07")] == [
        v1["id"]]
    assert "recorded" in cli.ok("history", "decision/cache").out

    found = cli.json("search", "redis", "--known-at", k1)
    assert [h["title"] for h in found] == ["Cache in Redis"]
    assert cli.json("search", "redis") == []
    assert [h["title"] for h in cli.json("search", "redis", "--as-of", "2026-10-07")] == [
        "Cache in Redis"]

    def walk(*flags: str) -> list[str]:
        return [s["to"] for s in cli.json("links", "decision/cache", *flags)]

    assert walk("--as-of", "2026-10-12") == []
    assert walk("--as-of", "2026-10-12", "--known-at", k1) == ["latency"]
    assert walk("--as-of", "2026-10-07") == ["latency"]
    back = cli.json("links", "page/latency", "--backlinks", "--as-of", "2026-10-12",
                    "--known-at", k1)
    assert [s["from"] for s in back] == ["cache"]
    assert cli.ok("links", "decision/cache", "--as-of", "2026-10-07").lines == ["page/latency"]

    page = tmp_path / "then.html"
    out = cli.json("export", "--out", str(page), "--known-at", just_before(v1["recorded_at"]))
    assert out["path"] == str(page)
    data = re.search(r'<script type="application/json" id="ryvem-data">(.*?)</script>',
                     page.read_text(), re.S)
    assert data is not None
    assert json.loads(data.group(1))["nodes"]["t"] == ["Latency"]
    cli.ok("export", "--out", str(page), "--as-of", "2026-10-07")
    assert_fails(cli("export", "--out", str(page), "--known-at", "never"), 2, "ISO 8601")


def test_link_and_unlink_take_a_valid_time(cli: Cli) -> None:
    """`link --valid-from` dates the edge; `unlink --valid-to` ends it; walks follow."""
    cli.ok("put", "task", "--title", "Add cache", "--key", "add", "--valid-from", "2026-09-01")
    cli.ok("put", "decision", "--title", "Cache", "--key", "cache", "--valid-from", "2026-09-01")
    edge = cli.json("link", "task/add", "decision/cache", "--rel", "implements",
                    "--valid-from", "2026-09-03")
    assert edge["valid_from"] == "2026-09-03T00:00:00.000000Z" and edge["recorded_at"]
    closed = cli.json("unlink", "task/add", "decision/cache", "--rel", "implements",
                      "--valid-to", "2026-09-05")
    assert closed["valid_to"] == "2026-09-05T00:00:00.000000Z"
    assert [s["to"] for s in cli.json("links", "task/add", "--as-of", "2026-09-04")] == ["cache"]
    assert cli.json("links", "task/add", "--as-of", "2026-09-06") == []
    assert_fails(cli("link", "task/add", "decision/cache", "--rel", "implements",
                     "--valid-from", "2026-09-04"), 2, "append-only")


def test_a_time_whose_zone_moves_it_outside_years_1_to_9999_is_exit_2_and_writes_nothing(
    cli: Cli,
) -> None:
    """`0001-01-01T00:00:00+01:00` is year 0 in UTC: refused like any bad date, never stored
    (a stored year-0 version made every later `get` of the node an internal error)."""
    year_0 = "0001-01-01T00:00:00+01:00"
    r = cli("put", "decision", "--title", "x", "--key", "d", "--valid-from", year_0)
    assert_fails(r, 2, "outside years 1 to 9999")
    assert cli.json("search", "--all-scopes") == []
    cli.ok("put", "decision", "--title", "x", "--key", "d")
    for verb in ("get", "history", "links"):
        assert_fails(cli(verb, "decision/d", "--as-of", year_0), 2, "outside years 1 to 9999")
    assert_fails(cli("search", "x", "--as-of", "9999-12-31T23:59:59-01:00"), 2, "outside years")


def test_a_node_dated_before_1970_supersedes_with_a_later_pre_1970_time(cli: Cli) -> None:
    """Valid time is signed: no floor at 1970-01-01 refuses the second write or moves a
    write dated exactly 1970-01-01 by a microsecond."""
    cli.ok("put", "task", "--key", "b", "--title", "B", "--valid-from", "1969-12-31")
    b2 = cli.json("put", "task", "--key", "b", "--title", "B2",
                  "--valid-from", "1969-12-31T12:00:00Z")
    assert b2["valid_from"] == "1969-12-31T12:00:00.000000Z"
    b3 = cli.json("put", "task", "--key", "b", "--title", "B3", "--valid-from", "1970-01-01")
    assert b3["valid_from"] == "1970-01-01T00:00:00.000000Z"
    then = cli.json("get", "task/b", "--as-of", "1969-12-31T06:00:00Z")
    assert then["title"] == "B"
