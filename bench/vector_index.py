"""Vector index choice at 100,000 vectors: exact numpy vs usearch vs hnswlib.

    .venv/bin/python -m bench.vector_index [--n 100000] [--dim 384] [--queries 200] [--json]

Data: synthetic unit vectors in 2,000 gaussian clusters (real text embeddings cluster; pure
noise would be the worst case for a graph index), queries drawn near random data points.
For each index: build time, the time to get it back in a new process (exact: reading the
vectors as float32 blobs out of SQLite, or mapping an .npy file; usearch: a memory-mapped
view of its saved file), query latency p50/p95 for the top 10 (one query at a time, as a
search call does), memory, and recall@10 against the exact answer. A library that is not
installed is reported as such (``pip install usearch hnswlib`` to compare).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ryvem.embedding.index import ExactIndex, to_blob

K = 10


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def data(n: int, dim: int, queries: int, seed: int = 11) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((2000, dim)).astype(np.float32)
    x = centers[rng.integers(0, len(centers), n)] + 0.6 * rng.standard_normal((n, dim)).astype(
        np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    q = x[rng.integers(0, n, queries)] + 0.3 * rng.standard_normal((queries, dim)).astype(
        np.float32) / np.sqrt(dim) * 4
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return x, q.astype(np.float32)


def latency(fn: Callable[[np.ndarray], list[int]], queries: np.ndarray) -> tuple[
        list[list[int]], dict[str, float]]:
    out, times = [], []
    for q in queries:
        t = time.perf_counter()
        out.append(fn(q))
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return out, {"p50_ms": round(statistics.median(times), 2),
                 "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2)}


def recall(got: list[list[int]], truth: list[list[int]]) -> float:
    return round(sum(len(set(g) & set(t)) for g, t in zip(got, truth, strict=True))
                 / (K * len(truth)), 4)


def bench_exact(x: np.ndarray, queries: np.ndarray, tmp: Path) -> tuple[dict[str, Any],
                                                                         list[list[int]]]:
    n, dim = x.shape
    before = rss_mb()
    t = time.perf_counter()
    index = ExactIndex(dim)
    index.add([str(i) for i in range(n)], x)
    index.search(queries[0], K)  # stacks the matrix
    build = time.perf_counter() - t
    mem = rss_mb() - before
    truth, lat = latency(lambda q: [int(o) for o, _ in index.search(q, K)], queries)
    # Getting the vectors back in a new process: float32 blobs in SQLite ...
    db = sqlite3.connect(tmp / "vectors.db")
    db.execute("CREATE TABLE v(seq INTEGER PRIMARY KEY, vec BLOB NOT NULL)")
    db.executemany("INSERT INTO v VALUES (?, ?)", ((i, to_blob(r)) for i, r in enumerate(x)))
    db.commit()
    t = time.perf_counter()
    rows = db.execute("SELECT seq, vec FROM v").fetchall()
    m = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), dim)
    load_sqlite = time.perf_counter() - t
    db.close()
    # ... or one .npy file beside the store, memory-mapped.
    np.save(tmp / "vectors.npy", x)
    t = time.perf_counter()
    mm = np.load(tmp / "vectors.npy", mmap_mode="r")
    _, mm_lat = latency(lambda q: list(np.argsort(-(mm @ q))[:K]), queries[:50])
    load_npy = time.perf_counter() - t
    assert m.shape == x.shape
    return {
        "build_s": round(build, 3),
        "load_from_sqlite_blobs_s": round(load_sqlite, 3),
        "npy_mmap_first_50_queries_s": round(load_npy, 3),
        "npy_mmap_query": mm_lat,
        "memory_mb": round(max(mem, x.nbytes / 2**20), 1),
        "recall@10": 1.0,
        **lat,
    }, truth


def bench_usearch(x: np.ndarray, queries: np.ndarray, truth: list[list[int]], tmp: Path
                  ) -> dict[str, Any]:
    try:
        from usearch.index import Index
    except ImportError:
        return {"unavailable": "usearch not installed"}
    n, dim = x.shape
    before = rss_mb()
    t = time.perf_counter()
    index = Index(ndim=dim, metric="cos", dtype="f32", connectivity=16, expansion_add=128,
                  expansion_search=64)
    index.add(np.arange(n), x, threads=2)
    build = time.perf_counter() - t
    mem = rss_mb() - before
    got, lat = latency(lambda q: [int(k) for k in index.search(q, K).keys], queries)
    path = str(tmp / "usearch.idx")
    index.save(path)
    t = time.perf_counter()
    view = Index.restore(path, view=True)
    view.search(queries[0], K)
    load = time.perf_counter() - t
    return {"build_s": round(build, 3), "load_view_s": round(load, 3),
            "memory_mb": round(mem, 1), "file_mb": round(os.path.getsize(path) / 2**20, 1),
            "recall@10": recall(got, truth), **lat,
            "params": "f32, connectivity 16, expansion_add 128, expansion_search 64, 2 threads"}


def bench_hnswlib(x: np.ndarray, queries: np.ndarray, truth: list[list[int]]) -> dict[str, Any]:
    try:
        import hnswlib
    except ImportError:
        return {"unavailable": "hnswlib not installed"}
    n, dim = x.shape
    before = rss_mb()
    t = time.perf_counter()
    index = hnswlib.Index(space="cosine", dim=dim)
    index.init_index(max_elements=n, M=16, ef_construction=128)
    index.set_num_threads(2)
    index.add_items(x, np.arange(n))
    build = time.perf_counter() - t
    mem = rss_mb() - before
    index.set_ef(64)
    index.set_num_threads(1)
    got, lat = latency(lambda q: [int(k) for k in index.knn_query(q, k=K)[0][0]], queries)
    return {"build_s": round(build, 3), "memory_mb": round(mem, 1),
            "recall@10": recall(got, truth), **lat,
            "params": "M 16, ef_construction 128, ef 64, 2 threads to build"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    x, queries = data(args.n, args.dim, args.queries)
    with tempfile.TemporaryDirectory(prefix="ryvem-vec-") as d:
        tmp = Path(d)
        exact, truth = bench_exact(x, queries, tmp)
        report = {"n": args.n, "dim": args.dim, "queries": args.queries, "exact-numpy": exact,
                  "usearch": bench_usearch(x, queries, truth, tmp),
                  "hnswlib": bench_hnswlib(x, queries, truth)}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{args.n} vectors x {args.dim}, {args.queries} queries, top {K}\n")
    print("| index | build s | query p50 ms | p95 ms | memory MB | recall@10 | notes |")
    print("|---|---|---|---|---|---|---|")
    for name in ("exact-numpy", "usearch", "hnswlib"):
        r = report[name]
        if "unavailable" in r:
            print(f"| {name} | — | — | — | — | — | {r['unavailable']} |")
            continue
        notes = {k: v for k, v in r.items()
                 if k not in ("build_s", "p50_ms", "p95_ms", "memory_mb", "recall@10")}
        print(f"| {name} | {r['build_s']} | {r['p50_ms']} | {r['p95_ms']} | {r['memory_mb']} | "
              f"{r['recall@10']} | {json.dumps(notes)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
