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
from dataclasses import dataclass

__all__ = ["MAX_TERMS", "SearchQuery", "Term", "parse_search"]

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
