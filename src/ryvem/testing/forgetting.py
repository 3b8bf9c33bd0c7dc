"""Forgetting: redact a text from every version and edge, purge a node's content, the audit.

What every backend must do: the text is gone from every version (current and past), every
edge's data, every link target and the full-text index; nothing else changes — not the
skeleton of the versions it touched (ids, kinds, keys, scopes, windows, chains), not any other
node; and each act leaves one audit entry that never holds the text. The SQLite files'
bytes are scanned in tests/reliability/test_forget.py; the Neo4j server's every property in
tests/integration/test_neo4j_forget.py.
"""

from __future__ import annotations

import threading
from itertools import pairwise
from typing import Any

import pytest

from ryvem.application.forget import Actor
from ryvem.application.service import Service
from ryvem.domain.model import Edge, NodeVersion
from ryvem.domain.redaction import PURGED, REDACTED
from ryvem.domain.timeutil import format_us
from ryvem.errors import InvalidInput
from ryvem.ports import GraphRepository

from .base import ContractBase

SECRET = "sk-LIVE-9f8e7d6c5b4a3210"
SKELETON = ("id", "entity", "kind", "key", "scope", "valid_from", "valid_to", "superseded_by",
            "supersedes")
EDGE_SKELETON = ("id", "rel", "src", "dst", "valid_from", "valid_to")


def versions(repo: GraphRepository) -> dict[str, tuple[NodeVersion, tuple[str, ...]]]:
    return {v.id: (v, t) for batch in repo.iter_versions() for v, t in batch}


def edges(repo: GraphRepository) -> dict[str, Edge]:
    return {e.id: e for batch in repo.iter_edges() for e in batch}


def holds(value: Any, text: str) -> bool:
    """Whether ``text`` is anywhere in a value (strings, keys, lists, models), case-folded too."""
    if isinstance(value, NodeVersion | Edge):
        value = value.model_dump()
    blob = repr(value)
    return text in blob or text.casefold() in blob.casefold()


def plant(svc: Service) -> dict[str, NodeVersion]:
    """A secret in titles, bodies, data values and keys, link targets, a retire reason and
    edge data, over several versions of two nodes; and unrelated nodes around them."""
    out: dict[str, NodeVersion] = {}
    out["other"] = svc.write("decision", "Unrelated", key="other", body="see [[cache]]",
                             data={"status": "open"})
    out["cache"] = svc.write("decision", "Cache in process", key="cache", body="plain text")
    svc.write("task", f"Rotate {SECRET}", key="rotate", body=f"the key is {SECRET}.",
              data={"token": SECRET, "nested": {"list": ["x", f"pre{SECRET}post"]},
                    SECRET: "as a key"})
    svc.write("task", "Rotate the key", key="rotate",
              body=f"Wrote it to [[vault/{SECRET}]] and [[cache]]", data={"n": 1})
    out["rotate"] = svc.write("task", "Rotate the key (done)", key="rotate", body="done")
    svc.write("page", "Notes", key="notes", body=f"token={SECRET}; see [[other]]")
    out["notes"] = svc.retire("page/notes", reason=f"leaked {SECRET}")
    svc.link("task/rotate", "decision/cache", "about", data={"why": f"used {SECRET}"})
    svc.link("decision/other", "decision/cache", "depends-on", data={"why": "speed"})
    out["board"] = svc.write("decision", f"Board copy {SECRET}", key="board-copy",
                             scope="board:team")
    return out


