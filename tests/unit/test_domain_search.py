"""The search parser: any text becomes plain terms no backend can read as syntax."""

from __future__ import annotations

import re

import pytest

from ryvem.domain.search import (
    MAX_TERMS,
    SearchQuery,
    Term,
    lexical_plan,
    opening,
    parse_search,
    snippet,
)


def terms(text: str | None) -> list[tuple[tuple[str, ...], bool]]:
    return [(t.words, t.prefix) for t in parse_search(text).terms]


def test_words_become_lowercase_terms_that_are_anded() -> None:
    """Each bare word is one term, lower-cased."""
    assert terms("Cache INVALIDATION") == [(("cache",), False), (("invalidation",), False)]


def test_a_quoted_phrase_is_one_term_of_several_words() -> None:
    """Words between double quotes stay together, in order."""
    assert terms('use "Red Button" now') == [
        (("use",), False), (("red", "button"), False), (("now",), False)
    ]


def test_a_trailing_star_makes_a_prefix_term() -> None:
    """word* is a prefix term; a star elsewhere is punctuation."""
    assert terms("invalid*") == [(("invalid",), True)]
    assert terms("*invalid") == [(("invalid",), False)]
    assert terms('"phrase*"') == [(("phrase",), False)]


def test_an_unbalanced_quote_runs_to_the_end_of_the_text() -> None:
    """A stray opening quote still gives a phrase of the words after it."""
    assert terms('a "b c') == [(("a",), False), (("b", "c"), False)]


def test_punctuation_and_operators_are_plain_words_or_dropped() -> None:
    """NEAR(, col:x, ^, -, AND/OR/NOT and brackets carry no meaning."""
    assert terms("NOT -cache ^x (y) OR") == [
        (("not",), False), (("cache",), False), (("x",), False), (("y",), False), (("or",), False)
    ]
    assert terms("title:cache") == [(("title",), False), (("cache",), False)]
    assert terms("NEAR(a") == [(("near",), False), (("a",), False)]


def test_punctuation_inside_a_word_parts_it_into_words_ored_like_any_others() -> None:
    """"redis/postgres" finds rows holding either word, as "redis postgres" does (it used to
    be one phrase, so a row holding "Redis" alone was not found); the plan adds the pair as
    a bonus phrase, so a row holding "req/min" still ranks first for "req/min". A trailing
    star makes the last word a prefix."""
    assert terms("redis/postgres") == terms("redis postgres")
    assert terms("sessions,cookies") == [(("sessions",), False), (("cookies",), False)]
    assert terms("redis/post*") == [(("redis",), False), (("post",), True)]
    plan = lexical_plan(parse_search("req/min"))
    assert plan.terms == (Term(("req",)), Term(("min",)))
    assert plan.pairs == (Term(("req", "min")),)


@pytest.mark.parametrize("text", [None, "", "   ", "*", "-", '"', '""', "()", "^:*-", "\t\n"])
def test_text_without_words_is_an_empty_query(text: str | None) -> None:
    """No words at all means the listing, not an error."""
    q = parse_search(text)
    assert q == SearchQuery(()) and q.empty and q.words() == []


def test_unicode_words_are_kept_and_lowered() -> None:
    """Letters and digits of any script form words."""
    assert terms("ÉCOLE 漢字 v2") == [(("école",), False), (("漢字",), False), (("v2",), False)]


def test_underscores_split_words() -> None:
    """An underscore separates words as the FTS tokenizer does."""
    assert terms("snake_case") == [(("snake",), False), (("case",), False)]


def test_a_query_keeps_at_most_max_terms_terms() -> None:
    """Very long queries are cut to MAX_TERMS terms."""
    q = parse_search(" ".join(f"w{i}" for i in range(MAX_TERMS * 3)))
    assert len(q.terms) == MAX_TERMS
    assert q.terms[0] == Term(("w0",)) and q.terms[-1] == Term((f"w{MAX_TERMS - 1}",))


def test_three_hundred_nested_parentheses_parse_quickly_to_one_word() -> None:
    """Deep nesting is just punctuation."""
    assert terms("(" * 300 + "x" + ")" * 300) == [(("x",), False)]


def test_words_lists_every_word_of_every_term() -> None:
    """words() flattens the terms in order."""
    assert parse_search('a "b c" d*').words() == ["a", "b", "c", "d"]


@pytest.mark.parametrize(
    ("question", "body", "marked"),
    [
        ("what makes checkout retry safe", "Retries are safe: each request carries a key.",
         ["Retries", "safe"]),
        ("failed retries", "We retry once, then give up.", ["retry"]),
        ("how do we store sessions", "Sessions live in signed cookies; no store.",
         ["Sessions", "store"]),
        ("libraries", "The library folder holds templates.", ["library"]),
    ],
)
def test_a_snippet_marks_other_forms_of_a_query_word(
    question: str, body: str, marked: list[str]
) -> None:
    text = snippet("Title", body, parse_search(question))
    assert re.findall(r"\*\*(.+?)\*\*", text) == marked


