"""Hostile input through the MCP tools: a one-line tool error (never a crash), nothing written.

The tools are called in-process on ``build_server()`` (the same object ``ryvem-mcp`` serves
over stdio; tests/integration/test_mcp_server.py covers the transport). ``memory_navigate``
is fail-safe by contract: hostile arguments answer ``[]`` or a documented clamp.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from mcp.server.mcpserver.exceptions import ToolError

from reliability.invariants import assert_invariants, snapshot
from ryvem.backends import open_session
from ryvem.mcp.server import RyvemMCPServer, build_server

G = {"scope": "global"}
WRITE_CASES: dict[str, dict[str, Any]] = {
    "quote kind": {"kind": "decision'", "title": "t"},
    "cypher kind": {"kind": "a})-[:X]->(b) DETACH DELETE b //", "title": "t"},
    "sql kind": {"kind": "x; DROP TABLE nodes;--", "title": "t"},
    "look-alike kind": {"kind": "d\u0435cision", "title": "t"},
    "empty title": {"kind": "decision", "title": ""},
    "NUL title": {"kind": "decision", "title": "a\x00b"},
    "10,000-char key": {"kind": "decision", "title": "t", "key": "k" * 10_000},
    "body over 8 MiB": {"kind": "decision", "title": "t", "body": "x" * (8 * 1024 * 1024 + 1)},
    "data a list": {"kind": "decision", "title": "t", "data": [1, 2]},
    "data a JSON list as text": {"kind": "decision", "title": "t", "data": "[1, 2]"},
    "data nested 100 deep": {"kind": "decision", "title": "t", "data": json.loads(
        '{"a":' * 100 + "1" + "}" * 100)},
    "bad scope": {"kind": "decision", "title": "t", "scope": "board:x'); DROP"},
    "backtick scope": {"kind": "decision", "title": "t", "scope": "board:a`b"},
    "title not a string": {"kind": "decision", "title": ["t"]},
}


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RyvemMCPServer]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RYVEM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("RYVEM_BACKEND", raising=False)
    session = open_session()
    s = build_server(session)
    call(s, "memory_write", kind="decision", title="Cache", key="cache", body="[[latency]]", **G)
    call(s, "memory_write", kind="task", title="Latency", key="latency", **G)
    yield s
    session.close()  # its store and the search's background reader, as ryvem-mcp does


def call(server: RyvemMCPServer, tool: str, **arguments: Any) -> Any:
    async def run() -> Any:
        return await server.call_tool(tool, arguments)

    # A portal runs the call on its own event loop in a worker thread: the main thread may
    # already run one (Playwright's sync API, from the browser tests, keeps one for the session).
    with start_blocking_portal() as portal:
        result = portal.call(run)
    assert not result.is_error
    return json.loads(result.content[0].text)


def tool_error(server: RyvemMCPServer, db: Path, tool: str, **arguments: Any) -> str:
    before = snapshot(db)
    with pytest.raises(ToolError) as caught:
        call(server, tool, **arguments)
    message = str(caught.value)
    assert message and "\n" not in message and "Traceback" not in message
    assert snapshot(db) == before
    return message


@pytest.mark.parametrize("case", list(WRITE_CASES), ids=list(WRITE_CASES))
def test_a_hostile_memory_write_is_a_one_line_tool_error_that_writes_nothing(
    server: RyvemMCPServer, tmp_path: Path, case: str
) -> None:
    """Bad kinds, titles, keys, bodies, data and scopes: a tool error; the store is unchanged."""
    tool_error(server, tmp_path / "data" / "dev.db", "memory_write", **{**G, **WRITE_CASES[case]})


@pytest.mark.parametrize("rel", ["supersedes", "links", "X", "a`b", "r]->(x) DELETE x //", ""])
def test_a_hostile_rel_is_a_one_line_tool_error_that_links_nothing(
    server: RyvemMCPServer, tmp_path: Path, rel: str
) -> None:
    """Reserved, uppercase, backticked or Cypher-carrying rels never reach the store."""
    tool_error(server, tmp_path / "data" / "dev.db", "memory_link", from_ref="decision/cache",
               to_ref="task/latency", rel=rel, **G)


@pytest.mark.parametrize("text", ['"', "NEAR(", "col:x", "^", "*", "(" * 300 + "x" + ")" * 300,
                                  "", "cache' OR 1=1 --", "title:cache"])
def test_search_text_of_any_shape_answers_a_list(server: RyvemMCPServer, text: str) -> None:
    """FTS5 syntax as memory_search text is never an error."""
    assert isinstance(call(server, "memory_search", text=text, **G), list | dict)


@pytest.mark.parametrize(("depth", "direction"), [
    (-1, "out"), (0, "out"), (11, "out"), (10**9, "out"), (2.5, "out"), (1, "up"), ("x", "in"),
])
def test_navigate_answers_a_list_for_any_depth_or_direction(
    server: RyvemMCPServer, tmp_path: Path, depth: Any, direction: Any
) -> None:
    """Depth -1/0/11/10^9 clamp, 2.5 and direction up answer [] (fail-safe), never an error."""
    before = snapshot(tmp_path / "data" / "dev.db")
    got = call(server, "memory_navigate", op="traverse", ref="decision/cache", depth=depth,
               direction=direction, **G)
    assert isinstance(got, list)
    if isinstance(depth, int) and direction == "out":
        assert [e["to"] for e in got] == ["latency"], "clamped into [1, 10]: one link to walk"
    assert snapshot(tmp_path / "data" / "dev.db") == before
    assert_invariants(tmp_path / "data" / "dev.db")
