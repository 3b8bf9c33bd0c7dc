"""A conversation transcript, read into turns: the pure half of ``import-transcript``.

Two shapes are read (:func:`parse_transcript`):

* **JSON Lines**: one object a line, the speaker in ``speaker``, ``role`` or ``author``, the
  text in ``text`` or ``content`` (a string, or a list of ``{"type": "text", "text": …}``
  parts, as chat exports write it), the time, optional, in ``time``, ``timestamp`` or
  ``created_at`` (ISO 8601). Blank lines are skipped.
* **A markdown dialogue**: a turn starts on a line ``**Speaker** (time): text``,
  ``**Speaker**: text`` or ``Speaker: text`` (a speaker of up to 40 characters, a word
  first); the lines after it, up to the next turn, are its text. Lines before the first turn
  (a title, front matter) are not turns.

Every line is checked before anything is written: a line that is not JSON, not an object,
or has no speaker or no text is refused with its number.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ryvem.errors import InvalidInput

__all__ = ["Turn", "parse_transcript"]

_SPEAKER_KEYS = ("speaker", "role", "author")
_TEXT_KEYS = ("text", "content")
_TIME_KEYS = ("time", "timestamp", "created_at")
_BOLD = re.compile(r"^\*\*(?P<speaker>[^*\n]{1,40})\*\*(?:\s*\((?P<time>[^)\n]{1,40})\))?"
                   r"\s*:?\s*(?P<text>.*)$")
_PLAIN = re.compile(r"^(?P<speaker>[A-Za-z][\w .'-]{0,39}):\s+(?P<text>\S.*)$")


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn: who spoke, what they said, and when (None: not given)."""

    speaker: str
    text: str
    time: str | None


def _text_of(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # chat exports: [{"type": "text", "text": "…"}, …]
        parts = [p.get("text") for p in value if isinstance(p, dict)]
        texts = [p for p in parts if isinstance(p, str)]
        return "\n".join(texts) if texts else None
    return None


def _first(record: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((record[k] for k in keys if record.get(k) not in (None, "")), None)


def _jsonl(lines: list[str]) -> list[Turn]:
    turns: list[Turn] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            raise InvalidInput(f"line {n}: not JSON") from None
        if not isinstance(record, dict):
            raise InvalidInput(f"line {n}: a JSON object was expected")
        speaker = _first(record, _SPEAKER_KEYS)
        text = _text_of(_first(record, _TEXT_KEYS))
        when = _first(record, _TIME_KEYS)
        if not isinstance(speaker, str) or not speaker.strip():
            raise InvalidInput(f"line {n}: no speaker (give speaker, role or author)")
        if text is None or not text.strip():
            raise InvalidInput(f"line {n}: no text (give text or content)")
        if when is not None and not isinstance(when, str):
            raise InvalidInput(f"line {n}: the time must be an ISO 8601 string")
        turns.append(Turn(speaker.strip(), text.strip(), when))
    return turns


def _markdown(lines: list[str]) -> list[Turn]:
    turns: list[list[Any]] = []  # [speaker, [text lines], time]
    for line in lines:
        m = _BOLD.match(line) or _PLAIN.match(line)
        if m is not None:
            groups = m.groupdict()
            turns.append([groups["speaker"].strip(), [groups["text"]], groups.get("time")])
        elif turns:
            turns[-1][1].append(line)
    out = [Turn(s, "\n".join(t).strip(), w) for s, t, w in turns]
    return [t for t in out if t.text]


def parse_transcript(text: str) -> list[Turn]:
    """The turns of a transcript (see the module docstring): JSON Lines when its first
    non-blank line starts with ``{``, else a markdown dialogue. InvalidInput when no turn."""
    lines = text.splitlines()
    first = next((line.lstrip() for line in lines if line.strip()), "")
    turns = _jsonl(lines) if first.startswith("{") else _markdown(lines)
    if not turns:
        raise InvalidInput("no turn found: give JSON Lines of {speaker, text, time} or a "
                           "markdown dialogue of 'Speaker: text' lines")
    return turns
