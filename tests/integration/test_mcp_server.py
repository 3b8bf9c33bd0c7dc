"""The real ``ryvem-mcp`` console script, driven by the MCP SDK's own stdio client.

Each server is a subprocess with a private ``RYVEM_DATA_DIR``. Most tests share one server per
module (started in a folder outside any git tree, so the default scope is ``global``); the
tests that need another environment start their own. The client runs on an anyio blocking
portal, so the tests themselves are plain functions.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, Implementation, TextContent

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import NewNode, Service

RYVEM_MCP = shutil.which("ryvem-mcp", path=str(Path(sys.executable).parent))
TOOLS = {
    "memory_write": ["kind", "title"],
    "memory_get": ["ref"],
    "memory_search": [],
    "memory_history": ["ref"],
    "memory_retire": ["ref"],
    "memory_link": ["from_ref", "to_ref", "rel"],
    "memory_unlink": ["from_ref", "to_ref", "rel"],
    "memory_navigate": ["op", "ref"],
    "graph_export": [],
    "memory_redact": ["text"],
}
NODE_KEYS = {
    "id", "entity", "kind", "key", "scope", "title", "body", "data", "valid_from", "valid_to",
    "superseded_by", "supersedes", "retired_reason", "erased", "recorded_at",
    "closure_recorded_at",
}
HIT_KEYS = {"id", "kind", "scope", "title", "snippet", "score", "ranks", "scores", "confidence"}
EDGE_KEYS = {
    "id", "rel", "from", "to", "data", "valid_from", "valid_to", "recorded_at",
    "closure_recorded_at",
}
STEP_KEYS = {"type", "hemisphere", "from", "to", "rel", "direction", "hop", "from_id", "to_id"}
REPO_SCOPE = re.compile(r"^repo:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$")


class Server:
    """One running ``ryvem-mcp`` and a synchronous face over its client session."""

    def __init__(self, portal: BlockingPortal, session: ClientSession, data_dir: Path) -> None:
        self.portal = portal
        self.session = session
        self.data_dir = data_dir

    def call(self, tool: str, **arguments: Any) -> CallToolResult:
        return self.portal.call(lambda: self.session.call_tool(tool, arguments))

    def ok(self, tool: str, **arguments: Any) -> Any:
        """Call a tool that must succeed; its JSON result."""
        r = self.call(tool, **arguments)
        assert not r.is_error, f"{tool} failed: {_text(r)}"
        return json.loads(_text(r))

    def error(self, tool: str, **arguments: Any) -> str:
        """Call a tool that must fail; its one-line message."""
        r = self.call(tool, **arguments)
        assert r.is_error, f"{tool} should have failed but returned {_text(r)}"
        message = _text(r)
        assert "\n" not in message and message.strip() == message
        return message

    def count(self) -> int:
        """How many current nodes the server sees in every scope."""
        return len(self.ok("memory_search", scope="*", limit=200)["items"])


def _text(r: CallToolResult) -> str:
    assert len(r.content) == 1 and isinstance(r.content[0], TextContent)
    return r.content[0].text


@asynccontextmanager
async def _session(
    params: StdioServerParameters, log: Path, client: str | None = None
) -> AsyncIterator[ClientSession]:
    info = None if client is None else Implementation(name=client, version="1.0")
    with log.open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as streams,
            ClientSession(*streams, client_info=info) as session,
        ):
            await session.initialize()
            yield session


def _params(
    cwd: Path, data_dir: Path, args: tuple[str, ...] = (), **env: str
) -> StdioServerParameters:
    assert RYVEM_MCP is not None, "the ryvem-mcp console script is not installed next to python"
    return StdioServerParameters(
        command=RYVEM_MCP,
        args=list(args),
        cwd=cwd,
        env={"RYVEM_BACKEND": "sqlite", "RYVEM_DATA_DIR": str(data_dir), "HOME": str(cwd), **env},
    )


@contextmanager
def serve(
    portal: BlockingPortal, cwd: Path, data_dir: Path, *, args: tuple[str, ...] = (),
    client: str | None = None, **env: str,
) -> Iterator[Server]:
    cm = _session(_params(cwd, data_dir, args, **env), cwd / f"server-{os.urandom(3).hex()}.log",
                  client)
    with portal.wrap_async_context_manager(cm) as session:
        yield Server(portal, session, data_dir)


@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal() as p:
        yield p


@pytest.fixture(scope="module")
def server(portal: BlockingPortal, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the module, outside any git tree (default scope: global)."""
    home = tmp_path_factory.mktemp("mcp")
    with serve(portal, home, home / "data") as s:
        yield s


def test_the_handshake_names_the_server_and_its_version(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """A host shows and logs serverInfo: it says ryvem and the version `ryvem-mcp --version`
    prints (it was an empty string)."""
    from ryvem import __version__

    async def handshake() -> Implementation:
        params = _params(tmp_path, tmp_path / "data")
        with (tmp_path / "server.log").open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as streams,
                ClientSession(*streams) as session,
            ):
                return (await session.initialize()).server_info

    info = portal.call(handshake)
    assert (info.name, info.version) == ("ryvem", __version__)
    shown = subprocess.run([str(RYVEM_MCP), "--version"], capture_output=True, text=True,
                           check=True, timeout=60)
    assert shown.stdout.strip() == f"ryvem-mcp {__version__}"


