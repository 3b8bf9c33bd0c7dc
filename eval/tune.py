"""``python eval/tune.py``: the library's search strategies, varied, on the **tune split only**.

One import of the corpus and one embedding of it (cached in ``.eval-cache/`` like
``eval/run.py``), then every variant below is asked every ``tune`` question through
``Session.search`` — the path ``memory_search`` takes — and scored as ``eval/run.py`` scores.
The held-out split is never read here: choose on this table, then run ``make eval`` once.

    python eval/tune.py [--only SUBSTRING]...
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run as ev

from ryvem.application import search as recall


def variants() -> dict[str, recall.Strategy]:
    hybrid = recall.STRATEGIES["hybrid"]
    lexical = recall.STRATEGIES["lexical"]
    out: dict[str, recall.Strategy] = {"hybrid (as shipped)": hybrid}
    for depth in (10, 20, 30, 50):
        for k in (10, 30, 60):
            out[f"hybrid depth {depth} k {k}"] = dataclasses.replace(hybrid, depth=depth, rrf_k=k)
    for lw, sw in ((1.0, 0.5), (1.0, 0.75), (0.75, 1.0), (0.5, 1.0), (1.0, 1.5), (1.5, 1.0)):
        out[f"hybrid weights lexical {lw} semantic {sw}"] = dataclasses.replace(
            hybrid, weights=(("lexical", lw), ("semantic", sw)))
    for tokens in (32, 64, 128):
        for power in (0.5, 1.0):
            out[f"hybrid short {tokens} power {power}"] = dataclasses.replace(
                hybrid, short_tokens=tokens, short_power=power)
            out[f"semantic short {tokens} power {power}"] = dataclasses.replace(
                recall.STRATEGIES["semantic"], short_tokens=tokens, short_power=power)
    out["semantic (as shipped)"] = recall.STRATEGIES["semantic"]
    for floor in (0.0, 0.1, 0.3):
        out[f"hybrid floor {floor}"] = dataclasses.replace(hybrid, min_similarity=floor)
    graph = recall.STRATEGIES["hybrid+graph"]
    out["hybrid+graph (as shipped)"] = graph
    for seeds in (1, 3, 5, 10):
        for gw in (0.25, 0.5, 1.0):
            out[f"hybrid+graph seeds {seeds} weight {gw}"] = dataclasses.replace(
                graph, graph_seeds=seeds, weights=(("graph", gw),))
    for seeds in (1, 3, 5):
        for gw in (0.25, 0.5):
            out[f"lexical+graph seeds {seeds} weight {gw}"] = dataclasses.replace(
                lexical, components=("lexical", "graph"), graph_seeds=seeds,
                weights=(("graph", gw),))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", action="append", default=[], help="variants whose name holds this")
    ap.add_argument("--details", action="store_true", help="list each variant's misses at 5")
    ap.add_argument("--chunks", type=ev.parse_chunks, default=None,
                    help="what the library embeds, WINDOW/OVERLAP/HEAD (default: the library's)")
    args = ap.parse_args(argv)
    ev.LIBRARY_CHUNKS = args.chunks
    questions = [q for q in ev.load_questions() if q.split == "tune"]
    chosen = {n: s for n, s in variants().items()
              if not args.only or any(o in n for o in args.only)}
    with tempfile.TemporaryDirectory(prefix="ryvem-tune-") as tmp:
        corpus = ev.load_corpus(Path(tmp))
        session = ev.library_session(corpus)
        if isinstance(session, str):
            print(session, file=sys.stderr)
            return 1
        head = ("| variant | R@1 | R@5 | R@10 | MRR@10 | zero-hit | paraphrase R@5 | "
                "partial R@5 | keyword R@5 | detail R@5 |")
        print(head)
        print("|" + "---|" * 10)
        for name, strategy in chosen.items():
            recall.STRATEGIES["_tune"] = dataclasses.replace(strategy, name="_tune")
            rows = []
            for q in questions:
                result = session.search(q.question, mode="_tune", all_scopes=True, limit=ev.K)
                rows.append((q, [corpus.key_of[h.id] for h in result.hits
                                 if h.id in corpus.key_of]))
            a = ev.score(rows)
            cats = [ev.score([(q, g) for q, g in rows if q.category == c])["recall@5"]
                    for c in ("paraphrase", "partial", "keyword", "detail")]
            print(f"| {name} | {a['recall@1']:.2f} | {a['recall@5']:.2f} | "
                  f"{a['recall@10']:.2f} | {a['mrr@10']:.3f} | {a['zero_hit']} | "
                  + " | ".join(f"{c:.2f}" for c in cats) + " |", flush=True)
            if args.details:
                for q, g in rows:
                    if not set(g[:5]) & set(q.answers):
                        print(f"    miss {q.id}: {q.question!r} -> {g[:3]} (want {q.answers})")
        corpus.service.repo.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
