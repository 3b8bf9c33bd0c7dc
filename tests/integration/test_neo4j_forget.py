"""Forgetting on a real Neo4j server: after a redaction no property of any node or
relationship in the database holds the text — versions, edges, link-target tails, audit
entries — and the full-text index no longer finds it."""

from __future__ import annotations

from typing import Any

from neo4j import RoutingControl

from ryvem.adapters.neo4j import Neo4jRepository
from ryvem.application.service import Service

SECRET = "xoxb-Slack-77aa66bb55cc44dd"
SCAN = """
MATCH (n)
UNWIND keys(n) AS k
WITH labels(n) AS what, k, n[k] AS value
RETURN what, k, value
UNION ALL
MATCH ()-[r]->()
UNWIND keys(r) AS k
RETURN [type(r)] AS what, k, r[k] AS value
"""


def holding(repo: Neo4jRepository, text: str) -> list[tuple[Any, str]]:
    """Every (labels, property) whose value (or an item of a list value) holds ``text``, in
    any case."""
    records, _, _ = repo._driver.execute_query(
        SCAN, database_=repo._database, routing_=RoutingControl.READ)
    found = []
    for r in records:
        values = r["value"] if isinstance(r["value"], list) else [r["value"]]
        for v in values:
            if isinstance(v, str) and text.casefold() in v.casefold():
                found.append((r["what"], r["k"]))
    return found


def test_no_property_on_the_server_holds_a_redacted_secret(neo: Neo4jRepository) -> None:
    svc = Service(neo)
    svc.write("task", f"Slack {SECRET}", key="slack", body=f"token {SECRET}",
              data={"token": SECRET})
    svc.write("task", "Slack", key="slack", body=f"see [[tokens/{SECRET}]]")
    svc.write("page", "Other", key="other", body="unrelated words")
    svc.link("task/slack", "page/other", "about", data={"why": SECRET})
    word = "77aa66bb55cc44dd"  # how the full-text fields hold it: words, folded
    assert {k for _, k in holding(neo, SECRET)} >= {"title", "body", "data", "link_targets",
                                                    "tail"}
    assert "ft_body" in {k for _, k in holding(neo, word)}
    assert svc.search("77aa66bb55cc44dd")
    report = svc.redact(SECRET, reason="rotate it")
    assert (report.versions, report.edges) == (2, 1)
    assert holding(neo, SECRET) == [] and holding(neo, word) == []
    assert svc.search("77aa66bb55cc44dd") == [] and svc.search("xoxb") == []
    assert svc.search("redacted")[0].title == "Slack"
    assert svc.get("page/other").erased is None
    [entry] = svc.audit()
    assert entry.reason == "rotate it" and entry.versions == 2


def test_a_purge_leaves_no_property_of_the_node_but_its_skeleton(neo: Neo4jRepository) -> None:
    svc = Service(neo)
    svc.write("task", "Launch codes 0000", key="launch", body="the codes are in [[safe]]",
              data={"where": "safe"})
    svc.write("task", "Launch codes", key="launch", body="moved")
    svc.write("page", "safe", key="safe")
    svc.link("task/launch", "page/safe", "about", data={"note": "Launch codes"})
    svc.purge("task/launch")
    assert holding(neo, "Launch codes") == []
    assert holding(neo, "moved") == []
    assert [v.title for v in svc.history("task/launch")] == ["[purged]", "[purged]"]
