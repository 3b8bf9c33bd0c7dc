"""Search text → a structured query that no backend can mistake for syntax.

Supported syntax (documented in the README):

* words are ANDed: ``cache invalidation`` finds rows holding both words;
* ``"quoted phrases"`` match the words in that order;
* a trailing ``*`` makes a word a prefix: ``invalid*``.

Everything else (``NEAR(``, ``col:x``, ``^``, ``-``, ``AND``/``OR``/``NOT``, brackets,
stray quotes) is read as plain words or dropped as punctuation, so any text is a valid
query. Adapters build their own query language only from these parsed terms, each term
quoted, never from the raw text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ryvem.domain.model import SearchHit

__all__ = [
    "MAX_TERMS",
    "PastRow",
    "SearchQuery",
    "Term",
    "excerpt",
    "needles",
    "parse_search",
    "rank_past",
]

MAX_TERMS = 32
_WORD = re.compile(r"[^\W_]+")
_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')


@dataclass(frozen=True, slots=True)
class Term:
    words: tuple[str, ...]
    prefix: bool = False


@dataclass(frozen=True, slots=True)
class SearchQuery:
    terms: tuple[Term, ...]

    @property
    def empty(self) -> bool:
        return not self.terms

    def words(self) -> list[str]:
        return [w for t in self.terms for w in t.words]


def parse_search(text: str | None) -> SearchQuery:
    if not text:
        return SearchQuery(())
    terms: list[Term] = []
    for match in _TOKEN.finditer(text):
        phrase, bare = match.group(1), match.group(2)
        if phrase is not None:
            words = tuple(w.lower() for w in _WORD.findall(phrase))
            if words:
                terms.append(Term(words))
            continue
        assert bare is not None
        words = tuple(w.lower() for w in _WORD.findall(bare))
        if not words:
            continue
        prefix = bare.endswith("*")
        terms.append(Term(words, prefix=prefix))
    return SearchQuery(tuple(terms[:MAX_TERMS]))


def needles(query: SearchQuery) -> list[str]:
    """The lowercase substrings a past-time search looks for: one per term."""
    return [" ".join(t.words) for t in query.terms]


def excerpt(body: str, found: Sequence[str], width: int = 120) -> str:
    """About ``width`` characters of ``body`` around the first of ``found`` it contains."""
    low = body.lower()
    pos = min((p for p in (low.find(n) for n in found) if p >= 0), default=0)
    start = max(0, pos - width // 3)
    text = " ".join(body[start : start + width].split())
    return ("…" if start else "") + text


PastRow = tuple[str, str, str, str, str, int]
"""(id, kind, scope, title, body, valid_from) of a row valid at the searched time."""


def rank_past(rows: Iterable[PastRow], found: Sequence[str], limit: int) -> list[SearchHit]:
    """Rank substring matches of a past-time search, the same way on every backend.

    Superseded text is in no full-text index, so the past is matched by substring; the score
    counts occurrences, a title occurrence weighing four times a body one; ties go to the
    newest row.
    """
    scored = []
    for id_, kind, scope, title, body, valid_from in rows:
        body = body or ""
        text = f"{title}\n{body}".lower()
        score = float(
            sum(text.count(n) for n in found) + 3 * sum(title.lower().count(n) for n in found)
        )
        hit = SearchHit.model_construct(
            id=id_, kind=kind, scope=scope, title=title, snippet=excerpt(body, found),
            score=score,
        )
        scored.append((score, valid_from, hit))
    scored.sort(key=lambda h: (-h[0], -h[1]))
    return [h[2] for h in scored[:limit]]