def test_a_snippet_does_not_mark_a_word_that_only_shares_a_start_with_a_query_word() -> None:
    text = snippet("Title", "A keynote about keys.", parse_search("key"))
    assert re.findall(r"\*\*(.+?)\*\*", text) == ["keys"]


def test_a_snippet_marks_only_the_words_the_search_ranked_on_not_the_dropped_stop_words(
) -> None:
    """"how do we store sessions" ranks on "store" and "sessions": "We" in the body is not
    why the row was found, so it is not marked (the snippet's marks explain the hit)."""
    text = snippet("Title", "We store user sessions in signed cookies.",
                   parse_search("how do we store sessions"))
    assert re.findall(r"\*\*(.+?)\*\*", text) == ["store", "sessions"]
    # a question made only of stop words is searched as given, and marked as given
    only = snippet("Title", "What we do and how.", parse_search("what do we do"))
    assert re.findall(r"\*\*(.+?)\*\*", only) == ["What", "we", "do"]


def test_a_snippet_starts_with_an_ellipsis_only_when_words_were_left_out_before_it() -> None:
    """A body opening with markup ("**Idempotency** keys …", "# Retries") is shown from its
    start without "…" (it said "…Idempotency** keys"), its heading mark kept and its own
    emphasis left out; a snippet cut after some words still says so."""
    assert snippet("T", "**Idempotency** keys make retries safe.",
                   parse_search("retries")) == "Idempotency keys make **retries** safe."
    assert snippet("T", "# Retries\n\nWe retry once.", parse_search("retry")).startswith(
        "# **Retries**")
    long = " ".join(f"w{i}" for i in range(60)) + " retries are safe"
    assert snippet("T", long, parse_search("retries")).startswith("…")


def test_every_double_asterisk_in_a_snippet_marks_a_match_not_the_bodys_own_emphasis() -> None:
    """A body with markdown bold around the matched words read "We **store** **user
    **sessions**** …": marks nested in the body's own, which no reader (or agent) can
    untangle. The body's emphasis asterisks are left out; a lone "*" that is text stays."""
    body = ("We store **user sessions** in signed cookies; the ***secret*** and _the key_ "
            "rotate, 5 * 3 times, in *.md files.")
    text = snippet("T", body, parse_search("how do we store sessions"))
    assert text.startswith("We **store** user **sessions** in signed cookies; the secret ")
    assert re.findall(r"\*\*(.+?)\*\*", text) == ["store", "sessions"]
    tail = snippet("T", body, parse_search("md files"))
    assert tail == "…3 times, in *.**md** **files**."
    assert "5 * 3" in snippet("T", body, parse_search("rotate"))


def test_a_snippet_keeps_every_asterisk_that_is_text_not_emphasis() -> None:
    """Leaving the body's emphasis out turned "2**10" into "210" and "a_b*c" into "a_bc":
    a snippet stating a wrong number. Only paired emphasis is left out now."""
    body = "Limits: 2**10 rows, a_b*c and char* match src/**/*.py; keep **this** bold."
    text = snippet("T", body, parse_search("limits rows match bold"))
    assert "2**10 **rows**" in text and "a_b*c" in text and "char* **match** src/**/*.py" in text
    assert "keep this **bold**." in text
    assert opening(body) == "Limits: 2**10 rows, a_b*c and char* match src/**/*.py; keep this bold."
    cut = "x " * 30 + "the **user sessions live** in cookies"  # the pair opens before the piece
    assert "the user **sessions** live in" in snippet("T", cut, parse_search("sessions"))


def test_a_snippet_that_reaches_the_end_of_the_body_keeps_its_closing_punctuation() -> None:
    """"See [[auth]]." ended as "See [[auth": the characters after the last word were cut."""
    assert snippet("T", "Sessions live in cookies. See [[auth]].",
                   parse_search("sessions")).endswith("See [[auth]].")
    assert snippet("T", "Sessions live in cookies\n```", parse_search("sessions")).endswith(
        "in cookies")


def test_a_hit_without_marks_shows_the_bodys_start_without_its_emphasis() -> None:
    assert opening("**Bold** start,\n with *it* and 2 * 3") == "Bold start, with it and 2 * 3"
    assert len(opening("word " * 100)) == 120


def test_a_snippet_marks_what_the_index_stems_alike_and_not_a_word_a_rough_rule_joined() -> None:
    """A sweep saw "notes" mark "not" ("…where you **not** only write…"): the snippet's own
    rough stemmer cut "es" and "e". It stems as the indexes do (Porter) now."""
    body = "A place where you not only write things down. Later, your notes are kept here."
    assert re.findall(r"\*\*(.+?)\*\*", snippet("T", body, parse_search("notes"))) == ["notes"]
    rates = "The rat ate. Exchange rates come daily; states and stats differ."
    assert re.findall(r"\*\*(.+?)\*\*", snippet("T", rates, parse_search("rate states"))) == [
        "rates", "states"]
    assert re.findall(r"\*\*(.+?)\*\*", snippet("T", "We were happy.", parse_search(
        "happiness"))) == ["happy"]
