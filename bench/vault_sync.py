"""Vault sync figures: ``import --watch`` latency and ``import --git-history`` throughput.

    .venv/bin/python -m bench.vault_sync [--saves 30] [--commits 300] [--pages 50]

* **watch**: the real console script watches a vault in a temporary folder; each of
  ``--saves`` saves writes a page with a new word, and the time until a search of the same
  SQLite file (from this process) finds it is recorded; prints the median, p90 and max.
* **git history**: a repository of ``--commits`` commits (each edits three of ``--pages``
  pages, every tenth renames one) imported with ``--git-history``; the bound in the same
  run is a plain import of the same number of page versions (``commits x 3`` writes in
  one-page batches, as the history writes them commit by commit), so the ratio says what
  reading git costs on top of writing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from gitrepo import Repo
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service

RYVEM = str(Path(sys.executable).parent / "ryvem")


def watch_latency(root: Path, saves: int) -> list[float]:
    vault, db = root / "vault", root / "data" / "ryvem.db"
    vault.mkdir()
    (vault / "home.md").write_text("# Home\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    proc = subprocess.Popen(
        [RYVEM, "graph", "--db", str(db), "import", str(vault), "--scope", "global", "--watch"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if b"watching " in line:
            break
    repo = SqliteRepository.open(db)
    svc = Service(repo)
    took = []
    try:
        for i in range(saves):
            word = f"zeppelin{i:04d}x"
            start = time.monotonic()
            (vault / f"page-{i}.md").write_text(f"# Page {i}\n\n{word}\n", encoding="utf-8")
            while not svc.search(word):
                time.sleep(0.005)
                if time.monotonic() - start > 30:
                    raise SystemExit(f"save {i} not seen in 30 s")
            took.append(time.monotonic() - start)
            time.sleep(0.1)
    finally:
        repo.close()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    return took


def history_throughput(root: Path, commits: int, pages: int) -> tuple[float, float]:
    r = Repo(root / "repo")
    for p in range(pages):
        r.write(f"p{p}.md", f"# P{p}\n\nstart [[p{(p + 1) % pages}]]\n" + "filler line\n" * 20)
    r.commit("start", "2024-01-01T00:00:00Z")
    for c in range(1, commits):
        for k in range(3):
            p = (c * 3 + k) % pages
            path = r.root / f"p{p}.md"
            if path.exists():
                with path.open("a", encoding="utf-8") as f:
                    f.write(f"edit {c}\n")
        if c % 10 == 0:
            old = r.root / f"p{c % pages}.md"
            if old.exists():
                r.git("mv", old.name, f"moved-{c}.md")
        when = dt.datetime(2024, 1, 1, tzinfo=dt.UTC) + dt.timedelta(hours=c)
        r.commit(f"commit {c}", when.strftime("%Y-%m-%dT%H:%M:%SZ"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    start = time.monotonic()
    done = subprocess.run(
        [RYVEM, "graph", "--db", str(root / "h.db"), "import", str(r.root), "--git-history",
         "--scope", "global", "--json"], env=env, capture_output=True, check=True,
    )
    history = time.monotonic() - start
    versions = json.loads(done.stdout)
    n = versions["created"] + versions["superseded"] + versions["renamed"]
    # The bound: as many single-page write transactions through the same service.
    repo = SqliteRepository.open(root / "b.db")
    svc = Service(repo)
    start = time.monotonic()
    for i in range(n):
        svc.write("page", f"P{i % pages}", key=f"p{i % pages}", body=f"v{i} [[p{i % 7}]]")
    bound = time.monotonic() - start
    repo.close()
    return history, bound


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--saves", type=int, default=30)
    ap.add_argument("--commits", type=int, default=300)
    ap.add_argument("--pages", type=int, default=50)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        took = sorted(watch_latency(Path(tmp), args.saves))
        p90 = took[int(0.9 * (len(took) - 1))]
        print(f"watch: save -> searchable over {len(took)} saves: median "
              f"{statistics.median(took) * 1000:.0f} ms, p90 {p90 * 1000:.0f} ms, "
              f"max {took[-1] * 1000:.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        history, bound = history_throughput(Path(tmp), args.commits, args.pages)
        print(f"git history: {args.commits} commits in {history:.1f} s "
              f"({args.commits / history:.0f} commits/s, whole CLI run); bound (same number "
              f"of single-page writes in-process) {bound:.1f} s; ratio {history / bound:.2f}")


if __name__ == "__main__":
    main()
