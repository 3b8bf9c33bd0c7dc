"""Forgetting on a real Neo4j server: after a redaction no property of any node or
relationship in the database holds the text — versions, edges, link-target tails, audit
entries — and the full-text index no longer finds it."""

from __future__ import annotations

from typing import Any

from neo4j import RoutingControl

from ryvem.adapters.neo4j import Neo4jRepository
from ryvem.application.service import Service
from ryvem.domain.links import normalize, tail

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
    assert "ft_text" in {k for _, k in holding(neo, word)}
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


def tail_counts(neo: Neo4jRepository, tails: list[str]) -> dict[str, int]:
    """The write count a planned write reads for each last segment (``write_context``): what
    ``apply_plan`` later checks did not move."""

    def read(tx: Any) -> dict[str, int]:
        tx.write_context([], [], tails)
        return dict(tx._tail_writes)

    return neo.write(read)


def test_a_redaction_moves_each_link_tail_it_changes_and_a_deleted_one_never_counts_back(
    neo: Neo4jRepository,
) -> None:
    """A write planned on what a link target's last segment resolved to before a redaction
    must re-plan, so the redaction moves the count of every segment it drops or re-targets;
    a segment it deletes (no version targets it any more) and that a later write brings back
    starts above every count read before (the store's tail epoch), never at the old count
    again (the ABA case: "nothing moved" while a redaction and a write went by)."""
    svc = Service(neo)
    svc.write("page", "Vault", key="vault", body=f"see [[keys/{SECRET}]] and [[other]]")
    svc.write("page", "Keys", key="keys", body=f"also [[keys/{SECRET}]]")
    gone = tail(normalize(f"keys/{SECRET}"))
    fresh = tail(normalize(f"keys/{SECRET.replace(SECRET, '[redacted]')}"))
    never = "no-page-links-here"
    before = tail_counts(neo, [gone, fresh, never])
    svc.redact(SECRET, reason="rotate it")
    after = tail_counts(neo, [gone, fresh, never])
    assert after[gone] > before[gone]  # deleted: counts as the raised epoch
    assert after[fresh] > before[fresh]  # the redacted target's segment, now targeted
    assert after[never] > before[never]  # an absent segment counts as the epoch too
    assert holding(neo, SECRET) == []
    # The secret pasted again: its segment comes back above every count read before.
    svc.write("page", "Again", key="again", body=f"[[keys/{SECRET}]]")
    back = tail_counts(neo, [gone])
    assert back[gone] > after[gone] > before[gone]
