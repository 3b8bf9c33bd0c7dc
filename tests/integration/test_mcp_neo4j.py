"""The real ``ryvem-mcp`` on Neo4j, driven by the MCP SDK's stdio client beside one on SQLite.

Two servers run for the module: one with ``RYVEM_BACKEND=neo4j`` on the test server (see
``neo4j_server`` in conftest: skipped here without one, a failure under ``CI=true``), one on a
private SQLite file. Each test sends the same calls to both and compares the answers once the
parts a backend mints are masked: ids become labels in the order they first appear, the times
of this run (``recorded_at``, a write's own ``valid_from``) become ``<now>``, and scores go.
Where the README promises no order (lexical ranks: FTS5 and Lucene score alike, not equally)
the hits are compared as sets; navigation's order is promised, so it is compared as is.
Each test writes in a board scope of its own, so the module's servers can be shared.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal

from backends import Neo4jServer, connect_neo4j, open_empty_neo4j
from conftest import unavailable
from integration.test_mcp_server import (
    EDGE_KEYS,
    HIT_KEYS,
    NODE_KEYS,
    STEP_KEYS,
    TOOLS,
    Server,
    _text,
    serve,
)
from pages import DECISIONS
from ryvem.application.service import Service

ID = re.compile(r"\b[0-9a-f]{24}\b")
TIME = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z\b")
STARTED = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(time.time() - 3600))


class Masked:
    """One backend's answers with its ids and this run's times replaced by stable labels."""

    def __init__(self) -> None:
        self.ids: dict[str, str] = {}

    def __call__(self, value: Any) -> Any:
        if isinstance(value, dict):  # a score is each engine's own (BM25 / Lucene): which
            # legs scored a hit is kept, and a confidence (none in lexical mode) compared
            return {k: ({leg: s is not None for leg, s in v.items()} if k == "scores"
                        else self(v)) for k, v in value.items() if k != "score"}
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, str):
            value = ID.sub(lambda m: self.ids.setdefault(m[0], f"#{len(self.ids)}"), value)
            return TIME.sub(lambda m: "<now>" if m[0] >= STARTED else m[0], value)
        return value


def answer(s: Server, tool: str, **arguments: Any) -> Any:
    """A call's outcome, whichever it is: its JSON result, or ``["error", message]``."""
    r = s.call(tool, **arguments)
    return ["error", _text(r)] if r.is_error else json.loads(_text(r))


Scenario = Callable[[Server, str], list[Any]]


def alike(pair: tuple[Server, Server], scenario: Scenario, scope: str) -> list[Any]:
    """Run ``scenario`` on SQLite and on Neo4j; both transcripts, masked, must be equal.
    Returns the Neo4j transcript (unmasked) for checks of its own."""
    lite, neo = pair
    on_sqlite, on_neo4j = scenario(lite, scope), scenario(neo, scope)
    assert Masked()(on_neo4j) == Masked()(on_sqlite)
    return on_neo4j


@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal() as p:
        yield p


@pytest.fixture(scope="module")
def pair(
    portal: BlockingPortal, neo4j_server: Neo4jServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, Server]]:
    """A server on SQLite and one on the (emptied) Neo4j test server, outside any git tree."""
    open_empty_neo4j(neo4j_server).close()
    lite_home, neo_home = tmp_path_factory.mktemp("mcp-sqlite"), tmp_path_factory.mktemp("mcp-neo")
    neo_env = {
        "RYVEM_BACKEND": "neo4j",
        "RYVEM_NEO4J_URI": neo4j_server.uri,
        "RYVEM_NEO4J_USER": neo4j_server.user,
        "RYVEM_NEO4J_PASSWORD": neo4j_server.password,
    }
    with (
        serve(portal, lite_home, lite_home / "data") as lite,
        serve(portal, neo_home, neo_home / "data", **neo_env) as neo,
    ):
        yield lite, neo


# --- the tool list -----------------------------------------------------------------------------
def test_the_server_on_neo4j_lists_the_same_tools_with_the_same_schemas_as_on_sqlite(
    pair: tuple[Server, Server],
) -> None:
    """The backend changes nothing an agent sees in the tool list."""
    lite, neo = pair
    listed = [
        {t.name: (t.description, t.input_schema) for t in s.portal.call(s.session.list_tools).tools}
        for s in (lite, neo)
    ]
    assert set(listed[1]) == set(TOOLS)
    assert listed[1] == listed[0]


