"""Search text → a structured query that no backend can mistake for syntax.

Supported syntax (documented in the README):

* words are OR-ed and ranked: ``cache invalidation`` finds rows holding either word, rows
  holding more of the words (and rarer ones) first — BM25 on both backends. Words are
  stemmed by the backends (``sessions`` finds ``session``; Porter's English stemmer) and
  diacritics folded (``cafe`` finds ``café``);
* ``"quoted phrases"`` match the words in that order (a phrase is one term of the OR);
* a trailing ``*`` makes a word a prefix: ``invalid*``.

Before ranking, :func:`lexical_plan` drops stop words (``how``, ``the``, ``do`` …: the
:data:`STOP_WORDS` list) when the query holds other words, and adds each pair of
neighbouring remaining words as a bonus phrase, so rows holding the words together rank
first. (Until schema 2 the words were ANDed: a row had to hold every word.)

Everything else (``NEAR(``, ``col:x``, ``^``, ``-``, ``AND``/``OR``/``NOT``, brackets,
stray quotes) is read as plain words or dropped as punctuation, so any text is a valid
query. Adapters build their own query language only from these parsed terms, each term
quoted, never from the raw text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

__all__ = [
    "MAX_PAIRS",
    "MAX_TERMS",
    "STOP_WORDS",
    "LexicalPlan",
    "SearchQuery",
    "Term",
    "lexical_plan",
    "parse_search",
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


MAX_PAIRS = 16

# Lucene's English stop set (what Neo4j's ``english`` analyzer drops) plus the question words
# agents' queries are made of. Chosen on the eval's tune split (docs/search.md): dropping them
# when other words exist stops "how do I …" from ranking pages full of "how" and "do".
_LUCENE_ENGLISH_STOP = (  # Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with"
)
_QUESTION_WORDS = (
    "am been being can could did do does doing had has have having he her here hers him his "
    "how i its me my myself our ours she should so than them those us we were what when "
    "where which who whom why would you your yours"
)
STOP_WORDS = frozenset(_LUCENE_ENGLISH_STOP.split() + _QUESTION_WORDS.split())


@dataclass(frozen=True, slots=True)
class LexicalPlan:
    """What a backend ranks: ``terms`` OR-ed, plus ``pairs`` (bonus phrases of two
    neighbouring words). Empty ``terms`` means the text had no word at all."""

    terms: tuple[Term, ...]
    pairs: tuple[Term, ...]

    @property
    def clauses(self) -> tuple[Term, ...]:
        """Every OR-ed clause: the terms, then the bonus pairs."""
        return self.terms + self.pairs


def _plain(term: Term) -> bool:
    return not term.prefix and len(term.words) == 1


def lexical_plan(query: SearchQuery) -> LexicalPlan:
    """The OR-ed terms a lexical search ranks, the same on every backend.

    Stop words (a bare word in :data:`STOP_WORDS`) are dropped when any other term remains —
    a query made only of stop words searches them as given. Each pair of neighbouring bare
    words that remain becomes a bonus phrase (at most :data:`MAX_PAIRS`), so a row holding
    "page templates" together outranks one holding "page" and "templates" apart.
    Duplicate terms are dropped (BM25 would count them twice).
    """
    terms = tuple(dict.fromkeys(query.terms))
    kept = tuple(t for t in terms if not (_plain(t) and t.words[0] in STOP_WORDS))
    if kept:
        terms = kept
    pairs: list[Term] = []
    for a, b in pairwise(terms):
        if _plain(a) and _plain(b):
            pair = Term(a.words + b.words)
            if pair not in pairs and pair not in terms:
                pairs.append(pair)
    return LexicalPlan(terms, tuple(pairs[:MAX_PAIRS]))
