"""``kill -9`` a writer at a random moment: after reopening, nothing acknowledged is lost.

A worker prints an ack line only after a call returned (worker.py), so every ack is a write
the user was told had happened. One store lives through every kill in turn, so later rounds
also reopen a file that earlier kills left behind (including, in early rounds, a kill during
the first open's schema creation).
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import pytest

from reliability.harness import service, spawn
from reliability.invariants import Acks, assert_invariants, schema_version, snapshot


def kill_writers(tmp_path: Path, rounds: int, seed: int) -> tuple[Acks, int]:
    """Run ``rounds`` crash workers, each killed with SIGKILL after a random delay."""
    rng = random.Random(seed)
    db = tmp_path / "crash.db"
    acks = Acks()
    killed_mid_write = 0
    for n in range(rounds):
        before = snapshot(db) if schema_version(db) else None
        proc = spawn("crash", db, seed * 1000 + n)
        time.sleep(rng.uniform(0.05, 1.2))
        os.kill(proc.pid, signal.SIGKILL)
        out, _err = proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL, f"round {n}: the worker ended on its own"
        lines = out.splitlines()
        assert not [line for line in lines if line.startswith("error ")], lines
        acks.read(lines)
        killed_mid_write += any(line.startswith("ack ") for line in lines)
        if not db.exists():
            continue  # killed before the file was created: the next round creates it
        assert_invariants(db, acks=acks, before=before)
    # The store still takes writes after all that.
    svc = service(db)
    v = svc.write("decision", "after the crashes", key="after")
    assert svc.get("decision/after").id == v.id
    svc.repo.close()
    assert_invariants(db, acks=acks)
    return acks, killed_mid_write


def test_a_writer_killed_at_random_moments_loses_no_acknowledged_write(tmp_path: Path) -> None:
    """6 kill -9s of a busy writer: every invariant holds and every acked write is there."""
    acks, busy = kill_writers(tmp_path, rounds=6, seed=3)
    assert busy >= 3, "most kills hit a worker that was writing"
    assert len(acks) > 0


@pytest.mark.heavy
def test_fifty_kills_of_a_writer_lose_no_acknowledged_write(tmp_path: Path) -> None:
    """50 kill -9s at random moments: after each reopen every invariant and ack holds."""
    started = time.monotonic()
    acks, busy = kill_writers(tmp_path, rounds=50, seed=50)
    assert busy >= 30
    took = time.monotonic() - started
    print(f"\n50 kills ({busy} mid-write): {len(acks)} acks kept, {took:.1f} s")