def test_the_server_on_neo4j_keeps_its_nodes_in_neo4j_and_no_sqlite_file(
    pair: tuple[Server, Server], neo4j_server: Neo4jServer
) -> None:
    """A node written through the Neo4j server is read back by a direct Neo4j handle, and the
    server's data folder holds no SQLite store."""
    _, neo = pair
    v = neo.ok("memory_write", kind="decision", title="Kept in Neo4j", key="where",
               scope="board:where")
    repo = connect_neo4j(neo4j_server)
    try:
        got = Service(repo).get("decision/where", scope="board:where")
        assert (got.id, got.title) == (v["id"], "Kept in Neo4j")
    finally:
        repo.close()
    assert list(neo.data_dir.rglob("*.db")) == []


# --- writes, reads, history, retire --------------------------------------------------------------
def writes(s: Server, scope: str) -> list[Any]:
    v1 = s.ok("memory_write", kind="decision", title="Cache with Redis", key="cache",
              body="Because latency matters.", data={"status": "open"}, scope=scope,
              valid_from="2025-03-01")
    v2 = s.ok("memory_write", kind="decision", title="Cache in process", key="cache",
              body="Redis was overkill.", scope=scope, valid_from="2025-03-05")
    again = s.ok("memory_write", kind="decision", title="Cache in process", key="cache",
                 body="Redis was overkill.", scope=scope)
    keyless = s.ok("memory_write", kind="note", title="A note without a key", scope=scope,
                   body="Free text.")
    pr = s.ok("memory_write", kind="pr", title="PR 12", key="pr-12", scope=scope,
              valid_from="2025-03-02")
    return [
        v1, v2, again, keyless, pr,
        s.ok("memory_get", ref="decision/cache", scope=scope),
        s.ok("memory_get", ref="cache", scope=scope, as_of="2025-03-03"),
        s.ok("memory_get", ref=keyless["id"]),
        s.ok("memory_history", ref=v1["id"]),
        s.ok("memory_history", ref="decision/cache", scope=scope, include_body=True),
        s.ok("memory_history", ref="decision/cache", scope=scope, limit=1),
        s.ok("memory_history", ref="decision/cache", scope=scope, as_of="2025-03-02"),
        s.ok("memory_retire", ref="pr/pr-12", scope=scope, reason="merged",
             valid_to="2025-03-04"),
        s.error("memory_retire", ref=pr["id"]),
        s.ok("memory_get", ref="pr/pr-12", scope=scope, as_of="2025-03-03"),
        answer(s, "memory_get", ref="pr/pr-12", scope=scope),
        s.ok("memory_write", kind="pr", title="PR 12 reopened", key="pr-12", scope=scope,
             valid_from="2025-03-06"),
        s.ok("memory_history", ref="pr/pr-12", scope=scope),
    ]


def test_writes_supersede_retire_and_revive_on_neo4j_as_on_sqlite(
    pair: tuple[Server, Server],
) -> None:
    """Insert, supersede, a no-op rewrite, retire and revive, get and history (as of a valid
    time too) answer the same on both backends, and the Neo4j answers hold the chain."""
    out = alike(pair, writes, "board:writes")
    v1, v2, again, keyless, pr = out[:5]
    assert set(v1) == NODE_KEYS and v1["data"] == {"status": "open"}
    assert (v2["entity"], v2["supersedes"], again["id"]) == (v1["id"], v1["id"], v2["id"])
    assert keyless["key"] is None and out[7]["id"] == keyless["id"]
    assert out[6]["title"] == "Cache with Redis"
    assert [v["id"] for v in out[8]["items"]] == [v1["id"], v2["id"]]
    assert [v["body"] for v in out[9]["items"]] == ["Because latency matters.",
                                                   "Redis was overkill."]
    assert (out[10]["truncated"], out[10]["total"], out[10]["items"][0]["id"]) == (
        True, 2, v2["id"])
    retired = out[12]
    assert (retired["id"], retired["retired_reason"]) == (pr["id"], "merged")
    assert retired["valid_to"] == "2025-03-04T00:00:00.000000Z"
    assert "not current" in out[13]
    revived = out[16]
    assert revived["supersedes"] == pr["id"] and revived["valid_to"] is None
    assert [v["title"] for v in out[17]["items"]] == ["PR 12", "PR 12 reopened"]


