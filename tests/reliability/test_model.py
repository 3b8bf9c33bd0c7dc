"""Random operation sequences against the real service, compared with the in-memory model.

Hypothesis drives writes, unkeyed appends, retires, links, unlinks, searches and as-of
reads on a real SQLite file; after every step the store must agree with ``model.py`` (every
chain's contents and states, the current user edges and ``links`` edges, search results) and
at the end every invariant of ``invariants.py`` holds.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from reliability.invariants import problems
from reliability.model import Identity, Model, ModelError
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.errors import Conflict, NotFound

KINDS = ["task", "page"]
KEYS = ["a", "b", "c"]
SCOPES = ["global", "board:team"]
WORDS = ["alpha", "beta", "gamma"]
LINKS = ["[[a]]", "[[B]]", "[[c]]", "[[zz]]", "[[a|alias]]"]
RELS = ["about", "depends-on"]

identities = st.tuples(st.sampled_from(KINDS), st.sampled_from(KEYS), st.sampled_from(SCOPES))
titles = st.sampled_from(["One", "Two alpha", "Three beta"])
bodies = st.lists(st.sampled_from(WORDS + LINKS), max_size=4).map(" ".join)
datas = st.sampled_from([{}, {"n": 1}, {"n": 2, "tags": ["x"]}])


class ServiceAgreesWithModel(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="ryvem-model-"))
        self.db = self.dir / "ryvem.db"
        self.svc = Service(SqliteRepository.open(self.db))
        self.model = Model()
        self.entity: dict[int, str] = {}  # model order -> the store's entity id

    def teardown(self) -> None:
        try:
            self.svc.repo.close()
            found = problems(self.db)
            assert not found, found
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def expect(self, call: Any, model_call: Any) -> Any:
        """Run both; they must succeed together or fail with the same error type."""
        try:
            want = model_call()
        except ModelError as e:
            with pytest.raises(NotFound if e.kind == "NotFound" else Conflict):
                call()
            return None
        got = call()
        return want, got

    # --- operations ----------------------------------------------------------------------
    @rule(ident=identities, title=titles, body=bodies, data=datas)
    def write(self, ident: Identity, title: str, body: str, data: dict[str, Any]) -> None:
        kind, key, scope = ident
        node_request = self.svc.prepare(kind, title, key=key, scope=scope, body=body, data=data)
        outcome, node = self.model.write(kind, key, scope, title, body, data)
        [result] = self.svc.write_many([node_request])
        assert result.outcome == outcome
        self.entity.setdefault(node.order, result.version.entity)
        assert self.entity[node.order] == result.version.entity

    @rule(kind=st.sampled_from(KINDS), scope=st.sampled_from(SCOPES), body=bodies)
    def append(self, kind: str, scope: str, body: str) -> None:
        _, node = self.model.write(kind, None, scope, "Note", body, {})
        v = self.svc.write(kind, "Note", scope=scope, body=body)
        self.entity[node.order] = v.entity

    @rule(ident=identities, reason=st.sampled_from([None, "done"]))
    def retire(self, ident: Identity, reason: str | None) -> None:
        kind, key, scope = ident
        self.expect(lambda: self.svc.retire(f"{kind}/{key}", scope=scope, reason=reason),
                    lambda: self.model.retire(ident))

    @rule(a=identities, b_kind=st.sampled_from(KINDS), b_key=st.sampled_from(KEYS),
          rel=st.sampled_from(RELS), data=datas)
    def link(self, a: Identity, b_kind: str, b_key: str, rel: str, data: dict[str, Any]) -> None:
        b = (b_kind, b_key, a[2])
        self.expect(
            lambda: self.svc.link(f"{a[0]}/{a[1]}", f"{b_kind}/{b_key}", rel, data=data,
                                  scope=a[2]),
            lambda: self.model.link(a, b, rel, data))

    @rule(a=identities, b_kind=st.sampled_from(KINDS), b_key=st.sampled_from(KEYS),
          rel=st.sampled_from(RELS))
    def unlink(self, a: Identity, b_kind: str, b_key: str, rel: str) -> None:
        b = (b_kind, b_key, a[2])
        self.expect(
            lambda: self.svc.unlink(f"{a[0]}/{a[1]}", f"{b_kind}/{b_key}", rel, scope=a[2]),
            lambda: self.model.unlink(a, b, rel))

    @rule(word=st.sampled_from([*WORDS, "one", "two", "note", "alias", "a", "b", "zz"]))
    def search(self, word: str) -> None:
        hits = self.svc.search(word, all_scopes=True, limit=1000)
        found = {self.svc.resolve(h.id, allow_closed=True).entity for h in hits}
        # A row's title, key and body are searched (these words stem to nothing shared).
        want = {self.entity[n.order] for n in self.model.nodes if n.current
                and word in re.findall(r"[a-z0-9]+",
                                       f"{n.head.title} {n.key or ''} {n.head.body}".lower())}
        assert found == want

    @rule(ident=identities, data=st.data())
    def read_as_of(self, ident: Identity, data: st.DataObject) -> None:
        node = self.model.by_identity.get(ident)
        if node is None:
            return
        chain = self.svc.repo.chain(self.entity[node.order])
        i = data.draw(st.integers(0, len(chain) - 1))
        got = self.svc.get(f"{ident[0]}/{ident[1]}", scope=ident[2], as_of=chain[i].valid_from)
        assert (got.title, got.body) == (node.versions[i].title, node.versions[i].body)

    # --- agreement after every step --------------------------------------------------------
    @invariant()
    def chains_agree(self) -> None:
        for node in self.model.nodes:
            chain = self.svc.repo.chain(self.entity[node.order])
            assert [(v.title, v.body, v.data) for v in chain] == [
                (m.title, m.body, m.data) for m in node.versions]
            for v, nxt in zip(chain, [*chain[1:], None], strict=True):
                retired = v.valid_to is not None and (nxt is None or v.valid_to < nxt.valid_from)
                assert retired == node.versions[chain.index(v)].retired
                if nxt is not None and not retired:
                    assert v.valid_to == nxt.valid_from

    @invariant()
    def edges_agree(self) -> None:
        order = {e: o for o, e in self.entity.items()}
        user: dict[tuple[int, int, str], dict[str, Any]] = {}
        links: set[tuple[int, int]] = set()
        for batch in self.svc.repo.iter_edges():
            for e in batch:
                if e.valid_to is not None or e.rel == "supersedes":
                    continue
                if e.rel == "links":
                    links.add((order[e.src], order[e.dst]))
                else:
                    user[(order[e.src], order[e.dst], e.rel)] = e.data
        assert user == self.model.edges
        assert links == self.model.links


def _run(examples: int, steps: int) -> None:
    ServiceAgreesWithModel.TestCase.settings = settings(
        max_examples=examples, stateful_step_count=steps, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    ServiceAgreesWithModel.TestCase().runTest()


def test_random_operation_sequences_agree_with_the_model() -> None:
    """100 random sequences of up to 40 operations: store and model agree after every step."""
    _run(examples=100, steps=40)


@pytest.mark.heavy
def test_many_long_random_operation_sequences_agree_with_the_model() -> None:
    """500 random sequences of up to 80 operations agree with the model."""
    _run(examples=500, steps=80)