def test_a_message_holding_a_lone_surrogate_gets_a_one_line_tool_error_not_silence(
    tmp_path: Path,
) -> None:
    """JSON may carry "\\udcff", which is not Unicode; the SDK's stdio reader drops such a
    message, so a host waited for a reply that never came. Through ryvem.mcp.wire each call
    gets the tool error the library gives that text, writes nothing, navigate answers [],
    the server keeps serving, an emoji (a valid pair) is stored intact, and closing stdin
    still stops the server. Raw JSON-RPC lines: the SDK's client cannot send such text."""
    import select

    assert RYVEM_MCP is not None
    env = {"RYVEM_BACKEND": "sqlite", "RYVEM_DATA_DIR": str(tmp_path / "data"),
           "HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")}
    proc = subprocess.Popen([RYVEM_MCP], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=tmp_path, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    ids = itertools.count(1)

    def ask(method: str, params: str) -> dict[str, Any]:
        n = next(ids)
        line = f'{{"jsonrpc":"2.0","id":{n},"method":"{method}","params":{params}}}\n'
        proc.stdin.write(line.encode())
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, f"no reply to {line!r}"
        reply: dict[str, Any] = json.loads(proc.stdout.readline())
        assert reply["id"] == n
        return reply

    def tool(name: str, arguments: str) -> dict[str, Any]:
        return ask("tools/call", f'{{"name":"{name}","arguments":{arguments}}}')["result"]

    try:
        ask("initialize", '{"protocolVersion":"2025-06-18","capabilities":{},'
                          '"clientInfo":{"name":"raw\\udcff","version":"1"}}')
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        assert not tool("memory_write", '{"kind":"decision","title":"cache in redis",'
                                        '"scope":"global"}')["isError"]
        cases = {
            ("memory_write", '{"kind":"decision","title":"x \\udcff","scope":"global"}'):
                "memory_write: title contains a lone surrogate (not valid Unicode text)",
            ("memory_write", '{"kind":"decision","title":"t","body":"\\ud800","data":'
                             '{"k":"\\udfff"}}'):
                "memory_write: body, data contain a lone surrogate (not valid Unicode text)",
            ("memory_search", '{"text":"\\udcff cache"}'):
                "memory_search: text contains a lone surrogate (not valid Unicode text)",
        }
        for (name, arguments), message in cases.items():
            result = tool(name, arguments)
            assert result["isError"], (name, arguments)
            [content] = result["content"]
            assert content["text"] == f"Error executing tool {message}"
        walked = tool("memory_navigate", '{"op":"links","ref":"\\udcff"}')
        assert not walked["isError"] and json.loads(walked["content"][0]["text"]) == []
        emoji = tool("memory_write", '{"kind":"decision","title":"ship it \\ud83d\\ude80",'
                                     '"key":"ship","scope":"global"}')
        assert json.loads(emoji["content"][0]["text"])["title"] == "ship it \U0001f680"
        found = tool("memory_search", '{"text":"cache","scope":"*","mode":"lexical"}')
        assert [h["title"] for h in json.loads(found["content"][0]["text"])["items"]] == [
            "cache in redis"]
        listed = tool("memory_search", '{"scope":"*","limit":50}')
        assert len(json.loads(listed["content"][0]["text"])["items"]) == 2  # nothing else
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# --- the tool list -----------------------------------------------------------------------
def test_the_server_lists_every_tool_with_a_described_json_schema(server: Server) -> None:
    """Every tool is listed, with its required parameters and a description for each field."""
    tools = {t.name: t for t in server.portal.call(server.session.list_tools).tools}
    assert set(tools) == set(TOOLS)
    for name, required in TOOLS.items():
        tool = tools[name]
        assert tool.description and len(tool.description) > 40, name
        schema = tool.input_schema
        assert schema["type"] == "object"
        assert sorted(schema.get("required", [])) == sorted(required), name
        for param, spec in schema["properties"].items():
            assert spec.get("description"), f"{name}.{param} has no description"
    assert tools["memory_navigate"].input_schema["properties"]["op"]["enum"] == [
        "links", "backlinks", "traverse",
    ]


# --- writes and reads --------------------------------------------------------------------
def test_a_keyed_write_supersedes_and_history_lists_the_chain_oldest_first(server: Server) -> None:
    """Writing a key twice gives two versions; get reads either; history has no bodies."""
    v1 = server.ok("memory_write", kind="decision", title="Cache with Redis", key="cache",
                   body="Because latency matters.", data={"status": "open"})
    assert set(v1) == NODE_KEYS
    assert (v1["kind"], v1["key"], v1["scope"], v1["data"]) == (
        "decision", "cache", "global", {"status": "open"})
    v2 = server.ok("memory_write", kind="decision", title="Cache in process", key="cache",
                   body="Redis was overkill.")
    assert v2["entity"] == v1["id"] and v2["supersedes"] == v1["id"]

    assert server.ok("memory_get", ref="decision/cache")["title"] == "Cache in process"
    assert server.ok("memory_get", ref="cache", as_of=v1["valid_from"])["body"] == (
        "Because latency matters.")
    again = server.ok("memory_write", kind="decision", title="Cache in process", key="cache",
                      body="Redis was overkill.")
    assert again["id"] == v2["id"]  # the same content again makes no version

    history = server.ok("memory_history", ref=v1["id"])
    assert [v["id"] for v in history["items"]] == [v1["id"], v2["id"]]
    assert (history["truncated"], history["total"]) == (False, 2)
    assert all("body" not in v for v in history["items"])
    with_body = server.ok("memory_history", ref="decision/cache", include_body=True)
    assert [v["body"] for v in with_body["items"]] == ["Because latency matters.",
                                                        "Redis was overkill."]


def test_history_keeps_the_newest_versions_when_it_is_cut(server: Server) -> None:
    """A chain longer than the limit keeps its newest versions, oldest first, and says so."""
    ids = [server.ok("memory_write", kind="task", title=f"step {i}", key="steps")["id"]
           for i in range(5)]
    history = server.ok("memory_history", ref="task/steps", limit=2)
    assert [v["id"] for v in history["items"]] == ids[-2:]
    assert (history["truncated"], history["total"]) == (True, 5)


def test_search_returns_compact_hits_and_bodies_only_when_asked(server: Server) -> None:
    """Hits carry id, kind, scope, title, snippet and score; include_body adds the body."""
    server.ok("memory_write", kind="business-rule", title="Refunds need approval",
              key="refunds", body="Refunds above 100 EUR need a second approver.")
    found = server.ok("memory_search", text="refunds approver", kinds=["business-rule"])
    assert found["truncated"] is False
    [hit] = found["items"]
    assert set(hit) == HIT_KEYS and hit["title"] == "Refunds need approval"
    [full] = server.ok("memory_search", text="refunds", include_body=True)["items"]
    assert full["body"] == "Refunds above 100 EUR need a second approver."
    assert server.ok("memory_search", text="refunds", kinds=["task"])["items"] == []


def test_list_limits_default_to_20_clamp_at_200_and_say_when_truncated(server: Server) -> None:
    """With 205 nodes in a board, search shows 20 by default and at most 200 when asked for more."""
    repo = SqliteRepository.open(server.data_dir / "dev.db")
    try:
        svc = Service(repo)
        svc.write_many([NewNode("note", f"bulk note {i}", "board:bulk") for i in range(205)])
    finally:
        repo.close()
    default = server.ok("memory_search", scope="board:bulk")
    assert (len(default["items"]), default["truncated"]) == (20, True)
    most = server.ok("memory_search", scope="board:bulk", limit=5000)
    assert (len(most["items"]), most["truncated"]) == (200, True)
    exact = server.ok("memory_search", text="bulk", scope="board:bulk", kinds=["note"], limit=205)
    assert len(exact["items"]) == 200


def test_retire_closes_the_node_and_a_later_write_revives_it(server: Server) -> None:
    """Retire returns the closed record with its reason; writing the key again revives it."""
    v1 = server.ok("memory_write", kind="pr", title="PR 12", key="pr-12")
    closed = server.ok("memory_retire", ref="pr/pr-12", reason="merged")
    assert closed["id"] == v1["id"] and closed["retired_reason"] == "merged"
    assert closed["valid_to"] is not None
    assert "not current" in server.error("memory_retire", ref=v1["id"])
    revived = server.ok("memory_write", kind="pr", title="PR 12 reopened", key="pr-12")
    assert revived["supersedes"] == v1["id"] and revived["valid_to"] is None


def test_link_navigate_and_unlink_show_the_edges_of_ryvem_graph_links(server: Server) -> None:
    """Edges made by link are found by links, backlinks and traverse, and vanish on unlink."""
    server.ok("memory_write", kind="task", title="Add a cache", key="add-cache")
    server.ok("memory_write", kind="decision", title="Use LRU", key="lru")
    server.ok("memory_write", kind="page", title="Caching notes", key="caching-notes")
    edge = server.ok("memory_link", from_ref="task/add-cache", to_ref="decision/lru",
                     rel="implements", data={"by": "agent"})
    assert set(edge) == EDGE_KEYS and (edge["rel"], edge["data"]) == ("implements", {"by": "agent"})
    server.ok("memory_link", from_ref="decision/lru", to_ref="page/caching-notes", rel="about")

    out = server.ok("memory_navigate", op="links", ref="task/add-cache")
    assert [(s["from"], s["to"], s["rel"], s["direction"], s["hop"]) for s in out] == [
        ("add-cache", "lru", "implements", "out", 1)]
    assert set(out[0]) == STEP_KEYS
    back = server.ok("memory_navigate", op="backlinks", ref="decision/lru")
    assert [(s["from"], s["to"], s["direction"]) for s in back] == [("add-cache", "lru", "in")]
    walk = server.ok("memory_navigate", op="traverse", ref="task/add-cache", depth=2)
    assert [(s["to"], s["hop"]) for s in walk] == [("lru", 1), ("caching-notes", 2)]
    only = server.ok("memory_navigate", op="traverse", ref="task/add-cache", depth=2,
                     rels=["implements"])
    assert [s["to"] for s in only] == ["lru"]
    both = server.ok("memory_navigate", op="traverse", ref="decision/lru", direction="both")
    assert {(s["from"], s["to"]) for s in both} == {("lru", "caching-notes"), ("add-cache", "lru")}

    closed = server.ok("memory_unlink", from_ref="task/add-cache", to_ref="decision/lru",
                       rel="implements")
    assert closed["id"] == edge["id"] and closed["valid_to"] is not None
    assert server.ok("memory_navigate", op="links", ref="task/add-cache") == []
    past = server.ok("memory_navigate", op="links", ref="task/add-cache",
                     as_of=edge["valid_from"])
    assert [s["to"] for s in past] == ["lru"]


def test_navigate_stays_in_the_start_scope_unless_all_scopes_is_set(server: Server) -> None:
    """An edge into another scope is walked only with all_scopes=true."""
    server.ok("memory_write", kind="task", title="Ship it", key="ship", scope="board:team")
    server.ok("memory_write", kind="business-rule", title="Freeze on Fridays", key="freeze",
              scope="global")
    team = server.ok("memory_get", ref="task/ship", scope="board:team")
    rule = server.ok("memory_get", ref="business-rule/freeze", scope="global")
    server.ok("memory_link", from_ref=team["id"], to_ref=rule["id"], rel="depends-on",
              scope="board:team")
    assert server.ok("memory_navigate", op="links", ref="task/ship", scope="board:team") == []
    crossed = server.ok("memory_navigate", op="links", ref="task/ship", scope="board:team",
                        all_scopes=True)
    assert [(s["to"], s["rel"]) for s in crossed] == [("freeze", "depends-on")]


def test_navigate_cuts_at_the_limit_with_a_truncated_record(server: Server) -> None:
    """Five out-edges with limit 3 give three edges and a last record saying it was cut."""
    server.ok("memory_write", kind="codebase-map", title="Hub", key="hub")
    for i in range(5):
        server.ok("memory_write", kind="page", title=f"Spoke {i}", key=f"spoke-{i}")
        server.ok("memory_link", from_ref="hub", to_ref=f"spoke-{i}", rel="about")
    steps = server.ok("memory_navigate", op="links", ref="hub", limit=3)
    assert [s["type"] for s in steps] == ["edge", "edge", "edge", "truncated"]
    assert steps[-1] == {"type": "truncated", "shown": 3, "total": 5}
    assert len(server.ok("memory_navigate", op="links", ref="hub")) == 5


# --- the error contract --------------------------------------------------------------------
@pytest.mark.parametrize(
    "arguments",
    [
        {"op": "sideways", "ref": "hub"},
        {"op": "links", "ref": "no-such-node"},
        {"op": "traverse", "ref": "hub", "depth": "very deep"},
        {"op": "traverse", "ref": "hub", "direction": "up"},
        {"op": "links", "ref": "hub", "as_of": "last tuesday"},
        {"op": "links", "ref": "hub", "rels": ["Not A Rel"]},
        {"op": "links", "ref": "hub", "scope": "nowhere"},
        {"op": "links"},
        {},
    ],
)
def test_navigate_answers_an_empty_list_instead_of_an_error(
    server: Server, arguments: dict[str, Any]
) -> None:
    """Unknown ops, bad arguments and unknown nodes make navigate return [], never an error."""
    r = server.call("memory_navigate", **arguments)
    assert not r.is_error
    assert json.loads(_text(r)) == []


@pytest.mark.parametrize(
    ("tool", "arguments", "names"),
    [
        ("memory_write", {"kind": "Bad Kind", "title": "x"}, "invalid kind 'Bad Kind'"),
        ("memory_write", {"kind": "task", "title": "  "}, "title must not be empty"),
        ("memory_write", {"kind": "task", "title": "x", "data": [1, 2]}, "data"),
        ("memory_write", {"kind": "task", "title": "x", "scope": "team"}, "invalid scope 'team'"),
        ("memory_write", {"kind": "task"}, "title"),
        ("memory_get", {"ref": "decision/nothing-here"}, "no node 'decision/nothing-here'"),
        ("memory_get", {"ref": "cache", "as_of": "soon"}, "not an ISO 8601 date"),
        ("memory_history", {"ref": "missing"}, "no node 'missing'"),
        ("memory_retire", {"ref": "missing"}, "no node 'missing'"),
        ("memory_search", {"limit": 0}, "limit"),
        ("memory_search", {"kinds": ["Nope!"]}, "invalid kind"),
        ("memory_link", {"from_ref": "missing", "to_ref": "cache", "rel": "about"}, "no node"),
        ("memory_link", {"from_ref": "cache", "to_ref": "cache", "rel": "links"}, "reserved"),
        ("memory_unlink", {"from_ref": "cache", "to_ref": "refunds", "rel": "about"},
         "no current 'about' edge"),
    ],
)
def test_bad_input_and_unknown_nodes_are_one_line_tool_errors_that_write_nothing(
    server: Server, tool: str, arguments: dict[str, Any], names: str
) -> None:
    """Each failure is an isError result naming the problem, and the graph is unchanged."""
    server.ok("memory_write", kind="decision", title="Cache in process", key="cache",
              body="Redis was overkill.")
    server.ok("memory_write", kind="business-rule", title="Refunds need approval",
              key="refunds", body="Refunds above 100 EUR need a second approver.")
    before = server.ok("memory_search", scope="*", limit=200)
    message = server.error(tool, **arguments)
    assert message.startswith(f"Error executing tool {tool}: ")
    assert names in message
    assert server.ok("memory_search", scope="*", limit=200) == before


def test_a_store_that_cannot_be_opened_is_a_tool_error_and_the_server_keeps_serving(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """With RYVEM_DATA_DIR naming a file, tools fail with one line and navigate still says []."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the data folder should be")
    with serve(portal, tmp_path, blocker) as broken:
        message = broken.error("memory_write", kind="task", title="x")
        assert "not-a-dir" in message
        broken.error("memory_get", ref="anything")
        assert broken.ok("memory_navigate", op="links", ref="anything") == []
        assert "memory_write" in {t.name for t in portal.call(broken.session.list_tools).tools}


# --- default scope, export, the CLI face ----------------------------------------------------
def test_the_first_write_in_a_git_repository_mints_its_scope_and_a_failed_one_does_not(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """In a git tree a bad write creates no ryvem.json; the first good one mints repo:<uuid>."""
    (tmp_path / ".git").mkdir()
    with serve(portal, tmp_path, tmp_path / "data") as s:
        s.error("memory_write", kind="Nope", title="x")
        assert not (tmp_path / "ryvem.json").exists()
        assert s.ok("memory_search")["items"] == []
        v = s.ok("memory_write", kind="decision", title="Trunk-based", key="branching")
        assert REPO_SCOPE.match(v["scope"])
        identity = json.loads((tmp_path / "ryvem.json").read_text())
        assert v["scope"] == f"repo:{identity['repo']}"
        assert s.ok("memory_get", ref="branching")["id"] == v["id"]
        assert s.ok("memory_get", ref="branching", scope=v["scope"])["id"] == v["id"]
        s.error("memory_get", ref="branching", scope="global")
        [hit] = s.ok("memory_search", text="trunk")["items"]
        assert hit["scope"] == v["scope"]
        repo_nodes = s.ok("memory_search", kinds=["repo"], scope="global")["items"]
        assert [n["id"] for n in repo_nodes] == [s.ok("memory_get", ref=f"repo/{identity['repo']}",
                                                      scope="global")["id"]]


def test_concurrent_first_writes_in_a_git_repository_mint_one_identity(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """Eight first writes at once all land in one repo:<uuid> and record one repo node."""
    (tmp_path / ".git").mkdir()
    with serve(portal, tmp_path, tmp_path / "data") as s:

        async def burst() -> list[CallToolResult]:
            results: list[CallToolResult] = []

            async def one(i: int) -> None:
                args = {"kind": "task", "title": f"task {i}", "key": f"t{i}"}
                results.append(await s.session.call_tool("memory_write", args))

            async with anyio.create_task_group() as tg:
                for i in range(8):
                    tg.start_soon(one, i)
            return results

        results = portal.call(burst)
        assert [r.is_error for r in results] == [False] * 8
        identity = json.loads((tmp_path / "ryvem.json").read_text())
        assert {json.loads(_text(r))["scope"] for r in results} == {f"repo:{identity['repo']}"}
        assert len(s.ok("memory_search", kinds=["repo"], scope="global")["items"]) == 1


def test_graph_export_writes_an_html_file_and_returns_its_path(
    server: Server, tmp_path: Path
) -> None:
    """graph_export writes an HTML page into the export folder, of one scope or all."""
    server.ok("memory_write", kind="decision", title="Exported decision", key="exported")
    exports = server.data_dir / "exports"
    path = server.ok("graph_export", out="views.html")
    assert Path(path) == (exports / "views.html").resolve()
    html = Path(path).read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html") and "Exported decision" in html
    default = server.ok("graph_export")
    assert Path(default) == (exports / "graph.html").resolve()
    assert Path(default).is_file()
    server.ok("memory_write", kind="page", title="Board-only page", scope="board:export")
    board = Path(server.ok("graph_export", out="board.html", scope="board:*"))
    assert "Board-only page" in board.read_text(encoding="utf-8")
    assert "Exported decision" not in board.read_text(encoding="utf-8")
    assert "invalid scope" in server.error("graph_export", scope="team")


def test_graph_export_refuses_a_bad_time_before_it_makes_the_export_folder(
    server: Server,
) -> None:
    """A bad as_of or known_at is a one-line tool error, and the export folder is not made."""
    exports = server.data_dir / "exports"
    shutil.rmtree(exports, ignore_errors=True)  # the module's server may have exported before
    assert "ISO 8601" in server.error("graph_export", known_at="then")
    assert "ISO 8601" in server.error("graph_export", as_of="yesterday-ish")
    assert not exports.exists()


def test_graph_export_embeds_past_bodies_only_with_history_bodies(server: Server) -> None:
    """with_history_bodies=true puts a superseded version's body in the page; by default only
    its title and window are there."""
    server.ok("memory_write", kind="decision", title="Queue with Kafka", key="queue",
              body="Old body: kafkaonly.")
    server.ok("memory_write", kind="decision", title="Queue in SQLite", key="queue",
              body="New body: sqliteonly.")
    plain = Path(server.ok("graph_export", out="plain.html")).read_text(encoding="utf-8")
    full = Path(server.ok("graph_export", out="full.html", with_history_bodies=True)
                ).read_text(encoding="utf-8")
    for html in (plain, full):
        assert "Queue with Kafka" in html and "sqliteonly" in html
    assert "kafkaonly" not in plain
    assert "kafkaonly" in full
    assert "with_history_bodies" in server.error("graph_export", with_history_bodies="maybe")


def test_ryvem_mcp_with_graph_arguments_runs_the_cli_and_help_explains_both_modes() -> None:
    """`ryvem-mcp graph --help` is `ryvem graph --help`; unknown arguments exit 2."""
    assert RYVEM_MCP is not None
    usage = subprocess.run([RYVEM_MCP, "--help"], capture_output=True, text=True,
                           timeout=60, check=False)
    assert usage.returncode == 0 and "ryvem-mcp graph" in usage.stdout
    p = subprocess.run([RYVEM_MCP, "graph", "--help"], capture_output=True, text=True,
                       timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    assert "ryvem-mcp graph" in p.stdout and "put" in p.stdout
    bad = subprocess.run([RYVEM_MCP, "serve-http"], capture_output=True, text=True,
                         timeout=60, check=False)
    assert bad.returncode == 2 and "unknown argument" in bad.stderr


def _start_mcp_with(tmp_path: Path, **settings: str) -> subprocess.CompletedProcess[str]:
    """Start `ryvem-mcp` with only these RYVEM_ settings (it should refuse to start)."""
    assert RYVEM_MCP is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    env.update(RYVEM_DATA_DIR=str(tmp_path / "data"), **settings)
    return subprocess.run([RYVEM_MCP], capture_output=True, text=True, env=env, cwd=tmp_path,
                          stdin=subprocess.DEVNULL, timeout=60, check=False)


def test_a_bad_backend_setting_stops_ryvem_mcp_with_one_error_line_not_a_traceback(
    tmp_path: Path,
) -> None:
    """`RYVEM_BACKEND=mongo` in a host's server entry: the host's log shows what is wrong."""
    p = _start_mcp_with(tmp_path, RYVEM_BACKEND="mongo")
    assert p.returncode == 2, p.stderr
    assert p.stderr.splitlines() == ["error: unknown backend 'mongo': use sqlite or neo4j"]
    assert not (tmp_path / "data").exists()


def test_an_unknown_embedding_setting_stops_ryvem_mcp_with_one_line_naming_the_values(
    tmp_path: Path,
) -> None:
    """`RYVEM_EMBEDDING=weird` was silently taken as on; now the host's log says which values
    the setting takes, and the server does not start (exit 2)."""
    p = _start_mcp_with(tmp_path, RYVEM_EMBEDDING="weird")
    assert p.returncode == 2, p.stderr
    [line] = p.stderr.splitlines()
    assert line.startswith("error: unknown RYVEM_EMBEDDING 'weird': ")
    assert "off" in line and "on" in line
    assert not (tmp_path / "data").exists()


# --- two servers, one file -------------------------------------------------------------------
def test_two_servers_writing_to_one_sqlite_file_at_once_lose_nothing(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """Two servers each write one key 50 times and add 50 nodes, all at once: all 200 are kept."""
    data = tmp_path / "shared"
    with serve(portal, tmp_path, data) as a, serve(portal, tmp_path, data) as b:

        async def burst() -> list[CallToolResult]:
            calls = [
                (s, {"kind": "task", "title": f"{name} {i}", "key": "counter"})
                for i in range(50) for s, name in ((a, "a"), (b, "b"))
            ] + [
                (s, {"kind": "note", "title": f"{name} note {i}"})
                for i in range(50) for s, name in ((a, "a"), (b, "b"))
            ]
            results: list[CallToolResult] = [CallToolResult(content=[])] * len(calls)

            async def one(i: int, s: Server, args: dict[str, Any]) -> None:
                results[i] = await s.session.call_tool("memory_write", args)

            async with anyio.create_task_group() as tg:
                for i, (s, args) in enumerate(calls):
                    tg.start_soon(one, i, s, args)
            return results

        results = portal.call(burst)
        assert [_text(r) for r in results if r.is_error] == []
        history = a.ok("memory_history", ref="task/counter", limit=200)
        assert history["total"] == 100
        titles = {v["title"] for v in history["items"]}
        assert titles == {f"{n} {i}" for n in "ab" for i in range(50)}
        chain = history["items"]
        assert all(v["supersedes"] == p["id"] for p, v in itertools.pairwise(chain))
        assert [v["valid_to"] is None for v in chain].count(True) == 1
        notes = b.ok("memory_search", kinds=["note"], limit=200)
        assert (len(notes["items"]), notes["truncated"]) == (100, False)


# --- the two clocks ---------------------------------------------------------------------------


def _before(iso: str) -> str:
    """The microsecond before an ISO 8601 ...Z time."""
    from ryvem.domain.timeutil import format_us, parse_time

    return format_us(parse_time(iso) - 1)


def test_valid_time_and_known_at_through_the_tools(server: Server) -> None:
    """memory_write's valid_from dates a version; memory_get, memory_history, memory_search
    and memory_navigate answer as_of and known_at; memory_retire's valid_to is a late
    retire; memory_link's valid_from dates an edge."""
    server.ok("memory_write", kind="page", title="Clock target", key="clk-target",
              valid_from="2026-08-01")
    v1 = server.ok("memory_write", kind="decision", title="Clock one", key="clk",
                   body="See [[clk-target]].", valid_from="2026-08-02")
    assert v1["valid_from"] == "2026-08-02T00:00:00.000000Z" and set(v1) == NODE_KEYS
    v2 = server.ok("memory_write", kind="decision", title="Clock two", key="clk",
                   valid_from="2026-08-05")
    k1 = _before(v2["recorded_at"])
    then = server.ok("memory_get", ref="decision/clk", as_of="2026-08-06", known_at=k1)
    assert (then["title"], then["valid_to"]) == ("Clock one", None)
    items = server.ok("memory_history", ref="decision/clk", known_at=k1)["items"]
    assert [v["title"] for v in items] == ["Clock one"]
    assert [v["title"] for v in server.ok(
        "memory_history", ref="decision/clk", as_of="2026-08-03")["items"]] == ["Clock one"]
    # A phrase, searched by words only: words are OR-ed, and meaning would find "Clock two".
    hits = server.ok("memory_search", text='"clock one"', known_at=k1)["items"]
    assert [h["title"] for h in hits] == ["Clock one"]
    assert server.ok("memory_search", text='"clock one"', mode="lexical")["items"] == []
    steps = server.ok("memory_navigate", op="links", ref="decision/clk", as_of="2026-08-06",
                      known_at=k1)
    assert [s["to"] for s in steps] == ["clk-target"]
    assert server.ok("memory_navigate", op="links", ref="decision/clk", as_of="2026-08-06") == []
    edge = server.ok("memory_link", from_ref="decision/clk", to_ref="page/clk-target",
                     rel="about", valid_from="2026-08-06")
    assert edge["valid_from"] == "2026-08-06T00:00:00.000000Z" and set(edge) == EDGE_KEYS
    gone = server.ok("memory_retire", ref="decision/clk", valid_to="2026-08-07")
    assert gone["valid_to"] == "2026-08-07T00:00:00.000000Z"
    assert gone["closure_recorded_at"] > gone["recorded_at"]


def test_a_valid_time_before_the_latest_one_is_a_tool_error_that_writes_nothing(
    server: Server,
) -> None:
    """The append-only rule and the no-future rule are one-line tool errors."""
    server.ok("memory_write", kind="decision", title="Dated", key="clk-dated",
              valid_from="2026-07-10")
    message = server.error("memory_write", kind="decision", title="Earlier", key="clk-dated",
                           valid_from="2026-07-09")
    assert "append-only" in message
    assert server.ok("memory_history", ref="decision/clk-dated")["total"] == 1
    assert "future" in server.error("memory_retire", ref="decision/clk-dated",
                                    valid_to="9999-12-31")
    assert "ISO 8601" in server.error("memory_get", ref="decision/clk-dated", known_at="then")


# --- forgetting ------------------------------------------------------------------------------
SECRET = "ghp_Zx8Qk2Lm9Rt4Vw7Yb1Nc6"


def test_memory_redact_removes_a_secret_the_agent_wrote_and_the_audit_names_the_client(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """An agent that pasted a token removes it: every version rewritten, history kept, the
    audit entry names the MCP client from its handshake and never holds the token."""
    with serve(portal, tmp_path, tmp_path / "data", client="claude-code-test") as s:
        s.ok("memory_write", kind="task", key="ci", title="CI", body=f"token {SECRET}")
        s.ok("memory_write", kind="task", key="ci", title="CI", body="token in the vault",
             data={"old": SECRET})
        s.ok("memory_write", kind="task", key="keep", title="Keep", body="nothing secret")
        page = s.ok("graph_export", out="before.html")
        out = s.ok("memory_redact", text=SECRET, reason="pasted a token")
        assert (out["versions"], out["edges"]) == (2, 0)
        # The page the server exported before still holds the token: the agent is told.
        assert out["stale_exports"] == [page]
        assert out["nodes"] == [{"ref": "task/ci", "entity": out["nodes"][0]["entity"],
                                 "kind": "task", "key": "ci", "scope": "global", "versions": 2}]
        assert out["audit"]["who"] == "claude-code-test" and out["audit"]["via"] == "mcp"
        history = s.ok("memory_history", ref="task/ci", include_body=True)["items"]
        assert [v["body"] for v in history] == ["token [redacted]", "token in the vault"]
        assert history[1]["data"] == {"old": "[redacted]"}
        assert [v["erased"] for v in history] == ["redacted", "redacted"]
        assert s.ok("memory_get", ref="task/keep")["erased"] is None
        assert s.ok("memory_search", text=SECRET, scope="*")["items"] == []
        assert "under 8" in s.error("memory_redact", text="short")
        assert "unknown argument 'force'" in s.error("memory_redact", text=SECRET, force=True)
        tools = {t.name for t in portal.call(s.session.list_tools).tools}
        assert "memory_purge" not in tools
        assert s.call("memory_purge", ref="task/ci").is_error
    db = tmp_path / "data" / "dev.db"
    for path in db.parent.glob("dev.db*"):
        assert SECRET.encode() not in path.read_bytes(), path
    repo = SqliteRepository.open(db)
    try:
        [entry] = Service(repo).audit()
        assert (entry.who, entry.reason, entry.versions) == (
            "claude-code-test", "pasted a token", 2)
    finally:
        repo.close()


def test_memory_redact_of_a_text_no_row_holds_changes_nothing_and_records_no_audit_entry(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """Not an error (the agent's secret may be gone already): 0 versions, 0 edges, no audit
    entry, and the audit trail stays empty."""
    with serve(portal, tmp_path, tmp_path / "data") as s:
        s.ok("memory_write", kind="task", key="ci", title="CI", body=f"token {SECRET}")
        out = s.ok("memory_redact", text="ghp_ALREADYgone0000", reason="sweep", scope="*")
        assert (out["versions"], out["edges"], out["nodes"], out["audit"]) == (0, 0, [], None)
        assert s.ok("memory_get", ref="task/ci")["erased"] is None
    repo = SqliteRepository.open(tmp_path / "data" / "dev.db")
    try:
        assert Service(repo).audit() == []
    finally:
        repo.close()


def test_tool_errors_name_the_tools_arguments_and_never_a_command_line_flag(
    server: Server,
) -> None:
    """A too-short redaction and a semantic search of the past say what is wrong in the
    tools' own terms: no `--force` (there is no force argument) and no `--as-of`."""
    short = server.error("memory_redact", text="short")
    assert "under 8" in short and "--" not in short and "force" not in short
    past = server.error("memory_search", text="checkout", mode="semantic", as_of="2999-01-01")
    assert "current rows only" in past and "--" not in past
    assert "as_of" in past and "lexical" in past


def test_memory_purge_is_served_only_with_allow_purge(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """Purge is a person's decision: without --allow-purge no agent sees or calls it."""
    with serve(portal, tmp_path, tmp_path / "data") as s:
        s.ok("memory_write", kind="task", key="t", title="Secret plan", body="details")
        assert "memory_purge" not in {t.name for t in portal.call(s.session.list_tools).tools}
        assert s.error("memory_purge", ref="task/t") == (  # it said "Unknown tool"
            "Error executing tool memory_purge: purging is off on this server; a person "
            "starts it with `ryvem-mcp --allow-purge` to allow it (memory_redact takes a "
            "secret out of every version without it)")
        assert s.ok("memory_get", ref="task/t")["title"] == "Secret plan"
    with serve(portal, tmp_path, tmp_path / "data", args=("--allow-purge",),
               client="ops-console") as s:
        tools = {t.name: t for t in portal.call(s.session.list_tools).tools}
        assert sorted(tools["memory_purge"].input_schema.get("required", [])) == ["ref"]
        out = s.ok("memory_purge", ref="task/t", reason="asked to")
        assert (out["type"], out["versions"], out["audit"]["who"]) == ("purge", 1, "ops-console")
        got = s.ok("memory_get", ref="task/t")
        assert (got["title"], got["body"], got["erased"]) == ("[purged]", "", "purged")
        assert "nothing was purged" in s.error("memory_purge", ref="task/nope")


def test_a_search_for_a_kind_no_node_has_says_so_and_names_the_closest(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """A sweep asked memory_search for kinds=["decisions"]: {"items": [], "notes": []}, which
    an agent reads as "no such memories". An empty answer now says the kind has no node and
    names the closest one; a kind that has nodes adds no note."""
    with serve(portal, tmp_path, tmp_path / "data") as s:
        s.ok("memory_write", kind="decision", key="sess", title="Sessions in signed cookies")
        got = s.ok("memory_search", text="sessions", kinds=["decisions"], mode="lexical")
        assert got["items"] == []
        assert got["notes"] == ["no node of the store is of kind 'decisions' (did you mean "
                                "'decision'?)"]
        none = s.ok("memory_search", text="nothing-matches", kinds=["decision"],
                    mode="lexical")
        assert (none["items"], none["notes"]) == ([], [])


def test_memory_search_with_history_answers_from_a_retired_memory(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """A sweep's agent asked "which feature flag system do we use" of a retired decision and
    got an unrelated hit; `history: true` finds it, saying it is retired and since when."""
    with serve(portal, tmp_path, tmp_path / "data") as s:
        s.ok("memory_write", kind="decision", key="flags", title="Feature flags with Unleash",
             body="Use Unleash for feature flags.", valid_from="2026-01-01")
        s.ok("memory_retire", ref="decision/flags", reason="plain environment variables",
             valid_to="2026-04-01")
        now = s.ok("memory_search", text="unleash", mode="lexical")
        assert now["items"] == []
        got = s.ok("memory_search", text="unleash", history=True)
        [item] = got["items"]
        assert (item["title"], item["status"], item["valid_to"]) == (
            "Feature flags with Unleash", "retired", "2026-04-01T00:00:00.000000Z")
        assert got["mode"] == "lexical"
        assert "give one or the other" in s.error("memory_search", text="unleash",
                                                   history=True, as_of="2026-02-01")
