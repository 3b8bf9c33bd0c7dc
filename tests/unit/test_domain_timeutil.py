"""Time on the validity axis: microseconds UTC inside, ISO 8601 with Z outside."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from ryvem.domain.timeutil import MAX_US, MIN_US, Clock, format_us, parse_time, to_datetime
from ryvem.errors import InvalidInput

NOON = 1_796_040_000_000_000  # 2026-11-30T12:00:00Z


def test_a_time_is_formatted_as_iso_8601_utc_with_microseconds_and_z() -> None:
    """format_us renders UTC with six fractional digits and a Z."""
    assert format_us(NOON) == "2026-11-30T12:00:00.000000Z"
    assert format_us(NOON + 123_456) == "2026-11-30T12:00:00.123456Z"
    assert format_us(0) == "1970-01-01T00:00:00.000000Z"
    assert format_us(-1) == "1969-12-31T23:59:59.999999Z"


def test_the_extreme_years_format_with_four_digit_years_and_parse_back() -> None:
    """Years 1 and 9999 format as valid ISO 8601 that parses to the same instant."""
    assert format_us(MIN_US) == "0001-01-01T00:00:00.000000Z"
    assert format_us(MAX_US) == "9999-12-31T23:59:59.999999Z"
    for us in (MIN_US, MAX_US, 999 * 365 * 86_400 * 10**6 - 62_135_596_800_000_000):
        assert parse_time(format_us(us)) == us


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-11-30", NOON - 12 * 3600 * 10**6),
        ("2026-11-30T12:00:00Z", NOON),
        ("2026-11-30T12:00:00z", NOON),
        ("2026-11-30T12:00:00.000001Z", NOON + 1),
        ("2026-11-30T12:00:00.5Z", NOON + 500_000),
        ("2026-11-30T12:00:00+00:00", NOON),
        ("2026-11-30T14:00:00+02:00", NOON),
        ("2026-11-30T07:00:00-05:00", NOON),
        ("2026-11-30T12:00:00", NOON),
        ("2026-11-30T12:00", NOON),
        ("2026-11-30 12:00:00", NOON),
        ("  2026-11-30T12:00:00Z  ", NOON),
    ],
)
def test_iso_dates_and_date_times_parse_to_utc_microseconds(text: str, expected: int) -> None:
    """Dates mean UTC midnight, zones are converted, and no zone means UTC."""
    assert parse_time(text) == expected


def test_datetimes_dates_and_integers_are_accepted_as_they_are() -> None:
    """A datetime (aware or naive = UTC), a date, or microseconds all name the same instant."""
    aware = datetime(2026, 11, 30, 13, 0, tzinfo=timezone(timedelta(hours=1)))
    assert parse_time(aware) == NOON
    assert parse_time(datetime(2026, 11, 30, 12, 0)) == NOON
    assert parse_time(date(2026, 11, 30)) == NOON - 12 * 3600 * 10**6
    assert parse_time(NOON) == NOON
    assert to_datetime(NOON) == datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "bad",
    ["", "   ", "yesterday", "2026-02-30", "2026-13-01", "2026/11/30", "30-11-2026",
     "2026-11-30T25:00:00Z", "2026-11-30T12:00:00+25:00", "10000-01-01", "0000-01-01",
     "2026-11-30T12:00:00ZZ", "x" * 500, "0001-01-01T00:00:00+01:00",
     "9999-12-31T23:30:00-01:00", datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))),
     True, False, MAX_US + 1, MIN_US - 1, 10**30],
)
def test_bad_times_are_invalid_input_with_one_line(bad: object) -> None:
    """Anything that is not a valid instant is InvalidInput, never a ValueError."""
    with pytest.raises(InvalidInput) as info:
        parse_time(bad)  # type: ignore[arg-type]  # deliberately wrong types too
    assert "\n" not in str(info.value)
    assert len(str(info.value)) < 200


def test_the_clock_never_repeats_or_runs_backwards() -> None:
    """Consecutive readings strictly increase even faster than the wall clock ticks."""
    clock = Clock()
    readings = [clock.now() for _ in range(2000)]
    assert readings == sorted(set(readings))


def test_after_is_strictly_later_than_a_previous_time_even_in_the_future() -> None:
    """after(p) is later than p and than every earlier reading, even if p is ahead of now."""
    clock = Clock()
    future = clock.now() + 10**12
    t1 = clock.after(future)
    assert t1 == future + 1
    assert clock.after(t1) > t1
    assert clock.now() > t1
    assert clock.after(None) > t1


@pytest.mark.parametrize("text", ["2026-11-30T23:59:60Z", "2026-11-30T24:00:00Z",
                                  "2026-11-30T24:00", "2026-06-30 23:59:60.5+02:00",
                                  "20161231T235960Z", "20161231T2400", "2016-12-31t23:59:60z"])
def test_a_leap_second_or_24_00_is_named_not_called_invalid_iso(text: str) -> None:
    """A sweep read "not an ISO 8601 date or date-time" for both, which they are; the
    message now says what ryvem cannot hold and what to give instead."""
    with pytest.raises(InvalidInput, match=r"leap second \(:60\) or 24:00 is valid ISO 8601"):
        parse_time(text)
    for bad in ("2026-11-30T25:00:00Z", "2016-99-99T23:59:60", "2016-12-31T23:59:60Zjunk"):
        with pytest.raises(InvalidInput, match="not an ISO 8601"):
            parse_time(bad)
