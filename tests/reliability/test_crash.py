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
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from reliability.harness import RYVEM, service, spawn
from reliability.invariants import Acks, assert_invariants, schema_version, snapshot


def startup_lag(db: Path) -> float:
    """How much longer than on an idle machine (about 0.3 s) a worker takes here to reach its
    first write: the kill delays shift by it, so a loaded machine still kills mid-write."""
    started = time.monotonic()
    proc = spawn("crash", db, 0)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("ack "):
            break
    took = time.monotonic() - started
    proc.kill()
    proc.communicate(timeout=60)
    return max(0.0, took - 0.3)


def kill_writers(tmp_path: Path, rounds: int, seed: int) -> tuple[Acks, int]:
    """Run ``rounds`` crash workers, each killed with SIGKILL after a random delay."""
    rng = random.Random(seed)
    db = tmp_path / "crash.db"
    acks = Acks()
    killed_mid_write = 0
    lag = startup_lag(tmp_path / "calibrate.db")
    for n in range(rounds):
        before = snapshot(db) if schema_version(db) else None
        proc = spawn("crash", db, seed * 1000 + n)
        time.sleep(lag + rng.uniform(0.05, 1.2))
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


def make_vault(root: Path, pages: int, seed: int) -> Path:
    """A synthetic vault: pages in ten folders, front matter, and links (some dangling)."""
    rng = random.Random(seed)
    words = ["cache", "index", "graph", "memory", "agent", "latency"]
    for i in range(pages):
        folder = root / f"area{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        links = " ".join(f"[[p{rng.randrange(pages + pages // 6)}]]" for _ in range(4))
        text = " ".join(rng.choice(words) for _ in range(60))
        (folder / f"p{i}.md").write_text(
            f"---\ntags: [t{i % 7}]\n---\n# Page {i}\n\n{text}\n\nSee {links}.\n")
    return root


def projection(db: Path) -> tuple[list[Any], list[Any]]:
    """What an import produced, without ids or times: rows and edges named by their keys."""
    c = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True)
    try:
        key = dict(c.execute("SELECT entity, key FROM nodes"))
        nodes = sorted(c.execute(
            "SELECT kind, key, scope, title, body, data, valid_to IS NULL FROM nodes"))
        edges = sorted((rel, key[src], key[dst], current) for rel, src, dst, current in c.execute(
            "SELECT rel, src, dst, valid_to IS NULL FROM edges"))
    finally:
        c.close()
    return nodes, edges


def import_killed_then_rerun(tmp_path: Path, pages: int, kills: int, seed: int) -> None:
    vault = make_vault(tmp_path / "vault", pages, seed)
    clean, crashed = tmp_path / "clean.db", tmp_path / "crashed.db"
    # --no-embed: this is about the import's writes; embedding (after them, in its own
    # short transactions) would only stretch each run by minutes of model time.
    args = ["graph", "--db", "DB", "import", str(vault), "--scope", "global", "--json",
            "--no-embed"]

    def run_import(db: Path) -> subprocess.Popen[bytes]:
        return subprocess.Popen([str(RYVEM), *[str(db) if a == "DB" else a for a in args]],
                                cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    started = time.monotonic()
    done = run_import(clean)
    assert done.wait(timeout=600) == 0, done.stderr.read() if done.stderr else ""
    full = time.monotonic() - started
    rng = random.Random(seed)
    killed = partial = 0
    delay = full * 0.6
    # The kill delay adapts to the machine's speed now (a loaded machine imports slower than
    # the clean run suggested): too early (nothing committed yet) → later; too late (every page
    # already in) → sooner, on a fresh store, since a complete store cannot be cut midway.
    while killed < kills or (not partial and killed < 4 * kills):
        before = snapshot(crashed) if schema_version(crashed) else None
        proc = run_import(crashed)
        time.sleep(rng.uniform(0.2, 1.0) * delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
        if proc.returncode != -signal.SIGKILL:
            delay /= 2  # it finished first: kill sooner next time
            continue
        killed += 1
        rows = 0
        if schema_version(crashed):
            assert_invariants(crashed, before=before)
            rows = len(projection(crashed)[0])
            partial += 0 < rows < pages
        if rows == 0:
            delay *= 1.5
        elif rows >= pages and not partial:
            delay *= 0.6
            for leftover in tmp_path.glob("crashed.db*"):
                leftover.unlink()
    assert partial, "at least one kill landed in the middle of the import"
    rerun = run_import(crashed)
    _out, err = rerun.communicate(timeout=600)
    assert rerun.returncode == 0, err.decode()
    assert_invariants(crashed)
    assert projection(crashed) == projection(clean)


def test_an_import_killed_midway_then_rerun_equals_a_clean_import(tmp_path: Path) -> None:
    """kill -9 an import of 1,500 pages twice, re-run it: the same graph as one clean import."""
    import_killed_then_rerun(tmp_path, pages=1500, kills=2, seed=5)


@pytest.mark.heavy
def test_an_import_killed_five_times_then_rerun_equals_a_clean_import(tmp_path: Path) -> None:
    """kill -9 an import of 3,000 pages five times, re-run it: the same graph as a clean one."""
    import_killed_then_rerun(tmp_path, pages=3000, kills=5, seed=6)
