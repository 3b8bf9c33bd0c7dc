"""`python -m bench.recall_hybrid [DIR] [synthetic|docs ...]`: only the recall section's hybrid
search measurement (``recall_suite.measure_hybrid``) on the two 100k workloads — the
synthetic Zipf store (with history, as the import section builds it) and the documentation
text store (``bench/docs_workload.py``) — each with synthetic vectors. The stores are built
once into DIR (default /tmp/ryvem-recall-stores, about 1 GB) and reused, so a before/after
comparison of the engine costs a minute, not a full bench run."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from bench import recall_suite as rs
from bench import sqlite_suite as sq
from bench.docs_workload import eval_questions, later_eval_questions
from bench.run import default_corpus
from bench.workload import Spec, Workload, search_queries
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service


def main(argv: list[str]) -> int:
    if any(a.startswith("-") for a in argv):
        print(__doc__)
        return 0 if set(argv) <= {"-h", "--help"} else 2
    names = [a for a in argv if a in ("synthetic", "docs")] or ["synthetic", "docs"]
    dirs = [a for a in argv if a not in names]
    where = Path(dirs[0] if dirs else "/tmp/ryvem-recall-stores")
    where.mkdir(parents=True, exist_ok=True)
    corpus = default_corpus()
    if corpus is None:
        print("no corpus (RYVEM_BENCH_CORPUS)", file=sys.stderr)
        return 2
    embedder = rs._embedder()
    embedder.embed(["load the model"])
    n = 100_000
    w = Workload(Spec(n=n))
    synthetic, docs = where / "main.db", where / "docs.db"
    if not synthetic.exists():
        t0 = time.perf_counter()
        repo = SqliteRepository.open(synthetic)
        sq.import_workload(Service(repo), w)
        rs._fill_vectors(repo, embedder.dim, embedder.name, seed=5)
        repo.close()
        print(f"built {synthetic} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if not docs.exists():
        repo, info = rs.build_docs_store(docs, corpus, n, embedder)
        repo.close()
        print(f"built {docs}: {info}", file=sys.stderr)
    out = {}
    for name in names:
        repo = SqliteRepository.open(synthetic if name == "synthetic" else docs)
        if name == "synthetic":
            words = search_queries(w, 100)
            queries = [f"{q} {words[i % len(words)]}" for i, q in
                       enumerate(rs.QUESTIONS * (100 // len(rs.QUESTIONS)))]
            later = [f"{q} {words[(i + 7) % len(words)]}" for i, q in
                     enumerate(rs.QUESTIONS * (100 // len(rs.QUESTIONS)))]
            later = [q for q in later if q not in set(queries)]
        else:
            queries = eval_questions(100 // len(rs.QUESTIONS) * len(rs.QUESTIONS))
            later = later_eval_questions(queries)
        rows, info = rs.measure_hybrid(repo, embedder, queries, name, later=later)
        repo.close()
        out[name] = info
        for r in rows:
            print(f"{name:9} {r.name[:72]:72} {r.ryvem.show()}")
    print(json.dumps(out, indent=1, default=str))
    print(f"load average {os.getloadavg()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