# --- search -----------------------------------------------------------------------------------
PAGES = [
    ("business-rule", "Refunds need approval", "refunds",
     "Refunds above 100 EUR need a second approver."),
    ("business-rule", "Refund window", "refund-window",
     "A refund is possible for 30 days after delivery."),
    ("decision", "Approvals live in the ledger", "approvals",
     "Every approval is a ledger row, so a refund's approver is on record."),
    ("task", "Write the deploy script", "deploy", "Blue-green deploys on Fridays."),
]


def titles(found: dict[str, Any]) -> list[str]:
    return sorted(h["title"] for h in found["items"])


def lexical(s: Server, scope: str) -> list[Any]:
    for kind, title, key, body in PAGES:
        s.ok("memory_write", kind=kind, title=title, key=key, body=body, scope=scope)
    one = s.ok("memory_search", text="refunds approver", kinds=["business-rule"], scope=scope,
               mode="lexical")
    [full] = s.ok("memory_search", text="deploy", scope=scope, include_body=True,
                  mode="lexical")["items"]
    return [
        titles(s.ok("memory_search", text="refund approver", scope=scope, mode="lexical")),
        titles(one), sorted(one["items"][0]), one["truncated"], one["mode"], one["notes"],
        (full["title"], full["body"]),
        s.ok("memory_search", text="refunds", kinds=["task"], scope=scope, mode="lexical"),
        s.ok("memory_search", text='"second approver"', scope=scope, mode="lexical")["items"],
        titles(s.ok("memory_search", text="refund*", scope=scope, mode="lexical")),
        # Without text: the most recent current rows, newest first (an order the README promises).
        [h["title"] for h in s.ok("memory_search", scope=scope, limit=3)["items"]],
        s.ok("memory_search", scope=scope, limit=3)["truncated"],
        titles(s.ok("memory_search", text="ledger", scope="board:*", mode="lexical")),
    ]


def test_lexical_search_finds_the_same_nodes_on_neo4j_as_on_sqlite(
    pair: tuple[Server, Server],
) -> None:
    """The same words find the same set of nodes (ranks may differ between FTS5 and Lucene),
    with filters, phrases, prefixes, bodies, limits and truncation alike."""
    out = alike(pair, lexical, "board:lexical")
    assert out[0] == ["Approvals live in the ledger", "Refund window", "Refunds need approval"]
    assert out[1] == ["Refund window", "Refunds need approval"]  # refunds and refund: one stem
    assert out[2] == sorted(HIT_KEYS)
    assert (out[3], out[4], out[5]) == (False, "lexical", [])
    assert out[6] == ("Write the deploy script", "Blue-green deploys on Fridays.")
    assert out[7]["items"] == [] and [h["title"] for h in out[8]] == ["Refunds need approval"]
    assert out[10] == ["Write the deploy script", "Approvals live in the ledger",
                       "Refund window"]
    assert out[11] is True and out[12] == ["Approvals live in the ledger"]


def semantic(s: Server, scope: str) -> list[Any]:
    for title, key, body in DECISIONS:
        s.ok("memory_write", kind="decision", title=title, key=key, body=body, scope=scope)
    question = "where do we keep who is logged in"
    deadline = time.monotonic() + 120
    while True:  # the server's background embedder embeds the writes
        found = s.ok("memory_search", text=question, scope=scope)
        if not found["notes"] or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    near = s.ok("memory_search", text="can a payment request be sent twice safely",
                scope=scope, mode="semantic")
    return [
        found["mode"], found["notes"], found["items"][0]["title"],
        found["items"][0]["ranks"]["semantic"],
        [h["title"] for h in near["items"]][:1], near["mode"],
    ]


def test_hybrid_and_semantic_search_on_neo4j_find_by_meaning_as_on_sqlite(
    pair: tuple[Server, Server],
) -> None:
    """With the semantic extra, memory_search's default (hybrid) puts the page that answers a
    question sharing no word with it first on both backends, and semantic mode agrees."""
    from ryvem.embedding import probe

    reason = probe()
    if reason is not None:
        unavailable(reason)
    out = alike(pair, semantic, "board:semantic")
    assert out == ["hybrid", [], "Keep sessions in signed cookies", 1,
                   ["Checkout is idempotent"], "semantic"]


