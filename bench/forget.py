"""What a redaction costs on SQLite, against a bound measured in the same run.

    .venv/bin/python -m bench.forget [--nodes 10000] [--holding 100]

Builds a store of NODES keyed nodes (three versions each, bodies of about 1 KB, links), with a
secret in every version of HOLDING of them; copies it; then times on one copy the whole
``Service.redact`` (find + rewrite + FTS rebuild in one transaction, then checkpoint, VACUUM,
checkpoint) and on the other the floor any physical cleanup pays: a bare FTS ``rebuild`` plus
``VACUUM``. The ratio is what redaction adds over that floor. Not run by ``make bench``.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import NewNode, Service

SECRET = "sk-bench-0123456789abcdef"


def build(db: Path, nodes: int, holding: int) -> None:
    repo = SqliteRepository.open(db)
    svc = Service(repo)
    filler = "lorem ipsum dolor sit amet " * 40
    for n in range(3):
        batch = [
            NewNode(kind="page", title=f"page {i} v{n}", scope="global", key=f"p{i}",
                    body=f"{filler} [[p{(i + 1) % nodes}]] v{n}"
                    + (f" token {SECRET}" if i < holding else ""),
                    data={"n": n, **({"tok": SECRET} if i < holding else {})})
            for i in range(nodes)
        ]
        for start in range(0, len(batch), 500):
            svc.write_many(batch[start : start + 500])
    repo.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--holding", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        seed = Path(tmp) / "seed.db"
        build(seed, args.nodes, args.holding)
        a, b = Path(tmp) / "a.db", Path(tmp) / "b.db"
        shutil.copy(seed, a)
        shutil.copy(seed, b)
        size = seed.stat().st_size

        stages: dict[str, float] = {}
        last = [time.perf_counter(), ""]

        def progress(stage: str, done: int, total: int | None) -> None:
            now = time.perf_counter()
            if stage != last[1]:
                stages[str(last[1]) or "rewrite"] = now - float(last[0])
                last[0], last[1] = now, stage

        repo = SqliteRepository.open(a)
        started = time.perf_counter()
        last[0] = started
        report = Service(repo).redact(SECRET, progress=progress)
        total = time.perf_counter() - started
        stages[str(last[1])] = time.perf_counter() - float(last[0])
        repo.close()

        c = sqlite3.connect(b, isolation_level=None)
        started = time.perf_counter()
        c.execute("INSERT INTO nodes_fts(nodes_fts) VALUES ('rebuild')")
        c.execute("VACUUM")
        floor = time.perf_counter() - started
        c.close()
    print(f"store: {args.nodes} nodes x 3 versions, {size / 1e6:.1f} MB; "
          f"{report.versions} versions hold the secret")
    print(f"redact: {total:.2f} s (" + ", ".join(f"{k} {v:.2f} s" for k, v in stages.items())
          + ")")
    print(f"floor (FTS rebuild + VACUUM on a copy): {floor:.2f} s; ratio {total / floor:.2f}")


if __name__ == "__main__":
    main()
