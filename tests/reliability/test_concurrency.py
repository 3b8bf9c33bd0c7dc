"""Concurrent processes on one SQLite file: nothing lost, no lock error reaches a user.

The small variants run in every ``pytest``; the full-size ones (8 x 250 supersedes with 4
readers, 16 x 500 random operations) are marked ``heavy`` and run by ``.ci/run``.
"""

from __future__ import annotations

import time
from itertools import pairwise
from pathlib import Path

import pytest

from reliability.harness import Report, finish, service, spawn
from reliability.invariants import Acks, assert_invariants


def _no_lock_errors(reports: list[Report]) -> None:
    for r in reports:
        assert r.code == 0, f"a worker failed: {r.errors or r.stderr[-2000:]}"
        assert not r.errors, r.errors
        assert "locked" not in r.stderr.lower() and "Traceback" not in r.stderr, r.stderr[-2000:]


def race_one_identity(
    tmp_path: Path, writers: int, per_writer: int, readers: int, seed: int
) -> float:
    """Writers supersede decision/race while readers read it; return the seconds it took."""
    db = tmp_path / "race.db"
    svc = service(db)
    first = svc.write("decision", "race start", key="race")
    stop = tmp_path / "stop"
    reading = [spawn("reader", db, stop, seed * 100 + i) for i in range(readers)]
    for p in reading:  # every reader is reading before the first writer starts
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    started = time.monotonic()
    writing = [spawn("supersede", db, per_writer, f"w{i}", seed * 1000 + i) for i in range(writers)]
    wrote = [finish(p) for p in writing]
    elapsed = time.monotonic() - started
    stop.touch()
    read = [finish(p, timeout=120) for p in reading]
    _no_lock_errors(wrote + read)
    assert all(r.done > 0 for r in read), "every reader read while the writers wrote"
    acks = Acks()
    for r in wrote:
        acks.read(r.lines)
    assert len(acks.nodes) == writers * per_writer

    chain = svc.history("decision/race")
    assert len(chain) == 1 + writers * per_writer
    assert chain[0].id == first.id and {v.entity for v in chain} == {first.id}
    assert acks.nodes == {v.id for v in chain[1:]}
    assert [v.is_current for v in chain] == [False] * (len(chain) - 1) + [True]
    for old, new in pairwise(chain):
        assert old.valid_to == new.valid_from and new.supersedes == old.id
    # Each writer's own writes appear in the order it made them.
    for i in range(writers):
        mine = [v.title for v in chain if v.title.startswith(f"race w{i} ")]
        assert mine == [f"race w{i} {n}" for n in range(per_writer)]
    svc.repo.close()
    assert_invariants(db, acks=acks)
    return elapsed


def random_operations(tmp_path: Path, procs: int, ops: int, seed: int) -> Acks:
    """``procs`` processes each run ``ops`` random operations over 50 identities."""
    db = tmp_path / "random.db"
    service(db).repo.close()
    reports = [finish(p) for p in [spawn("random", db, ops, seed * 100 + i) for i in range(procs)]]
    _no_lock_errors(reports)
    assert sum(r.done for r in reports) == procs * ops
    acks = Acks()
    for r in reports:
        acks.read(r.lines)
    assert acks.nodes and acks.edges and acks.retired, "the mix wrote, linked and retired"
    assert_invariants(db, acks=acks)
    return acks


def test_concurrent_supersedes_of_one_identity_form_one_complete_chain(tmp_path: Path) -> None:
    """3 processes x 40 supersedes of one key, 2 readers: 121 versions, one chain, no lock error."""
    race_one_identity(tmp_path, writers=3, per_writer=40, readers=2, seed=1)


@pytest.mark.heavy
@pytest.mark.parametrize("seed", [11, 22, 33])
def test_eight_processes_superseding_one_identity_leave_exactly_2001_versions(
    tmp_path: Path, seed: int
) -> None:
    """8 processes x 250 supersedes with 4 readers: exactly 2,001 versions in one chain."""
    elapsed = race_one_identity(tmp_path, writers=8, per_writer=250, readers=4, seed=seed)
    print(f"\n8x250 supersedes, 4 readers, seed {seed}: {elapsed:.1f} s")


def test_concurrent_random_operations_keep_every_invariant(tmp_path: Path) -> None:
    """4 processes x 120 random writes, links, unlinks, retires and searches: invariants hold."""
    random_operations(tmp_path, procs=4, ops=120, seed=7)


@pytest.mark.heavy
def test_sixteen_processes_of_random_operations_keep_every_invariant(tmp_path: Path) -> None:
    """16 processes x 500 random operations over 50 identities: every invariant holds."""
    started = time.monotonic()
    acks = random_operations(tmp_path, procs=16, ops=500, seed=16)
    print(f"\n16x500 random ops: {len(acks)} acks in {time.monotonic() - started:.1f} s")


def test_a_writer_waits_out_a_lock_held_longer_than_the_busy_timeout(tmp_path: Path) -> None:
    """Another program holds the write lock for 7 s (busy_timeout is 5 s): the write still lands."""
    db = tmp_path / "held.db"
    svc = service(db)
    holder = spawn("hold", db, 7)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    started = time.monotonic()
    v = svc.write("decision", "after the lock", key="held")
    waited = time.monotonic() - started
    assert finish(holder).code == 0
    assert waited > 5, "the write really waited for the lock"
    assert svc.get("decision/held").id == v.id
    svc.repo.close()
    assert_invariants(db)