# --- navigation -------------------------------------------------------------------------------
def navigation(s: Server, scope: str) -> list[Any]:
    s.ok("memory_write", kind="task", title="Add a cache", key="add-cache", scope=scope,
         body="See [[caching-notes]].")
    s.ok("memory_write", kind="decision", title="Use LRU", key="lru", scope=scope)
    s.ok("memory_write", kind="page", title="Caching notes", key="caching-notes", scope=scope)
    s.ok("memory_write", kind="business-rule", title="Freeze on Fridays", key="freeze",
         scope="global")
    edge = s.ok("memory_link", from_ref="task/add-cache", to_ref="decision/lru",
                rel="implements", data={"by": "agent"}, scope=scope)
    rule = s.ok("memory_get", ref="business-rule/freeze", scope="global")
    steps = {
        "scope": scope,
        "links": s.ok("memory_navigate", op="links", ref="task/add-cache", scope=scope),
        "about": s.ok("memory_link", from_ref="decision/lru", to_ref="page/caching-notes",
                      rel="about", scope=scope),
        "cross": s.ok("memory_link", from_ref="decision/lru", to_ref=rule["id"],
                      rel="depends-on", scope=scope),
        "back": s.ok("memory_navigate", op="backlinks", ref="page/caching-notes", scope=scope),
        "walk": s.ok("memory_navigate", op="traverse", ref="task/add-cache", depth=2,
                     scope=scope),
        "only": s.ok("memory_navigate", op="traverse", ref="task/add-cache", depth=2,
                     rels=["implements"], scope=scope),
        "both": s.ok("memory_navigate", op="traverse", ref="decision/lru", direction="both",
                     scope=scope),
        "across": s.ok("memory_navigate", op="links", ref="decision/lru", scope=scope,
                       all_scopes=True),
        "cut": s.ok("memory_navigate", op="links", ref="decision/lru", scope=scope,
                    all_scopes=True, limit=1),
        "unlink": s.ok("memory_unlink", from_ref="task/add-cache", to_ref="decision/lru",
                       rel="implements", scope=scope),
        "after": s.ok("memory_navigate", op="links", ref="task/add-cache", scope=scope),
        "before": s.ok("memory_navigate", op="links", ref="task/add-cache", scope=scope,
                       as_of=edge["valid_from"]),
        "unknown": s.ok("memory_navigate", op="links", ref="no-such-node", scope=scope),
    }
    return [edge, steps]


def test_navigate_walks_the_same_edges_in_the_same_order_on_neo4j_as_on_sqlite(
    pair: tuple[Server, Server],
) -> None:
    """Edges made by link and by a body's [[link]] are found by links, backlinks and traverse
    (one scope or all), cut at a limit, and gone after unlink — alike on both backends."""
    edge, steps = alike(pair, navigation, "board:navigation")
    assert set(edge) == EDGE_KEYS and edge["data"] == {"by": "agent"}
    # Within a hop, edges come by the node reached from, then rel, then the far node's age.
    assert [(s["to"], s["rel"]) for s in steps["links"]] == [
        ("lru", "implements"), ("caching-notes", "links")]
    assert all(set(s) == STEP_KEYS for s in steps["links"])
    assert [(s["from"], s["rel"], s["direction"]) for s in steps["back"]] == [
        ("lru", "about", "in"), ("add-cache", "links", "in")]
    assert [(s["from"], s["to"], s["hop"]) for s in steps["walk"]] == [
        ("add-cache", "lru", 1), ("add-cache", "caching-notes", 1), ("lru", "caching-notes", 2)]
    assert [s["to"] for s in steps["only"]] == ["lru"]
    assert [(s["from"], s["to"], s["direction"], s["hop"]) for s in steps["both"]] == [
        ("lru", "caching-notes", "out", 1), ("add-cache", "lru", "in", 1),
        ("add-cache", "caching-notes", "out", 2)]
    assert [s["to"] for s in steps["across"]] == ["caching-notes", "freeze"]
    assert steps["cut"][-1] == {"type": "truncated", "shown": 1, "total": 2}
    assert steps["unlink"]["valid_to"] is not None
    assert [s["to"] for s in steps["after"]] == ["caching-notes"]
    assert [s["to"] for s in steps["before"]] == ["lru", "caching-notes"]
    assert steps["unknown"] == []