class ForgettingContract(ContractBase):
    """Redact and purge on this backend: gone everywhere, nothing else changed, audited."""

    def test_a_redacted_secret_is_gone_from_every_version_edge_and_target_and_nothing_else_changed(
        self, repo: GraphRepository, service: Service
    ) -> None:
        planted = plant(service)
        before_v, before_e = versions(repo), edges(repo)
        assert any(holds(v, SECRET) for v in before_v.values())
        report = service.redact(SECRET, reason="pasted a live key",
                                actor=Actor("alice", "library"))
        after_v, after_e = versions(repo), edges(repo)
        assert set(after_v) == set(before_v) and set(after_e) == set(before_e)
        global_ids = {i for i, (v, _) in before_v.items() if v.scope == "global"}
        for vid, (v, targets) in after_v.items():
            old, old_targets = before_v[vid]
            assert [getattr(v, f) for f in SKELETON] == [getattr(old, f) for f in SKELETON]
            if vid in global_ids:
                assert not holds(v, SECRET) and not holds(targets, SECRET), v
            changed = (v.title, v.body, v.data, v.retired_reason, targets) != (
                old.title, old.body, old.data, old.retired_reason, old_targets)
            assert (v.erased == "redacted") == changed, v
            if not changed:
                assert v == old and targets == old_targets
        for eid, e in after_e.items():
            old_e = before_e[eid]
            assert [getattr(e, f) for f in EDGE_SKELETON] == [
                getattr(old_e, f) for f in EDGE_SKELETON]
            assert not holds(e, SECRET)
            assert (e.data == old_e.data) == (not holds(old_e, SECRET))
        # The other scope was not searched: its copy stays until that scope is redacted.
        assert SECRET in service.get("decision/board-copy", scope="board:team").title
        rotate = service.history("task/rotate")
        assert len(rotate) == 3
        assert rotate[0].title == f"Rotate {REDACTED}"
        assert rotate[0].data == {"token": REDACTED,
                                  "nested": {"list": ["x", f"pre{REDACTED}post"]},
                                  REDACTED: "as a key", }
        assert rotate[1].erased == "redacted" and rotate[2].erased is None
        assert service.get("page/notes").retired_reason == f"leaked {REDACTED}"
        unrelated = [planted["other"], planted["cache"]]
        for v in unrelated:
            assert service.get(v.id) == v
        assert report.versions == 3 and report.edges == 1
        assert {n.ref: n.versions for n in report.nodes} == {"task/rotate": 2, "page/notes": 1}
        [entry] = service.audit()
        assert entry.action == "redact" and entry.reason == "pasted a live key"
        assert (entry.who, entry.via, entry.scope) == ("alice", "library", "global")
        assert (entry.versions, entry.edges) == (3, 1)
        assert not holds(entry, SECRET) and not holds(entry, SECRET[:12])

    def test_no_search_finds_a_redacted_secret_now_or_as_of_any_time(
        self, repo: GraphRepository, service: Service
    ) -> None:
        plant(service)
        times = sorted({v.valid_from for v, _ in versions(repo).values()})
        word = SECRET.rsplit("-", 1)[-1]
        first = service.history("task/rotate")[0].valid_from
        assert service.search(word, all_scopes=True)
        assert service.search(word, as_of=format_us(first))
        service.redact(SECRET, all_scopes=True)
        for text in (SECRET, word, "9f8e7d6c5b4a3210", "LIVE"):
            assert service.search(text, all_scopes=True) == []
            for t in times:
                assert service.search(text, all_scopes=True, as_of=format_us(t)) == []
        assert service.search("Rotate", all_scopes=True)  # the rest still searches
        assert service.search("redacted", all_scopes=True)

    def test_a_dry_run_counts_per_node_and_changes_nothing(
        self, repo: GraphRepository, service: Service
    ) -> None:
        plant(service)
        before_v, before_e = versions(repo), edges(repo)
        report = service.redact(SECRET, dry_run=True, all_scopes=True)
        assert report.dry_run and report.entry is None
        assert {n.ref: n.versions for n in report.nodes} == {
            "task/rotate": 2, "page/notes": 1, "decision/board-copy": 1}
        assert (report.versions, report.edges) == (3 + 1, 1)
        assert not holds(report.record(), SECRET)
        assert versions(repo) == before_v and edges(repo) == before_e
        assert service.audit() == []

    def test_redacting_a_text_no_row_holds_records_no_audit_entry_and_cleans_nothing(
        self, repo: GraphRepository, service: Service, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A text already gone (or never written) is not an error, and writes nothing: no
        audit entry, no cleanup of the store's files; the report counts 0 and has no entry."""
        plant(service)
        before_v, before_e = versions(repo), edges(repo)
        scrubbed: list[object] = []
        monkeypatch.setattr(repo, "scrub", lambda progress=None: scrubbed.append(progress))
        for scope, all_scopes in ((None, False), ("board:team", False), (None, True)):
            report = service.redact("sk-NEVER-written-0000", scope=scope, all_scopes=all_scopes,
                                    reason="rotation sweep")
            assert report.entry is None and report.record()["audit"] is None
            assert (report.versions, report.edges, report.nodes) == (0, 0, [])
            assert report.found_nothing and not report.dry_run
        assert service.audit() == []
        assert scrubbed == []
        assert versions(repo) == before_v and edges(repo) == before_e

    def test_a_key_holding_the_text_is_refused_naming_the_node_and_nothing_changes(
        self, repo: GraphRepository, service: Service
    ) -> None:
        stuck = service.write("task", "t", key=f"keys/{SECRET}", body=SECRET)
        service.write("task", "u", key="plain", body=SECRET)
        before = versions(repo)
        with pytest.raises(InvalidInput, match=rf"task {stuck.id}.*purge") as refused:
            service.redact(SECRET)
        assert SECRET not in refused.value.message  # named by id: the key would repeat it
        assert f"task {stuck.id} (its key)" in refused.value.message
        with pytest.raises(InvalidInput, match=rf"task {stuck.id} \(its folded key\)"):
            service.redact(SECRET.lower())  # the key as links compare it (folded) holds it
        assert versions(repo) == before and service.audit() == []

    def test_short_text_is_refused_unless_forced_and_the_markers_never(
        self, service: Service
    ) -> None:
        service.write("task", "the pin is 4711", key="pin")
        with pytest.raises(InvalidInput, match="under 8"):
            service.redact("4711")
        assert service.audit() == []
        assert service.redact("4711", force=True).versions == 1
        assert service.get("task/pin").title == f"the pin is {REDACTED}"
        for marker in ("redacted", "[redacted]", "purged]"):
            with pytest.raises(InvalidInput, match="markers"):
                service.redact(marker, force=True)
        for bad in ("", "\ud800abcdefgh"):
            with pytest.raises(InvalidInput):
                service.redact(bad, force=True)

    def test_hostile_text_is_matched_literally(self, service: Service) -> None:
        """Regex characters, quotes, backslashes, a NUL and 1 MB are plain text to find."""
        regex = r'.*(a|b)+[^x]?\d{2}$^"quoted" \'single\' \\back\slash%_'
        service.write("task", "regex", key="regex", body=f"<{regex}>", data={"v": regex})
        service.write("task", "near", key="near", body="aab 12 quoted single back slash")
        big = "M" * (1024 * 1024 - 2) + "\u00e9!"
        service.write("page", "big", key="big", body=f"start {big} end")
        report = service.redact(regex)
        assert report.versions == 1
        assert service.get("task/regex").body == f"<{REDACTED}>"
        assert service.get("task/regex").data == {"v": REDACTED}
        assert service.get("task/near").erased is None
        assert service.redact("back\x00slash ok").versions == 0  # a NUL is a character too
        assert service.redact(big).versions == 1
        assert service.get("page/big").body == f"start {REDACTED} end"
        assert [e.versions for e in service.audit()] == [1, 1]  # the NUL one found nothing

    def test_a_redaction_in_one_scope_leaves_the_others(self, service: Service) -> None:
        service.write("task", f"a {SECRET}", key="a")
        service.write("task", f"b {SECRET}", key="b", scope="board:team")
        assert service.redact(SECRET, scope="board:team").versions == 1
        assert SECRET in service.get("task/a").title
        assert service.get("task/b", scope="board:team").title == f"b {REDACTED}"
        assert service.audit()[0].scope == "board:team"

    def test_a_purge_erases_every_version_and_its_edges_data_and_keeps_the_shape(
        self, repo: GraphRepository, service: Service
    ) -> None:
        planted = plant(service)
        chain = service.history("task/rotate")
        before_v, before_e = versions(repo), edges(repo)
        walk = [(s.src.entity, s.dst.entity, s.rel)
                for s in service.traverse("task/rotate", direction="both")]
        report = service.purge("task/rotate", reason="all of it", actor=Actor("bob", "cli"))
        assert report.versions == 3 and report.edges >= 2
        after = service.history("task/rotate")
        assert [v.id for v in after] == [v.id for v in chain]
        for old, new in zip(chain, after, strict=True):
            assert [getattr(new, f) for f in SKELETON] == [getattr(old, f) for f in SKELETON]
            assert (new.title, new.body, new.data, new.erased) == (PURGED, "", {}, "purged")
            assert repo.link_targets(new.id) == ()
        assert service.get("task/rotate", as_of=chain[0].valid_from).title == PURGED
        assert [(s.src.entity, s.dst.entity, s.rel)
                for s in service.traverse("task/rotate", direction="both")] == walk
        after_e = edges(repo)
        entity = chain[0].entity
        for eid, e in after_e.items():
            if entity in (e.src, e.dst) and e.rel != "supersedes":
                assert e.data == {}
            else:
                assert e == before_e[eid]
        for vid, (v, t) in versions(repo).items():
            if v.entity != entity:
                assert (v, t) == before_v[vid]
        assert service.get(planted["other"].id) == planted["other"]
        [entry] = service.audit()
        assert (entry.action, entry.node, entry.reason, entry.who) == (
            "purge", f"task {chain[0].entity}", "all of it", "bob")
        assert (entry.versions, entry.edges) == (3, report.edges)
        # A purged node is written again like any other: the next version has content.
        v = service.write("task", "Rotate again", key="rotate")
        assert v.erased is None and v.supersedes == chain[-1].id

    def test_purging_a_node_purged_already_audits_nothing_unless_something_new_holds_data(
        self, service: Service
    ) -> None:
        """A second purge wrote another entry claiming "2 versions" erased, though nothing
        was. Now it changes nothing and audits nothing; an edge given data since, or a new
        version, is purged and audited as ever."""
        service.write("task", f"t {SECRET}", key="t")
        service.write("task", "t again", key="t")
        service.write("task", "other", key="o")
        first = service.purge("task/t", reason="asked to")
        assert (first.versions, first.found_nothing) == (2, False)
        again = service.purge("task/t", reason="asked again")
        assert (again.versions, again.edges, again.entry, again.found_nothing) == (
            0, 0, None, True)
        assert [e.reason for e in service.audit()] == ["asked to"]
        service.link("task/o", "task/t", "blocks", data={"why": "still"})
        third = service.purge("task/t", reason="the edge")
        assert (third.versions, third.edges, third.found_nothing) == (0, 1, False)
        service.write("task", f"t {SECRET} once more", key="t")
        fourth = service.purge("task/t", reason="the new version")
        assert (fourth.versions, fourth.edges) == (1, 0)  # only what held content
        assert [e.reason for e in service.audit()] == ["the new version", "the edge", "asked to"]
        assert [v.erased for v in service.history("task/t")] == ["purged"] * 3

    def test_a_purge_names_the_node_by_kind_and_id_never_by_a_key_holding_a_secret(
        self, service: Service
    ) -> None:
        """A key can be the secret itself (redact refuses TEXT inside a key): the audit
        entry, which is never changed or deleted, names the node by kind and id (it named it
        by kind/key, so a purge wrote the secret into the audit for good)."""
        v = service.write("page", "Token", key=f"keys/{SECRET}", body="see the key")
        report = service.purge(v.id, reason="key pasted as a page name")
        assert report.entry is not None and report.entry.node == f"page {v.entity}"
        assert not any(holds(e, SECRET) for e in service.audit())

    def test_purging_an_unknown_node_is_invalid_input_and_changes_nothing(
        self, repo: GraphRepository, service: Service
    ) -> None:
        plant(service)
        before = versions(repo)
        with pytest.raises(InvalidInput, match=r"no node 'nope'.*nothing was purged"):
            service.purge("nope")
        assert versions(repo) == before and service.audit() == []

    def test_a_redacted_then_purged_version_says_purged_and_the_audit_is_newest_first(
        self, service: Service
    ) -> None:
        service.write("task", f"t {SECRET}", key="t")
        service.redact(SECRET, reason="first")
        assert service.get("task/t").erased == "redacted"
        service.purge("task/t", reason="second")
        assert service.get("task/t").erased == "purged"
        # Held by another node: a redaction that finds nothing is not audited.
        service.write("task", "u", key="u", body="purge-proof text")
        service.redact("purge-proof text", reason="third")
        assert service.get("task/t").erased == "purged"
        assert [e.reason for e in service.audit()] == ["third", "second", "first"]
        assert [e.action for e in service.audit()] == ["redact", "purge", "redact"]

    def test_a_redaction_racing_writers_loses_no_write_and_leaves_no_copy(
        self, repo: GraphRepository, service: Service
    ) -> None:
        for i in range(10):
            service.write("task", f"t{i} {SECRET}", key=f"t{i}", body=f"v0 {SECRET}")
        acked: list[NodeVersion] = []
        failures: list[BaseException] = []
        stop = threading.Event()
        started = threading.Barrier(3)

        def writer(w: int) -> None:
            handle = self.open_another()
            try:
                svc = Service(handle)
                started.wait()
                n = 0
                while not stop.is_set() or n < 5:
                    acked.append(svc.write("task", f"w{w} {n}", key=f"t{(w + n) % 10}",
                                           body=f"writer {w} step {n}"))
                    acked.append(svc.write("note", f"own {w} {n}", key=f"own-{w}-{n}"))
                    n += 1
            except BaseException as e:
                failures.append(e)
            finally:
                handle.close()

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(2)]
        for t in threads:
            t.start()
        started.wait()
        service.redact(SECRET)
        stop.set()
        for t in threads:
            t.join(timeout=120)
        assert not failures, failures
        stored = versions(repo)
        for v in acked:
            assert v.id in stored
            got = stored[v.id][0]
            assert (got.title, got.body) == (v.title, v.body)
        assert not any(holds(v, SECRET) or holds(t, SECRET) for v, t in stored.values())
        assert service.search("9f8e7d6c5b4a3210", all_scopes=True) == []
        for i in range(10):
            chain = service.history(f"task/t{i}")
            assert all(a.superseded_by == b.id for a, b in pairwise(chain))
