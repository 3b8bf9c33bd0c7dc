"""A second search workload whose words are real documentation's: the SilverBullet docs
(the repository's copy, ``tests/fixtures/corpora/silverbullet``) recombined.

The synthetic workload (``bench/workload.py``) draws every word from one Zipf distribution
over a 5,000-word made-up vocabulary, with no stop words to drop; its commonest words are in
up to 99.5% of 100k rows, so a one-word question makes FTS5 rank nearly the whole table.
Real text is different: the words a question keeps after the English stop words are dropped
(``domain/search.py``) are content words, most of them in a small share of the rows. This
workload keeps the corpus's word distribution and scales it to any size:

* the corpus's pages are cut into **sentences** (front matter, code blocks, tables and bare
  links dropped; markdown marks kept as text, as an imported page keeps them), and its
  **titles** are the page names and their headings;
* node ``i`` (a pure function of ``(seed, i)``) gets a title — a page name or heading, alone
  or joined to a second one — and a body of whole sentences drawn with a seeded RNG until it
  holds about 300 bytes (the synthetic body's size); about half of the bodies are one run of
  consecutive sentences of one page (a note quoting a passage), the rest sentences of
  several pages;
* kinds, scopes and keys are the synthetic workload's (``Workload.kind/scope/key``);
* the **questions** are the evaluation's (``eval/questions.jsonl``, all four styles: the
  paraphrase, the sharing-some-words, the keyword and the body-detail questions), shuffled
  with a seed: questions written for these very pages, so their content words have the
  document frequencies such questions meet in such text.

Only the base version of each node is written (no history): the current-row search is what
the hybrid target measures, and ``nodes_fts`` holds current rows only.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.workload import NodeSpec, Spec, Workload

BODY_BYTES = 300
ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "eval" / "questions.jsonl"

_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)
_FENCE = re.compile(r"```.*?```", re.S)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\[*_`\"“])")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$")


@dataclass(frozen=True, slots=True)
class Page:
    title: str
    headings: tuple[str, ...]
    sentences: tuple[str, ...]


def load_pages(corpus: Path) -> list[Page]:
    """Every page of ``corpus`` as its title, headings and sentences (sorted by path)."""
    pages = []
    for path in sorted(corpus.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        text = _FENCE.sub("\n", _FRONT.sub("", text))
        headings: list[str] = []
        sentences: list[str] = []
        for para in re.split(r"\n\s*\n", text):
            lines = []
            for line in para.splitlines():
                line = line.strip()
                m = _HEADING.match(line)
                if m:
                    headings.append(m.group(1))
                elif line and not line.startswith("|") and not line.startswith("!["):
                    lines.append(line.lstrip(">-*0123456789. ").strip())
            joined = " ".join(x for x in lines if x)
            for s in _SENTENCE.split(joined):
                s = s.strip()
                if len(s.split()) >= 4:  # a bare link or a label is not a sentence
                    sentences.append(s)
        if sentences:
            pages.append(Page(path.relative_to(corpus).with_suffix("").as_posix()
                              .rsplit("/", 1)[-1], tuple(headings), tuple(sentences)))
    return pages


class DocsWorkload:
    """``n`` nodes of recombined documentation text; node ``i`` is a pure function of
    ``(seed, i)`` and the corpus."""

    def __init__(self, corpus: Path, spec: Spec) -> None:
        self.spec = spec
        self.pages = load_pages(corpus)
        if not self.pages:
            raise ValueError(f"no pages with sentences under {corpus}")
        self.titles = [p.title for p in self.pages] + [h for p in self.pages
                                                       for h in p.headings]
        self.shape = Workload(spec)  # kinds, scopes and keys as the synthetic workload's

    def node(self, i: int) -> NodeSpec:
        rng = random.Random(self.spec.seed * 1_000_033 + i)
        title = rng.choice(self.titles)
        if rng.random() < 0.3:
            title = f"{title}: {rng.choice(self.titles)}"
        parts: list[str] = []
        size = 0
        if rng.random() < 0.5:  # one passage: consecutive sentences of one page
            page = rng.choice(self.pages)
            at = rng.randrange(len(page.sentences))
            while size < BODY_BYTES and at < len(page.sentences):
                parts.append(page.sentences[at])
                size += len(page.sentences[at]) + 1
                at += 1
        while size < BODY_BYTES:  # sentences of several pages
            s = rng.choice(rng.choice(self.pages).sentences)
            parts.append(s)
            size += len(s) + 1
        body = f"# {title}\n\n" + " ".join(parts)
        s = self.shape
        return NodeSpec(i, s.kind(i), s.scope(i), s.key(i), title, body,
                        {"n": i, "prio": i % 5})

    def batches(self, batch: int) -> Iterator[list[NodeSpec]]:
        for start in range(0, self.spec.n, batch):
            yield [self.node(i) for i in range(start, min(start + batch, self.spec.n))]


def later_eval_questions(asked: list[str], seed: int = 11) -> list[str]:
    """The evaluation's questions not in ``asked``, in ``eval_questions``' order."""
    every = eval_questions(len(QUESTIONS.read_text().splitlines()), seed)
    seen = set(asked)
    return [q for q in dict.fromkeys(every) if q not in seen]


def eval_questions(count: int, seed: int = 11) -> list[str]:
    """``count`` of the evaluation's questions (every split and style), shuffled with
    ``seed``, repeated when ``count`` exceeds the set."""
    qs = [json.loads(line)["question"] for line in QUESTIONS.read_text().splitlines()
          if line.strip()]
    random.Random(seed).shuffle(qs)
    return [qs[i % len(qs)] for i in range(count)]