# --- errors, export, redaction -------------------------------------------------------------------
def failures(s: Server, scope: str) -> list[Any]:
    s.ok("memory_write", kind="decision", title="Cache in process", key="cache", scope=scope)
    s.ok("memory_write", kind="decision", title="Dated", key="dated", scope=scope,
         valid_from="2025-07-10")
    before = s.ok("memory_search", scope=scope, limit=200)
    messages = [
        s.error("memory_write", kind="Bad Kind", title="x", scope=scope),
        s.error("memory_write", kind="task", title="  ", scope=scope),
        s.error("memory_write", kind="task", title="x", scope="team"),
        s.error("memory_write", kind="decision", title="Earlier", key="dated", scope=scope,
                valid_from="2025-07-09"),
        s.error("memory_get", ref="decision/nothing-here", scope=scope),
        s.error("memory_get", ref="cache", scope=scope, as_of="soon"),
        s.error("memory_history", ref="missing", scope=scope),
        s.error("memory_retire", ref="decision/dated", scope=scope, valid_to="9999-12-31"),
        s.error("memory_search", kinds=["Nope!"], scope=scope),
        s.error("memory_search", text="cache", mode="semantic", as_of="2999-01-01"),
        s.error("memory_link", from_ref="missing", to_ref="cache", rel="about", scope=scope),
        s.error("memory_link", from_ref="cache", to_ref="cache", rel="links", scope=scope),
        s.error("memory_unlink", from_ref="cache", to_ref="dated", rel="about", scope=scope),
        s.error("memory_redact", text="short"),
    ]
    return [messages, s.ok("memory_search", scope=scope, limit=200) == before]


def test_bad_calls_fail_with_the_same_one_line_errors_on_neo4j_as_on_sqlite(
    pair: tuple[Server, Server],
) -> None:
    """Each refused call names the same problem in the same words on both, and writes nothing."""
    messages, unchanged = alike(pair, failures, "board:failures")
    assert unchanged is True
    assert all(m.startswith("Error executing tool ") for m in messages)
    named = ["invalid kind 'Bad Kind'", "title must not be empty", "invalid scope 'team'",
             "append-only", "no node 'decision/nothing-here'", "ISO 8601", "no node 'missing'",
             "future", "invalid kind", "current rows only", "no node", "reserved",
             "no current 'about' edge", "under 8"]
    assert [n in m for n, m in zip(named, messages, strict=True)] == [True] * len(named)


SECRET = "ghp_Tq3Wx8Lm2Rk5Vz7Yb1Nc9Hd"


def export_and_redact(s: Server, scope: str) -> list[Any]:
    s.ok("memory_write", kind="task", key="ci", title="CI", body=f"token {SECRET}", scope=scope)
    s.ok("memory_write", kind="task", key="ci", title="CI", body="token in the vault",
         data={"old": SECRET}, scope=scope)
    out = s.ok("memory_redact", text=SECRET, reason="pasted a token", scope=scope)
    html = Path(s.ok("graph_export", out="board.html", scope=scope, with_history_bodies=True)
                ).read_text(encoding="utf-8")
    return [
        "token in the vault" in html and "token [redacted]" in html, SECRET in html,
        out["versions"], out["nodes"], out["audit"]["via"],
        [(v["body"], v["data"], v["erased"]) for v in s.ok(
            "memory_history", ref="task/ci", scope=scope, include_body=True)["items"]],
        s.ok("memory_search", text=SECRET, scope="*", mode="lexical")["items"],
    ]


def test_export_and_redaction_work_on_neo4j_as_on_sqlite(pair: tuple[Server, Server]) -> None:
    """graph_export writes the board's page; memory_redact rewrites every version holding a
    secret and keeps the history, alike on both backends."""
    out = alike(pair, export_and_redact, "board:redact")
    assert out[:3] == [True, False, 2] and out[4] == "mcp"
    assert out[5] == [("token [redacted]", {}, "redacted"),
                      ("token in the vault", {"old": "[redacted]"}, "redacted")]
    assert out[6] == []
