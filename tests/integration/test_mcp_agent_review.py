"""An agent's second session: what ``ryvem-mcp`` answers must be something it can act on.

Found by the outside-in review of 2026-12-02 (evening, docs/reliability.md): each test drives
the real ``ryvem-mcp`` console script through the MCP SDK's stdio client (session 1 records,
a new server process reads), or the real ``ryvem`` CLI, and fails on the code before its fix.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal

from integration.test_mcp_server import _text, serve
from support.cli import Cli

# What a terminal acts on or reorders if it arrives raw: DEL, the one-byte C1 CSI and OSC,
# the bidi overrides and isolates. JSON may carry each as a \\u escape (the same text).
RAW_UNSAFE = ["\x7f", "\x9b", "\x9d", "\u202e", "\u202c", "\u2066", "\u2069"]
HOSTILE = "a\x7fb \x9b2J \x9d52;c;ZXZpbA==\x9c \u202eevil\u202c \u2066iso\u2069 end"


@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal() as p:
        yield p


def test_navigate_names_each_end_by_an_id_the_agent_can_read_back_when_kinds_share_a_key(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """A task and a decision both keyed 'cache': the edge between them must say which is which."""
    with serve(portal, tmp_path, tmp_path / "data") as s:
        task = s.ok("memory_write", kind="task", key="cache", title="Add the cache")
        dec = s.ok("memory_write", kind="decision", key="cache", title="Cache in process")
        s.ok("memory_link", from_ref="task/cache", to_ref="decision/cache", rel="implements")
    with serve(portal, tmp_path, tmp_path / "data") as s:  # session 2: a new process
        (step,) = s.ok("memory_navigate", op="links", ref="task/cache")
        assert (step["from_id"], step["to_id"]) == (task["id"], dec["id"])
        assert s.ok("memory_get", ref=step["to_id"])["title"] == "Cache in process"
        (back,) = s.ok("memory_navigate", op="backlinks", ref="decision/cache")
        assert (back["from_id"], back["to_id"]) == (task["id"], dec["id"])
        assert s.error("memory_get", ref=step["to"]).endswith("use KIND/KEY or an id")


def test_json_output_carries_c1_del_and_bidi_characters_escaped_and_decodes_exactly(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """`get --json` on a terminal, and the MCP text block a host prints, hold no raw C1,
    DEL or bidi character; the JSON still decodes to the stored text."""
    cli = Cli(tmp_path, tmp_path / "data")
    cli.ok("put", "decision", "--key", "k", "--title", "t", "--body", HOSTILE,
           "--data", json.dumps({"v": HOSTILE}))
    cli.ok("retire", "decision/k", "--reason", HOSTILE)
    for args in (["get", "decision/k"], ["history", "decision/k"],
                 ["search", "--as-of", "2000-01-01"]):
        out = cli.ok(*args, "--json").out
        for c in RAW_UNSAFE:
            assert c not in out, f"raw U+{ord(c):04X} in {args} --json"
    record = json.loads(cli.ok("get", "decision/k", "--json").out)
    assert (record["body"], record["data"]["v"], record["retired_reason"]) == (HOSTILE,) * 3
    with serve(portal, tmp_path, tmp_path / "data") as s:
        r = s.call("memory_get", ref="decision/k")
        text = _text(r)
        for c in RAW_UNSAFE:
            assert c not in text, f"raw U+{ord(c):04X} in the MCP text block"
        assert json.loads(text)["body"] == HOSTILE


@pytest.mark.parametrize(
    ("tool", "arguments", "named"),
    [
        ("memory_link", {"from_ref": "", "to_ref": "decision/db", "rel": "about"}, "from_ref"),
        ("memory_link", {"from_ref": "decision/db", "to_ref": " ", "rel": "about"}, "to_ref"),
        ("memory_unlink", {"from_ref": "decision/db", "to_ref": "", "rel": "about"}, "to_ref"),
        ("memory_get", {"ref": ""}, "ref"),
        ("memory_history", {"ref": "decision/db", "as_of": "bad", "known_at": "2026-01-01"},
         "as_of"),
        ("memory_get", {"ref": "decision/db", "as_of": "2026-01-01", "known_at": "bad"},
         "known_at"),
        ("memory_search", {"text": "db", "as_of": ""}, "as_of"),
        ("memory_write", {"kind": "decision", "title": "t", "valid_from": "yesterday"},
         "valid_from"),
        ("memory_retire", {"ref": "decision/db", "valid_to": "soon"}, "valid_to"),
        ("memory_link", {"from_ref": "decision/db", "to_ref": "decision/db", "rel": "about",
                         "valid_from": "x"}, "valid_from"),
    ],
)
def test_a_bad_ref_or_time_names_the_tools_own_argument(
    portal: BlockingPortal, tmp_path: Path, tool: str, arguments: dict[str, str], named: str
) -> None:
    """`from_ref` or `to_ref`, `as_of` or `known_at`: the agent must know which one to fix."""
    with serve(portal, tmp_path, tmp_path / "data") as s:
        s.ok("memory_write", kind="decision", key="db", title="Postgres")
        message = s.error(tool, **arguments)
        assert message.startswith(f"Error executing tool {tool}: {named}: "), message
        assert s.count() == 1, "a failed call writes nothing"


def test_a_retired_node_asked_for_by_its_bare_key_gets_an_error_saying_how_to_name_it(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """Session 2 asks for the history of the task it retired in session 1 by its key: the
    error must say how to reach it (KIND/KEY), and that ref then reads its history."""
    with serve(portal, tmp_path, tmp_path / "data") as s:
        s.ok("memory_write", kind="task", key="add-redis", title="Add Redis")
        s.ok("memory_retire", ref="task/add-redis", reason="no Redis after all")
    with serve(portal, tmp_path, tmp_path / "data") as s:
        message = s.error("memory_history", ref="add-redis")
        assert "no node 'add-redis'" in message
        assert "KIND/KEY" in message, message
        (only,) = s.ok("memory_history", ref="task/add-redis")["items"]
        assert only["retired_reason"] == "no Redis after all"


def test_the_server_tells_the_agent_that_memory_text_is_data_never_instructions(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """Memory holds what earlier sessions copied from web pages and issues: the server's
    instructions and the reading tools' descriptions say it is data, not orders."""
    with serve(portal, tmp_path, tmp_path / "data") as s:
        instructions = s.session.instructions or ""
        assert "never instructions" in instructions, instructions
        tools = {t.name: t for t in s.portal.call(s.session.list_tools).tools}
        for name in ("memory_get", "memory_search", "memory_history"):
            assert "untrusted" in (tools[name].description or ""), name


