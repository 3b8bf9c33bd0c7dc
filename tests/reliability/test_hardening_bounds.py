"""Issue 39, the bounds outside the written contract: the search text has a documented maximum
on every face, and MCP arguments are strict (no ``"5"`` or ``true`` for an integer).

A 12 MB search text over MCP took 13 to 23 s before the bound; ``limit="5"`` and ``limit=true``
were read as 5 and 1 by pydantic's lax mode.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from reliability.test_hostile_mcp import G, call, server, tool_error
from ryvem.backends import open_session
from ryvem.domain.validation import MAX_SEARCH_CHARS
from ryvem.errors import InvalidInput
from ryvem.mcp.server import RyvemMCPServer
from support.cli import Cli, assert_fails

__all__ = ["server"]  # the fixture, shared with test_hostile_mcp

TOO_LONG = "cache " * (MAX_SEARCH_CHARS // 6) + "x" * (MAX_SEARCH_CHARS % 6 + 1)


def test_the_longest_search_text_is_ten_thousand_characters() -> None:
    """The documented maximum (README's limits table says 10,000 characters)."""
    assert MAX_SEARCH_CHARS == 10_000
    assert len(TOO_LONG) == MAX_SEARCH_CHARS + 1


def test_a_search_text_over_the_limit_is_invalid_input_in_the_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RYVEM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    session = open_session()
    try:
        session.write(kind="decision", title="Cache", key="cache", scope="global")
        for mode in ("lexical", "semantic", "hybrid"):
            with pytest.raises(InvalidInput, match=r"the search text is 10,001 characters; "
                                                   r"the limit is 10,000"):
                session.search(TOO_LONG, mode=mode, scope="global")
        hits = session.search(TOO_LONG[:MAX_SEARCH_CHARS], mode="lexical", scope="global")
        assert [h.hit.title for h in hits.hits] == ["Cache"]
    finally:
        session.close()


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_a_search_text_over_the_limit_exits_2_with_one_line(tmp_path: Path, mode: str) -> None:
    cli = Cli(tmp_path, tmp_path / "data")
    cli.ok("put", "decision", "--key", "cache", "--title", "Cache")
    assert_fails(cli("search", TOO_LONG, "--mode", mode), 2, "the limit is 10,000")
    hits = cli.json("search", TOO_LONG[:MAX_SEARCH_CHARS], "--mode", "lexical")
    assert [h["title"] for h in hits] == ["Cache"]


def test_a_search_text_over_the_limit_is_an_mcp_tool_error(
    server: RyvemMCPServer, tmp_path: Path
) -> None:
    message = tool_error(server, tmp_path / "data" / "dev.db", "memory_search", text=TOO_LONG, **G)
    assert "the search text is 10,001 characters; the limit is 10,000" in message
    items = call(server, "memory_search", text=TOO_LONG[:MAX_SEARCH_CHARS], **G)["items"]
    assert [i["title"] for i in items] == ["Cache"]


@pytest.mark.parametrize(("tool", "arguments", "named"), [
    ("memory_search", {"text": "cache", "limit": "5"}, "limit"),
    ("memory_search", {"text": "cache", "limit": True}, "limit"),
    ("memory_search", {"text": "cache", "limit": 5.0}, "limit"),
    ("memory_search", {"text": 5}, "text"),
    ("memory_get", {"ref": 5}, "ref"),
    ("memory_write", {"kind": "decision", "title": 5}, "title"),
])
def test_an_mcp_argument_of_the_wrong_json_type_is_a_tool_error_naming_it(
    server: RyvemMCPServer, tmp_path: Path, tool: str, arguments: dict[str, Any], named: str
) -> None:
    """Strict: no coercion of a string to an integer, a boolean to an integer or a number to a
    string; nothing is written."""
    message = tool_error(server, tmp_path / "data" / "dev.db", tool, **{**G, **arguments})
    assert named in message


def test_an_mcp_integer_argument_still_takes_an_integer(server: RyvemMCPServer) -> None:
    assert len(call(server, "memory_search", text="", limit=1, **G)["items"]) == 1
    with pytest.raises(ToolError):
        call(server, "memory_search", text="", limit=0, **G)
