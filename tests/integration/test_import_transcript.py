"""``ryvem graph import-transcript``: a conversation as one memory a turn, chained in order by
``follows`` edges, idempotent, and refused whole when any line is bad (issue 40, item 4).
Real CLI (in-process runner), real SQLite files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import Cli, assert_fails

CHAT = [
    {"role": "user", "text": "Where do we keep sessions?", "time": "2026-11-01T10:00:00Z"},
    {"role": "assistant", "content": [{"type": "text", "text": "In signed cookies."}],
     "time": "2026-11-01T10:00:05Z"},
    {"speaker": "user", "text": "And their lifetime?", "time": "2026-11-01T10:01:00Z"},
]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path, tmp_path / "data")


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


def test_each_turn_is_a_memory_at_its_time_chained_to_the_one_before(
    cli: Cli, tmp_path: Path,
) -> None:
    chat = write_jsonl(tmp_path / "chat.jsonl", CHAT)
    done = cli.json("import-transcript", str(chat), "--scope", "board:chat")
    assert (done["turns"], done["created"], done["follows"]) == (3, 3, 2)
    second = cli.json("get", "turn/chat/0002", "--scope", "board:chat")
    assert second["title"] == "assistant at 2026-11-01T10:00:05Z"
    assert second["body"] == "In signed cookies."
    assert second["valid_from"] == "2026-11-01T10:00:05.000000Z"
    assert second["data"] == {"speaker": "assistant", "turn": 2}
    walk = cli.json("links", "turn/chat/0003", "--scope", "board:chat", "--rel", "follows",
                    "--depth", "5")
    assert [(e["from"], e["to"]) for e in walk] == [("chat/0003", "chat/0002"),
                                                   ("chat/0002", "chat/0001")]
    assert [h["title"] for h in cli.json("search", "lifetime", "--scope", "board:chat")] == [
        "user at 2026-11-01T10:01:00Z"]


def test_importing_again_changes_nothing_and_a_grown_file_adds_only_its_new_turns(
    cli: Cli, tmp_path: Path,
) -> None:
    chat = write_jsonl(tmp_path / "chat.jsonl", CHAT)
    cli.ok("import-transcript", str(chat), "--scope", "board:chat")
    again = cli.json("import-transcript", str(chat), "--scope", "board:chat")
    assert (again["created"], again["superseded"], again["unchanged"]) == (0, 0, 3)
    assert len(cli.json("history", "turn/chat/0003", "--scope", "board:chat")) == 1
    more = {"role": "assistant", "text": "A day.", "time": "2026-11-01T10:01:30Z"}
    grown = cli.json("import-transcript", str(write_jsonl(chat, [*CHAT, more])),
                     "--scope", "board:chat")
    assert (grown["created"], grown["unchanged"], grown["follows"]) == (1, 3, 3)
    edges = cli.json("links", "turn/chat/0002", "--scope", "board:chat", "--rel", "follows",
                     "--direction", "both")
    assert sorted(e["from"] for e in edges) == ["chat/0002", "chat/0003"]


def test_a_markdown_dialogue_reads_as_turns_with_their_continuation_lines(
    cli: Cli, tmp_path: Path,
) -> None:
    page = tmp_path / "standup.md"
    page.write_text("# Standup\n\n**Ada** (2026-11-02T09:00:00Z): I fixed the cache.\n"
                    "It was the TTL.\n**Bob** (2026-11-02T09:01:00Z): Great.\nCarol: me next\n")
    done = cli.json("import-transcript", str(page), "--scope", "board:standup")
    assert done["turns"] == 3
    first = cli.json("get", "turn/standup/0001", "--scope", "board:standup")
    assert first["body"] == "I fixed the cache.\nIt was the TTL."
    assert cli.json("get", "turn/standup/0003", "--scope", "board:standup")["title"] == (
        "Carol, turn 3")


@pytest.mark.parametrize(("content", "fragment"), [
    ('{"role": "user", "text": "fine"}\nnot json\n', "line 2: not JSON"),
    ('{"role": "user", "text": "fine"}\n[1, 2]\n', "line 2: a JSON object was expected"),
    ('{"role": "user", "text": "fine"}\n{"text": "who?"}\n', "line 2: no speaker"),
    ('{"role": "user", "text": "fine"}\n{"role": "user"}\n', "line 2: no text"),
    ('{"role": "user", "text": "fine", "time": "yesterday"}\n', "turn 1 (user): not an ISO"),
    ("just some prose, no speaker anywhere\n", "no turn found"),
])
def test_a_bad_line_refuses_the_whole_file_in_one_line_and_writes_nothing(
    cli: Cli, tmp_path: Path, content: str, fragment: str,
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    assert_fails(cli("import-transcript", str(bad), "--scope", "board:bad"), 2, fragment)
    assert cli.json("search", "--scope", "board:bad") == []


def test_a_missing_file_and_a_file_that_is_not_utf8_are_one_line_errors(
    cli: Cli, tmp_path: Path,
) -> None:
    assert_fails(cli("import-transcript", str(tmp_path / "nope.jsonl")), 2, "no such file")
    binary = tmp_path / "b.jsonl"
    binary.write_bytes(b'{"role": "u", "text": "\xff"}\n')
    assert_fails(cli("import-transcript", str(binary)), 2, "not valid UTF-8")


def test_the_transcript_is_only_read(cli: Cli, tmp_path: Path) -> None:
    chat = write_jsonl(tmp_path / "chat.jsonl", CHAT)
    before = (chat.read_bytes(), chat.stat().st_mtime_ns)
    cli.ok("import-transcript", str(chat))
    assert (chat.read_bytes(), chat.stat().st_mtime_ns) == before