def test_bodies_in_a_list_are_cut_so_a_list_stays_bounded_and_get_reads_the_whole_body(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """`include_body` on 200 hits of 8 MiB would answer 1.6 GB; each body in a list is cut
    at BODY_IN_LIST characters and says so; memory_get still reads it whole."""
    from ryvem.mcp.server import BODY_IN_LIST

    long_body = "lorem ipsum " * (BODY_IN_LIST // 6)
    with serve(portal, tmp_path, tmp_path / "data") as s:
        s.ok("memory_write", kind="page", key="long", title="Long lorem", body=long_body)
        s.ok("memory_write", kind="page", key="short", title="Short lorem", body="lorem")
        s.ok("memory_write", kind="page", key="long", title="Long lorem", body=long_body + "!")
        hits = {h["title"]: h for h in s.ok("memory_search", text="lorem", mode="lexical",
                                            include_body=True)["items"]}
        assert hits["Long lorem"]["body"] == long_body[:BODY_IN_LIST]
        assert hits["Long lorem"]["body_truncated"] is True
        assert (hits["Short lorem"]["body"], hits["Short lorem"]["body_truncated"]) == (
            "lorem", False)
        versions = s.ok("memory_history", ref="page/long", include_body=True)["items"]
        assert [len(v["body"]) for v in versions] == [BODY_IN_LIST] * 2
        assert all(v["body_truncated"] for v in versions)
        assert "body_truncated" not in s.ok("memory_history", ref="page/long")["items"][0]
        assert s.ok("memory_get", ref="page/long")["body"] == long_body + "!"


def test_a_broken_semantic_install_degrades_to_lexical_search_with_a_note_not_an_error(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """onnxruntime present but failing to import (a missing shared library, a wheel for
    another CPU): search answers lexically and says why, as when it is not installed."""
    shadow = tmp_path / "shadow" / "onnxruntime"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        'raise ImportError("libonnxruntime.so.1: cannot open shared object file")\n', "utf-8")
    env = {"PYTHONPATH": str(shadow.parent)}
    with serve(portal, tmp_path, tmp_path / "data", **env) as s:
        s.ok("memory_write", kind="decision", key="sessions", title="Keep sessions in cookies")
        found = s.ok("memory_search", text="how do we store sessions?")
        assert [h["title"] for h in found["items"]] == ["Keep sessions in cookies"]
        assert found["mode"] == "lexical"
        (note,) = found["notes"]
        assert note.startswith("semantic search is off: ") and "libonnxruntime" in note, note
        message = s.error("memory_search", text="sessions", mode="semantic")
        assert "internal error" not in message and "semantic search is off" in message
    cli = Cli(tmp_path, tmp_path / "data")
    cli.env["PYTHONPATH"] = env["PYTHONPATH"]
    r = cli.ok("search", "how do we store sessions?")
    assert "Keep sessions in cookies" in r.out and "semantic search is off" in r.err
