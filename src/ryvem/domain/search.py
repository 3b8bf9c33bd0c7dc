"""Search text → a structured query that no backend can mistake for syntax.

Supported syntax (documented in docs/guides/search.md):

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
query; punctuation inside a word parts it (``redis/postgres`` is ``redis`` and
``postgres``, OR-ed, with the pair as a bonus phrase). Adapters build their own query
language only from these parsed terms, each term quoted, never from the raw text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import snowballstemmer

__all__ = [
    "MAX_PAIRS",
    "MAX_TERMS",
    "STOP_WORDS",
    "LexicalPlan",
    "SearchQuery",
    "Term",
    "fold",
    "lexical_plan",
    "opening",
    "parse_search",
    "snippet",
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
        # Punctuation between words parts them, as the backends' tokenizers part them:
        # "redis/postgres", "title:cache" and "sessions,cookies" are words OR-ed like any
        # others (the plan adds each neighbouring pair as a bonus phrase, so a row holding
        # "req/min" still comes first for "req/min"), never one phrase a row must hold.
        # A trailing ``*`` makes the last of them a prefix.
        prefix = bare.endswith("*")
        terms.extend(Term((w,), prefix=prefix and i == len(words) - 1)
                     for i, w in enumerate(words))
    return SearchQuery(tuple(terms[:MAX_TERMS]))


MAX_PAIRS = 16

# Lucene's English stop set (what Neo4j's ``english`` analyzer drops) plus the question words
# agents' queries are made of. Chosen on the eval's tune split (docs/notes/search-notes.md):
# dropping them when other words exist stops "how do I …" from ranking pages full of "how" and "do".
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


def fold(word: str) -> str:
    """Lowercase without diacritics (what both backends' indexes see of a word)."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


_PORTER = snowballstemmer.stemmer("porter")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A folded word's stem as the indexes rank it: the Porter algorithm, which SQLite's
    ``porter`` tokenizer and Lucene's English analyzer both run, on ASCII words (FTS5's
    stems only those). A rough suffix-stripper before marked "not" for "notes" ("note" and
    "notes" both became "not")."""
    return _PORTER.stemWord(word) if word.isascii() and word.isalpha() else word


def _start(stem: str) -> str:
    """What a word with this stem starts with: Porter may end a stem with a letter the word
    does not have ("happi" for "happy", "kei" for "key"), so the last one is left out of a
    longer stem, and of a short one ending in the "i" or "e" Porter writes."""
    return stem[:-1] if len(stem) > 3 or (len(stem) > 1 and stem[-1] in "ie") else stem


SNIPPET_TOKENS = 16


@lru_cache(maxsize=64)
def _matcher(query: SearchQuery) -> tuple[re.Pattern[str], Callable[[str], bool]] | None:
    """For one query (its snippets are cut once per hit): a regex of the word starts that can
    match, and the test whether a word matches (memoised per word). The words are those the
    search ranks on (:func:`lexical_plan`): a stop word it dropped is not why a row was found,
    so it is not marked."""
    stems: set[str] = set()
    prefixes: list[str] = []
    for term in lexical_plan(query).terms:
        folded = [fold(w) for w in term.words]
        if term.prefix and folded:
            stems.update(_stem(w) for w in folded[:-1])
            prefixes.append(folded[-1])
        else:
            stems.update(_stem(w) for w in folded)
    starts = sorted({_start(x) for x in stems} | set(prefixes), key=len, reverse=True)
    if not starts:
        return None

    @lru_cache(maxsize=4096)
    def hit(word: str) -> bool:
        f = fold(word)
        return _stem(f) in stems or any(f.startswith(p) for p in prefixes)

    begins = re.compile(
        r"(?<![^\W_])(?:" + "|".join(re.escape(x) for x in starts) + ")", re.IGNORECASE
    )
    return begins, hit


def snippet(title: str, body: str, query: SearchQuery) -> str:
    """About 16 words of the body (else the title) around the first word that matches the
    query's ranked words (its stop words dropped, as ranking drops them) — the same word,
    another form of it, or a prefix term's continuation — matches
    marked ``**word**``; the body's start when nothing matches. Cut in Python from the rows
    returned, the same on both backends (FTS5's snippet() costs a tokenisation of every
    matching row's body before the sort).

    The text's own emphasis asterisks (``**bold**``, ``*italic*``) are left out, so every
    ``**`` in a snippet marks a match: a body saying "we keep **user sessions**" reads
    "we keep user **sessions**", not "we keep **user **sessions****"."""
    matcher = _matcher(query)
    if matcher is None:
        return opening(body)
    begins, hit = matcher
    for text in (body, title):
        first = _first_hit(text, begins, hit)
        if first is None:
            continue
        lo = max(0, first - 160)
        lo = 0 if lo == 0 else text.rfind(" ", 0, lo) + 1
        tokens = list(_WORD.finditer(text, lo, first + 400))
        at = next(i for i, t in enumerate(tokens) if t.start() == first)
        start = max(0, at - 3)
        end = min(len(tokens), start + SNIPPET_TOKENS)
        out: list[str] = []
        pos = tokens[start].start()
        for t in tokens[start:end]:
            word = t.group(0)
            out.append(_unemphasised(text, pos, t.start()))
            plain = (word.isascii() and begins.match(word) is None) or not hit(word)
            out.append(word if plain else f"**{word}**")
            pos = t.end()
        more = _WORD.search(text, pos) is not None
        # "…" only where words were left out. A text that opens or ends with markup ("#
        # Heading", "[[a link]].") shows that markup instead (up to 8 characters of its line).
        less = _WORD.search(text, 0, tokens[start].start()) is not None
        if less:
            head = "…"
        else:
            # Only the markup before the first word is read (no copy of the body's rest:
            # this runs for every hit).
            first_at = tokens[start].start()
            lead = text[text.rfind("\n", 0, first_at) + 1 : first_at]
            opens = first_at - len(lead.lstrip())
            head = _unemphasised(text, max(opens, first_at - 8), first_at)
        if more:
            tail = "…"
        else:
            close = text.find("\n", pos)
            tail = _unemphasised(text, pos, min(pos + 8, len(text) if close < 0 else close))
            tail = tail.rstrip()
        return head + "".join(out) + tail
    return opening(body)


# Markdown emphasis: a run of one to three asterisks that opens (after no letter, digit or
# "_", before a letter, digit, quote, backtick or bracket) and is closed by the same run on
# the same line (after a non-space, before no letter, digit or "_"): "**bold**", "*it*",
# "***both***". An unpaired or intraword asterisk is text and stays: "2**10", "a_b*c",
# "char*", "5 * 3", "*.md", "src/**/*.py".
_EMPHASIS = re.compile(r"(?<![\w*])(\*{1,3})(?=[\w`'\"(\[])([^\n]*?[^\s*])\1(?![\w*])")
_EMPHASIS_REACH = 400  # how far from a snippet's piece a pair is looked for (a long line)


def _emphasis_marks(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Where the emphasis asterisks (:data:`_EMPHASIS`) are on the lines ``text[lo:hi]``
    touches (at most :data:`_EMPHASIS_REACH` characters either side), as (start, end) spans
    in order."""
    a = max(text.rfind("\n", 0, lo) + 1, lo - _EMPHASIS_REACH)
    b = text.find("\n", hi)
    b = min(len(text) if b < 0 else b, hi + _EMPHASIS_REACH)
    marks: list[tuple[int, int]] = []
    for m in _EMPHASIS.finditer(text, a, b):
        marks += [(m.start(1), m.end(1)), (m.end(2), m.end())]
    return marks


def _unemphasised(text: str, lo: int, hi: int) -> str:
    """``text[lo:hi]`` without its emphasis asterisks (judged on the whole lines it touches,
    so a pair cut by the slice is still seen as one)."""
    if "*" not in text[lo:hi]:
        return text[lo:hi]
    out: list[str] = []
    at = lo
    for start, end in _emphasis_marks(text, lo, hi):
        if end <= lo:
            continue
        if start >= hi:
            break
        out.append(text[at : max(start, at)])
        at = min(end, hi)
    out.append(text[at:hi])
    return "".join(out)


def opening(body: str) -> str:
    """A hit's snippet when no word of the query is marked in it (a listing of recent nodes,
    a vector hit): the body's first 120 characters, white space run together, without its
    emphasis asterisks (so a snippet's ``**`` marks a match, or is the body's own text)."""
    return _EMPHASIS.sub(r"\2", " ".join(body[:400].split()))[:120]


_NON_ASCII_WORD = re.compile(r"[^\W_]*[^\x00-\x7f][^\W_]*")


def _first_hit(text: str, begins: re.Pattern[str], hit: Callable[[str], bool]) -> int | None:
    """Where the first matching word of ``text`` starts: a regex finds the words that start
    with a stem or prefix; words with non-ASCII letters (which it cannot see folded) are
    checked one by one."""
    found = None
    for m in begins.finditer(text):
        word = _WORD.match(text, m.start())
        if word is not None and hit(word.group(0)):
            found = m.start()
            break
    if not text.isascii():
        for w in _NON_ASCII_WORD.finditer(text, 0, len(text) if found is None else found):
            if hit(w.group(0)):
                return w.start()
    return found
