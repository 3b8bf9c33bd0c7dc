"""Time on the validity axis: integer microseconds since the Unix epoch, UTC.

Integers compare exactly in every backend and keep microsecond precision without
floating point or time-zone surprises; ISO 8601 strings with a ``Z`` are the outside form.
"""

from __future__ import annotations

import re
import threading
import time
from datetime import UTC, date, datetime

from ryvem.errors import InvalidInput

__all__ = ["Clock", "format_us", "parse_time", "to_datetime"]

_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# ISO 8601 allows both; Python's datetime (and so ryvem's axis) has neither. Each is named
# only when the text reads as a time once it is replaced by the moment before it (so
# "2016-99-99T23:59:60" is still "not ISO 8601"), extended or basic form.
_LEAP_OR_24 = (
    (re.compile(r"(?<=[Tt ]\d\d:\d\d:)60(?=[.,]\d+)?"), "59"),
    (re.compile(r"(?<=[Tt]\d{4})60"), "59"),
    (re.compile(r"(?<=[Tt ])24:00(?=(?::00)?(?:[.,]0+)?(?![\d:]))"), "23:59"),
    (re.compile(r"(?<=[Tt])2400(?=(?:00)?(?:[.,]0+)?(?!\d))"), "2359"),
)
MIN_US = -62_135_596_800_000_000  # 0001-01-01T00:00:00Z
MAX_US = 253_402_300_799_999_999  # 9999-12-31T23:59:59.999999Z


def format_us(us: int) -> str:
    """Render microseconds since the epoch as ISO 8601 UTC with a ``Z``."""
    # isoformat pads the year to four digits (strftime's %Y does not for years < 1000).
    return to_datetime(us).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def to_datetime(us: int) -> datetime:
    seconds, micros = divmod(us, 1_000_000)
    return datetime.fromtimestamp(seconds, tz=UTC).replace(microsecond=micros)


def from_datetime(value: datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    delta = value - datetime(1970, 1, 1, tzinfo=UTC)
    us = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if not MIN_US <= us <= MAX_US:
        # A zone can carry a date at either end of the calendar past it (year 0 or 10000 in
        # UTC), which no time on the axis can be formatted as.
        raise InvalidInput(
            f"time {value.isoformat()} is outside years 1 to 9999 in UTC"
        )
    return us


def parse_time(text: str | datetime | date | int) -> int:
    """Parse an ISO 8601 date or date-time (UTC when it has no zone) into microseconds."""
    if isinstance(text, bool):
        raise InvalidInput(f"not a date or date-time: {text!r}")
    if isinstance(text, int):
        if not MIN_US <= text <= MAX_US:
            raise InvalidInput(f"time {text} is outside years 1 to 9999 (microseconds, UTC)")
        return text
    if isinstance(text, datetime):
        return from_datetime(text)
    if isinstance(text, date):
        return from_datetime(datetime(text.year, text.month, text.day, tzinfo=UTC))
    raw = str(text).strip()
    try:
        if _DATE_ONLY.match(raw):
            d = date.fromisoformat(raw)
            return from_datetime(datetime(d.year, d.month, d.day, tzinfo=UTC))
        if raw.endswith(("z", "Z")):
            raw = raw[:-1] + "+00:00"
        return from_datetime(datetime.fromisoformat(raw))
    except (ValueError, OverflowError):
        shown = text if len(str(text)) <= 60 else str(text)[:57] + "..."
        if _names_a_leap_second_or_24(str(text).strip()):
            raise InvalidInput(
                f"{shown!r}: a leap second (:60) or 24:00 is valid ISO 8601 but not a time "
                "ryvem can hold; give the second before it, or 00:00 of the next day"
            ) from None
        raise InvalidInput(
            f"not an ISO 8601 date or date-time: {shown!r} "
            "(e.g. 2026-11-30 or 2026-11-30T12:00:00Z)"
        ) from None


def _names_a_leap_second_or_24(raw: str) -> bool:
    """Whether ``raw`` would be a time but for a leap second (:60) or 24:00 (see above)."""
    for pattern, before in _LEAP_OR_24:
        moved = pattern.sub(before, raw, count=1)
        if moved != raw:
            try:
                parse_time(moved)
            except InvalidInput:
                continue
            return True
    return False


class Clock:
    """Microsecond wall clock that never repeats or runs backwards within one process."""

    def __init__(self) -> None:
        self._last = 0
        self._lock = threading.Lock()

    def now(self) -> int:
        with self._lock:
            now = time.time_ns() // 1000
            if now <= self._last:
                now = self._last + 1
            self._last = now
            return now

    def after(self, previous: int | None) -> int:
        """A time strictly later than ``previous`` (and than every earlier reading)."""
        now = self.now()
        if previous is not None and now <= previous:
            with self._lock:
                now = previous + 1
                self._last = max(self._last, now)
        return now
