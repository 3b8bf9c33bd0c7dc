"""``ryvem graph import-transcript FILE``: a conversation as one memory a turn, in order.

Each turn (:mod:`ryvem.domain.transcript`) becomes a node of kind ``turn`` (or the kind
given), keyed ``<file stem>/<number>`` (``0001``, ``0002``, …) in one scope, titled
"speaker at time" (or "speaker, turn N" without a time), its text the body and its time the
valid time; each turn after the first gets a ``follows`` edge to the turn before it, so the
sequence is walkable (``ryvem graph links turn/chat/0005 --rel follows``). Importing the same
file again changes nothing (keyed writes, and a ``follows`` edge that exists is kept); a file
grown since adds only its new turns. The file is only read; every line is checked before
anything is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ryvem.application.service import Service
from ryvem.domain.transcript import Turn, parse_transcript
from ryvem.errors import InvalidInput

__all__ = ["FOLLOWS", "MAX_TRANSCRIPT_BYTES", "TranscriptSummary", "import_transcript"]

FOLLOWS = "follows"
MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024


@dataclass
class TranscriptSummary:
    file: str
    scope: str
    kind: str
    turns: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    links: int = 0

    def record(self) -> dict[str, Any]:
        return {"file": self.file, "scope": self.scope, "kind": self.kind, "turns": self.turns,
                **{k: self.outcomes.get(k, 0) for k in ("created", "superseded", "unchanged")},
                "follows": self.links}  # the chain's edges, kept or new


def _stem(path: Path) -> str:
    stem = re.sub(r"[^\w.-]+", "-", path.stem).strip("-.")
    return stem or "transcript"


def _title(turn: Turn, n: int) -> str:
    return f"{turn.speaker} at {turn.time}" if turn.time else f"{turn.speaker}, turn {n}"


def import_transcript(
    service: Service, path: str | Path, *, kind: str = "turn", key_prefix: str | None = None,
) -> TranscriptSummary:
    """Read ``path`` and write its turns (see the module docstring) with ``service``."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise InvalidInput(f"not a file: {path}" if file.exists() else f"no such file: {path}")
    if file.stat().st_size > MAX_TRANSCRIPT_BYTES:
        raise InvalidInput(f"{path} is over {MAX_TRANSCRIPT_BYTES // (1024 * 1024)} MiB")
    try:
        text = file.read_text("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidInput(f"{path} is not valid UTF-8 (byte {e.start})") from None
    try:
        turns = parse_transcript(text)
    except InvalidInput as e:
        raise InvalidInput(f"{path}: {e.message}") from None
    prefix = key_prefix or _stem(file)
    nodes = []
    for n, t in enumerate(turns, 1):  # every turn checked before any write
        try:
            nodes.append(service.prepare(kind, _title(t, n), key=f"{prefix}/{n:04d}",
                                         body=t.text, valid_from=t.time,
                                         data={"speaker": t.speaker, "turn": n}))
        except InvalidInput as e:
            raise InvalidInput(f"turn {n} ({t.speaker}): {e.message}") from None
    summary = TranscriptSummary(str(file), service.default_scope, kind, len(turns))
    for i in range(0, len(nodes), 500):
        for result in service.write_many(nodes[i:i + 500]):
            summary.outcomes[result.outcome] = summary.outcomes.get(result.outcome, 0) + 1
    for n in range(2, len(turns) + 1):  # an edge that exists with this data is kept as it is
        service.link(f"{kind}/{prefix}/{n:04d}", f"{kind}/{prefix}/{n - 1:04d}", FOLLOWS,
                     valid_from=turns[n - 1].time)
        summary.links += 1
    return summary
