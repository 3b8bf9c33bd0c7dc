"""Property-based: any sequence of writes and retires keeps the supersede invariants."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ryvem.application.service import Service
from ryvem.domain.model import SUPERSEDES, NodeVersion
from ryvem.domain.timeutil import Clock
from ryvem.errors import Conflict, NotFound

from .base import ContractBase

IDENTITIES = [
    ("task", "a", "global"),
    ("task", "b", "global"),
    ("decision", "a", "repo:33333333-3333-4333-8333-333333333333"),
]

OPS = st.lists(
    st.tuples(
        st.sampled_from(["write", "write", "retire"]),
        st.integers(0, len(IDENTITIES) - 1),
        st.sampled_from(["Alpha", "Beta", "Gamma"]),
    ),
    max_size=14,
)


class FrozenClock(Clock):
    """Every reading is the same microsecond."""

    def now(self) -> int:
        return 1_800_000_000_000_000


@dataclass
class Expected:
    """What the model says one identity's chain holds."""

    versions: list[tuple[str, bool]] = field(default_factory=list)  # (title, retired)
    current: str | None = None


def apply(
    svc: Service, ops: list[tuple[str, int, str]], seen: dict[str, NodeVersion]
) -> list[Expected]:
    model = [Expected() for _ in IDENTITIES]
    for n, (op, i, title) in enumerate(ops):
        kind, key, scope = IDENTITIES[i]
        exp = model[i]
        if op == "write":
            v = svc.write(kind, title, key=key, scope=scope)
            seen[v.id] = v
            if exp.current != title:
                exp.versions.append((title, False))
                exp.current = title
            assert v.is_current and v.title == title
        elif exp.current is not None:
            svc.retire(f"{kind}/{key}", scope=scope, reason=f"reason {n}")
            exp.versions[-1] = (exp.versions[-1][0], True)
            exp.current = None
        else:
            with pytest.raises(Conflict if exp.versions else NotFound):
                svc.retire(f"{kind}/{key}", scope=scope)
    return model


def check(svc: Service, model: list[Expected], seen: dict[str, NodeVersion]) -> None:
    repo = svc.repo
    versions = [v for batch in repo.iter_versions() for v, _ in batch]
    stored = {v.id: v for v in versions}
    for vid, written in seen.items():  # nothing is ever deleted or edited
        kept = stored[vid]
        assert (kept.title, kept.entity, kept.valid_from, kept.supersedes) == (
            written.title, written.entity, written.valid_from, written.supersedes
        )
    sup_edges = {(e.src, e.dst) for b in repo.iter_edges() for e in b if e.rel == SUPERSEDES}
    want_edges: set[tuple[str, str]] = set()
    for (kind, key, scope), exp in zip(IDENTITIES, model, strict=True):
        chain = sorted(
            (v for v in versions if v.identity == (kind, key, scope)), key=lambda v: v.valid_from
        )
        assert [(v.title, v.retired_reason is not None) for v in chain] == exp.versions
        current = [v for v in chain if v.is_current]
        assert [v.title for v in current] == ([] if exp.current is None else [exp.current])
        got = repo.get_identity((kind, key, scope), None)
        assert (got.id if got else None) == (current[0].id if current else None)
        if not chain:
            continue
        assert chain[0].supersedes is None and chain[-1].superseded_by is None
        assert {v.entity for v in chain} == {chain[0].id}
        for older, newer in pairwise(chain):
            assert older.valid_from < newer.valid_from
            assert older.superseded_by == newer.id and newer.supersedes == older.id
            assert older.valid_to is not None
            if older.retired_reason is None:
                assert older.valid_to == newer.valid_from
            else:
                assert older.valid_to < newer.valid_from
            want_edges.add((newer.id, older.id))
        for member in chain:
            assert [v.id for v in svc.history(member.id)] == [v.id for v in chain]
            assert svc.get(member.id, as_of=member.valid_from).id == member.id
            if member.valid_to is not None:
                assert svc.get(member.id, as_of=member.valid_to - 1).id == member.id
    assert sup_edges == want_edges
    listed = svc.search(None, all_scopes=True, limit=100)
    assert len(listed) == sum(exp.current is not None for exp in model)


class PropertiesContract(ContractBase):
    """Property-based: any sequence of writes and retires keeps the supersede invariants."""

    def test_random_writes_and_retires_keep_one_current_row_and_complete_chains(self) -> None:
        """Any mix of writes and retires leaves one current row per live identity and whole
        chains."""
        self.make_repository().close()  # a backend that cannot run skips here, before hypothesis
        counter = itertools.count()

        @settings(max_examples=30, deadline=None)
        @given(ops=OPS, frozen=st.booleans())
        def run(ops: list[tuple[str, int, str]], frozen: bool) -> None:
            # a fresh, empty store per example
            with self.fresh_repository(f"example-{next(counter)}") as repo:
                svc = Service(repo, clock=FrozenClock() if frozen else None)
                seen: dict[str, NodeVersion] = {}
                check(svc, apply(svc, ops, seen), seen)

        run()
        assert next(counter) >= 30  # every example really ran against its own store
