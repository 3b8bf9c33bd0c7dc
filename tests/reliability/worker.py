"""A separate process the reliability tests spawn: it uses ryvem as a user would and reports.

    python worker.py supersede DB COUNT TAG SEED   COUNT supersedes of decision/race
    python worker.py reader    DB STOPFILE SEED    reads until STOPFILE exists
    python worker.py random    DB COUNT SEED       COUNT random operations over 50 identities
    python worker.py crash     DB SEED             random writes until killed
    python worker.py hold      DB SECONDS          hold the write lock (raw BEGIN IMMEDIATE)
    python worker.py redact    DB TEXTFILE         redact the text in TEXTFILE (all scopes)
    python worker.py others    DB COUNT TAG        COUNT writes of keys other-TAG-<n>

Every line on stdout is one of:

    ack node <version id>          a write returned this version (printed only after the call
    ack edge <edge id>             returned, and flushed at once, so an ack is a promise)
    ack retired <version id>
    ack unlinked <edge id>
    expected <ErrorType> <message> an error the rules allow (NotFound, Conflict)
    error <ErrorType> <message>    anything else: the test fails on it
    done <n>                       how many operations ran

A worker exits 0 unless it printed an ``error`` line.
"""

from __future__ import annotations

import random
import sqlite3
import sys
import time
from pathlib import Path

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.errors import Conflict, NotFound, RyvemError

KINDS = ("decision", "task", "page")
SCOPES = ("global", "board:team")
RELS = ("about", "depends-on")
# 50 identities: 25 keys x 2 kinds, in one of two scopes.
KEYS = [f"notes/k{i:02d}" if i % 3 == 0 else f"k{i:02d}" for i in range(25)]
IDENTITIES = [(KINDS[i % 2], KEYS[i % 25], SCOPES[(i // 25) % 2]) for i in range(50)]
WORDS = ["alpha", "beta", "gamma", "delta", "cache", "latency", "index", "graph", "memory"]


def say(line: str) -> None:
    sys.stdout.write(line.replace("\n", " ") + "\n")
    sys.stdout.flush()


def body(rng: random.Random) -> str:
    """A small markdown body with a few words and, often, wikilinks to other identities."""
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
    links = " ".join(f"[[{rng.choice(KEYS)}]]" for _ in range(rng.randint(0, 3)))
    return f"{words} {links} {rng.random():.6f}"


def one_random_op(svc: Service, rng: random.Random, *, allow_search: bool = True) -> None:
    """Run one random operation and print its ack (or its expected error)."""
    kind, key, scope = rng.choice(IDENTITIES)
    ref = f"{kind}/{key}"
    roll = rng.random()
    try:
        if roll < 0.45:
            v = svc.write(kind, f"{key} {rng.choice(WORDS)}", key=key, scope=scope, body=body(rng),
                          data={"n": rng.randint(0, 3)})
            say(f"ack node {v.id}")
        elif roll < 0.5:
            v = svc.write(kind, f"note {rng.choice(WORDS)}", scope=scope, body=body(rng))
            say(f"ack node {v.id}")
        elif roll < 0.65:
            k2, key2, _ = rng.choice([i for i in IDENTITIES if i[2] == scope])
            e = svc.link(ref, f"{k2}/{key2}", rng.choice(RELS), scope=scope,
                         data={"w": rng.randint(0, 2)})
            say(f"ack edge {e.edge.id}")
        elif roll < 0.75:
            k2, key2, _ = rng.choice([i for i in IDENTITIES if i[2] == scope])
            e = svc.unlink(ref, f"{k2}/{key2}", rng.choice(RELS), scope=scope)
            say(f"ack unlinked {e.edge.id}")
        elif roll < 0.85:
            v = svc.retire(ref, scope=scope, reason=rng.choice([None, "obsolete"]))
            say(f"ack retired {v.id}")
        elif allow_search:
            svc.search(" ".join(rng.sample(WORDS, 2)), scope=scope, limit=5)
            svc.history(ref, scope=scope)
        else:
            svc.get(ref, scope=scope)
    except (NotFound, Conflict) as e:
        say(f"expected {type(e).__name__} {e}")


def hold(db: Path, seconds: float) -> int:
    """Take SQLite's write lock the way any other program could, and sit on it."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    say("locked")
    time.sleep(seconds)
    conn.execute("COMMIT")
    conn.close()
    say("released")
    return 0


def main(argv: list[str]) -> int:
    mode, db = argv[0], Path(argv[1])
    if mode == "hold":
        return hold(db, float(argv[2]))
    repo = SqliteRepository.open(db)
    svc = Service(repo)
    failed = False
    done = 0
    try:
        if mode == "supersede":
            count, tag, rng = int(argv[2]), argv[3], random.Random(int(argv[4]))
            for i in range(count):
                v = svc.write("decision", f"race {tag} {i}", key="race", body=f"{tag} wrote {i}")
                say(f"ack node {v.id}")
                done += 1
                if rng.random() < 0.1:
                    time.sleep(rng.random() / 200)
        elif mode == "reader":
            stop, rng = Path(argv[2]), random.Random(int(argv[3]))
            svc.get("decision/race")
            say("ready")
            while not stop.exists():
                roll = rng.random()
                if roll < 0.4:
                    svc.get("decision/race")
                elif roll < 0.6:
                    svc.history("decision/race")
                elif roll < 0.9:
                    svc.search("race wrote", limit=5)
                else:
                    svc.traverse("decision/race", depth=2, direction="both")
                done += 1
        elif mode == "random":
            count, rng = int(argv[2]), random.Random(int(argv[3]))
            for _ in range(count):
                one_random_op(svc, rng)
                done += 1
        elif mode == "redact":
            text = Path(argv[2]).read_text("utf-8")
            say("redacting")
            report = svc.redact(text, all_scopes=True, reason="reliability test")
            say(f"redacted {report.versions}")
            done += 1
        elif mode == "others":
            count, tag = int(argv[2]), argv[3]
            for i in range(count):
                v = svc.write("note", f"other {tag} {i}", key=f"other-{tag}-{i % 40}",
                              body=f"{tag} wrote {i}")
                say(f"ack node {v.id}")
                done += 1
        elif mode == "crash":
            rng = random.Random(int(argv[2]))
            while True:
                one_random_op(svc, rng, allow_search=False)
                done += 1
        else:
            say(f"error Usage unknown mode {mode}")
            return 2
    except RyvemError as e:
        say(f"error {type(e).__name__} {e}")
        failed = True
    except Exception as e:  # report anything unexpected as a line the test reads
        say(f"error {type(e).__name__} {e}")
        failed = True
    finally:
        repo.close()
    say(f"done {done}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
