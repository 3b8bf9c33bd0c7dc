"""The conversational set and the null queries, through the library (issue 40, item 6).

Each dialogue of ``eval/conversations/dNN.jsonl`` is written into a fresh SQLite store, one
scope a dialogue (``board:conv-dNN``), at two granularities: ``turn`` (one memory a turn;
title "speaker at time", body the text, valid time the turn's) and ``session`` (one memory a
session: its turns as "speaker (time): text" lines). Every question is asked in its
dialogue's scope, as ``memory_search`` would be; a question counts at k when any of its
evidence turns (or, at session granularity, their sessions) is in the top k.

Modes: ``default`` (``Session.search`` with no mode: hybrid when the model is installed), ``hybrid-rrf`` (the default before issue 40),
``lexical``, ``semantic`` and ``bm25-or`` (the plain pure-Python BM25 of ``run.py``, per
dialogue). The 40 null queries (``null.jsonl``) are asked of every scope of the turn store
and of the documentation store; the figure is how many return anything (target 0).
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CONV = HERE / "conversations"
K = 10
CONV_MODES = ("default", "hybrid-rrf", "lexical", "semantic", "bm25-or")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def questions() -> list[dict[str, Any]]:
    return _lines(CONV / "questions.jsonl")


def null_queries() -> list[str]:
    return [d["question"] for d in _lines(CONV / "null.jsonl")]


def scope_of(dialogue: str) -> str:
    return f"board:conv-{dialogue}"


class ConvStore:
    """One granularity's store: the service, a session over it and each row's label."""

    def __init__(self, data_dir: Path, granularity: str, embedder: Any) -> None:
        from ryvem.adapters.sqlite import SqliteRepository
        from ryvem.application.service import Service
        from ryvem.application.session import Session

        self.granularity = granularity
        self.repo = SqliteRepository.open(data_dir / f"conv-{granularity}.db")
        self.service = Service(self.repo)
        self.docs: dict[str, list[tuple[str, str]]] = defaultdict(list)  # dialogue -> (label, text)
        nodes = []
        for path in sorted(CONV.glob("d*.jsonl")):
            turns = _lines(path)
            scope = scope_of(path.stem)
            if granularity == "turn":
                for t in turns:
                    title = f"{t['speaker']} at {t['time'][:16].replace('T', ' ')}"
                    nodes.append(self.service.prepare(
                        "turn", title, key=t["id"], scope=scope, body=t["text"],
                        valid_from=t["time"]))
                    self.docs[path.stem].append((t["id"], f"{title}\n{t['text']}"))
            else:
                by: dict[str, list[dict[str, Any]]] = defaultdict(list)
                for t in turns:
                    by[t["session"]].append(t)
                for sid, ts in by.items():
                    title = f"Session {sid} on {ts[0]['time'][:10]}"
                    body = "\n".join(f"{t['speaker']} ({t['time'][11:16]}): {t['text']}"
                                     for t in ts)
                    nodes.append(self.service.prepare(
                        "session", title, key=sid, scope=scope, body=body,
                        valid_from=ts[0]["time"]))
                    self.docs[path.stem].append((sid, f"{title}\n{body}"))
        for i in range(0, len(nodes), 500):
            self.service.write_many(nodes[i:i + 500])
        self.label: dict[str, str] = {}
        for batch in self.service.iter_graph():
            for v, _ in batch:
                if v.is_current and v.key is not None:
                    self.label[v.id] = v.key
        self.session = None
        if embedder is not None:
            self.session = Session(lambda: self.repo, embedder=lambda: embedder)
            t0 = time.perf_counter()
            n = self.session.embed_pending()
            print(f"conversations ({granularity}): {n} rows embedded in "
                  f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)

    def mode(self, name: str) -> Callable[[str, str | None], list[str]] | str:
        """(question, dialogue or None: every scope) -> ranked labels."""
        if name == "bm25-or":
            from run import BM25  # type: ignore[import-not-found]
            per = {d: BM25(rows) for d, rows in self.docs.items()}
            every = BM25([r for rows in self.docs.values() for r in rows])
            return lambda q, d: (per[d] if d else every).rank(q, K)
        if name == "lexical":
            def lex(q: str, d: str | None) -> list[str]:
                hits = self.service.search(q, scope=scope_of(d) if d else None,
                                           all_scopes=d is None, limit=K)
                return [self.label[h.id] for h in hits if h.id in self.label]
            return lex
        if self.session is None:
            return "no embedding model"
        mode = None if name == "default" else name
        session = self.session

        def lib(q: str, d: str | None) -> list[str]:
            res = session.search(q, mode=mode, scope=scope_of(d) if d else None,
                                 all_scopes=d is None, limit=K)
            return [self.label[h.id] for h in res.hits if h.id in self.label]
        return lib


def _wanted(q: dict[str, Any], granularity: str) -> set[str]:
    ev = q["evidence"]
    return set(ev) if granularity == "turn" else {e.rsplit("-t", 1)[0] for e in ev}


def _score(rows: Sequence[tuple[set[str], list[str]]]) -> dict[str, float | int]:
    n = len(rows)
    ranks = [next((i for i, x in enumerate(got[:K], 1) if x in want), None)
             for want, got in rows]
    return {"n": n,
            "recall@5": round(sum(1 for r in ranks if r and r <= 5) / n, 3) if n else 0.0,
            "recall@10": round(sum(1 for r in ranks if r) / n, 3) if n else 0.0,
            "mrr@10": round(sum(1 / r for r in ranks if r) / n, 3) if n else 0.0}


def evaluate(data_dir: Path, embedder: Any, modes: Sequence[str] = CONV_MODES,
             splits: Sequence[str] | None = None) -> dict[str, Any]:
    qs = [q for q in questions() if splits is None or q["split"] in splits]
    report: dict[str, Any] = {"questions": len(qs), "granularities": {}, "null": {}}
    nulls = null_queries()
    for gran in ("turn", "session"):
        store = ConvStore(data_dir, gran, embedder)
        out: dict[str, Any] = {}
        for name in modes:
            run = store.mode(name)
            if isinstance(run, str):
                out[name] = {"unavailable": run}
                continue
            got = [(q, run(q["question"], q["dialogue"])) for q in qs]
            entry: dict[str, Any] = {}
            for split in sorted({q["split"] for q in qs}):
                rows = [(_wanted(q, gran), g) for q, g in got if q["split"] == split]
                cats = {c: _score([(_wanted(q, gran), g) for q, g in got
                                   if q["split"] == split and q["category"] == c])
                        for c in sorted({q["category"] for q in qs})}
                entry[split] = {"all": _score(rows), "categories": cats}
            entry["misses"] = [{"id": q["id"], "question": q["question"],
                                "evidence": q["evidence"], "top3": g[:3]}
                               for q, g in got if not set(g[:5]) & _wanted(q, gran)]
            out[name] = entry
            if gran == "turn":
                answered = [q for q in nulls if run(q, None)]
                report["null"][f"conversations/{name}"] = {"returned": len(answered),
                                                           "of": len(nulls),
                                                           "queries": answered}
        report["granularities"][gran] = out
        store.repo.close()
    return report


def markdown(report: dict[str, Any]) -> str:
    lines = [f"Conversations: {report['questions']} questions; R@5 / MRR@10 (R@10), "
             "any evidence counts.", "",
             "| granularity | mode | split | n | R@5 | MRR@10 | R@10 | single-detail R@5 | "
             "temporal R@5 | multi-turn R@5 | inference R@5 |", "|" + "---|" * 11]
    for gran, modes in report["granularities"].items():
        for name, e in modes.items():
            if "unavailable" in e:
                lines.append(f"| {gran} | {name} | unavailable: {e['unavailable']} |")
                continue
            for split, s in e.items():
                if split == "misses":
                    continue
                a, c = s["all"], s["categories"]
                cats = [f"{c[x]['recall@5']:.2f}" if x in c else "—"
                        for x in ("single-detail", "temporal", "multi-turn", "inference")]
                lines.append(f"| {gran} | {name} | {split} | {a['n']} | {a['recall@5']:.3f} | "
                             f"{a['mrr@10']:.3f} | {a['recall@10']:.3f} | " + " | ".join(cats)
                             + " |")
    lines += ["", "Null queries (words no memory holds): how many of 40 return anything.", "",
              "| store / mode | returned anything |", "|---|---|"]
    for name, e in report["null"].items():
        lines.append(f"| {name} | {e['returned']} of {e['of']} |")
    return "\n".join(lines)
