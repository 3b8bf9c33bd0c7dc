"""Search: current rows only, filters, listing without text, and any text is a valid query."""

from __future__ import annotations

import pytest

from ryvem.application.service import Service
from ryvem.domain.model import SearchHit
from ryvem.errors import InvalidInput

from .base import ContractBase

REPO_A = "repo:11111111-1111-4111-8111-111111111111"
REPO_B = "repo:22222222-2222-4222-8222-222222222222"
BOARD = "board:sprint-7"


def ids(hits: list[SearchHit]) -> list[str]:
    return [h.id for h in hits]


HOSTILE = [
    "",
    "   ",
    '"',
    '"""',
    "'",
    "it's",
    '"unbalanced phrase',
    "NEAR(",
    "NEAR(a b, 2)",
    "*",
    "**",
    "a*b*",
    "-",
    "-cache",
    "^",
    "^cache",
    ":",
    "title:cache",
    "col:x body:",
    "AND",
    "OR",
    "NOT",
    "cache AND OR NOT",
    "NOT cache",
    "(",
    ")",
    "((cache)",
    "(" * 300 + "cache" + ")" * 300,
    "(" * 300,
    "{title body}: x",
    "a + b",
    "%_\\",
    "\\",
    "`rm -rf`",
    "'; DROP TABLE nodes; --",
    "MATCH (n) DETACH DELETE n",
    "cache~2",
    "cache^4",
    "/regex.*/",
    "[a TO z]",
    "é ü ß 漢字 🚀",
    "\t\n\r",
    "a" * 5000,
    " ".join(["word"] * 200),
]


class SearchContract(ContractBase):
    """Search: current rows only, filters, listing without text, and any text is a valid query."""

    def test_search_finds_a_word_in_the_title_or_the_body(self, service: Service) -> None:
        """A word matches rows holding it in the title or the body."""
        t = service.write("decision", "Invalidate the cache nightly", key="a")
        b = service.write("decision", "Nightly jobs", key="b", body="The cache is flushed.")
        service.write("decision", "Unrelated", key="c", body="Nothing to see.")
        hits = service.search("cache")
        assert sorted(ids(hits)) == sorted([t.id, b.id])
        hit = next(h for h in hits if h.id == t.id)
        assert (hit.kind, hit.scope, hit.title) == ("decision", "global", t.title)

    def test_a_title_match_ranks_above_a_body_match(self, service: Service) -> None:
        """Hits are best first and a title hit outranks a body-only hit."""
        service.write("note", "Other things", key="b", body="we talk about the gateway here once")
        t = service.write("note", "Gateway", key="a", body="short")
        hits = service.search("gateway")
        assert ids(hits)[0] == t.id
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)

    def test_search_words_are_anded(self, service: Service) -> None:
        """Several words find only rows holding all of them."""
        both = service.write("decision", "Cache invalidation", key="a")
        service.write("decision", "Cache warming", key="b")
        service.write("decision", "Invalidation of tokens", key="c")
        assert ids(service.search("cache invalidation")) == [both.id]

    def test_a_quoted_phrase_matches_words_in_order(self, service: Service) -> None:
        """A quoted phrase needs its words adjacent and in order."""
        yes = service.write("decision", "x", key="a", body="we chose the red button")
        service.write("decision", "y", key="b", body="the button is red")
        assert ids(service.search('"red button"')) == [yes.id]

    def test_a_trailing_star_matches_a_prefix(self, service: Service) -> None:
        """word* finds every word starting with it; without the star it does not."""
        v = service.write("decision", "Invalidation strategy", key="a")
        assert ids(service.search("invalid*")) == [v.id]
        assert ids(service.search("invalid")) == []

    def test_search_is_case_insensitive(self, service: Service) -> None:
        """Upper and lower case find the same rows."""
        v = service.write("decision", "PostgreSQL tuning", key="a")
        assert ids(service.search("postgresql")) == [v.id]
        assert ids(service.search("POSTGRESQL")) == [v.id]

    def test_superseded_text_is_not_found_but_the_current_text_is(self, service: Service) -> None:
        """After a supersede the old text is gone from search and the new text is found."""
        service.write("decision", "Use Redis", key="cache", body="redis cluster")
        v2 = service.write("decision", "Use memcached", key="cache", body="memcached pool")
        assert service.search("redis") == []
        assert ids(service.search("memcached")) == [v2.id]

    def test_search_as_of_finds_the_text_valid_then(self, service: Service) -> None:
        """With as_of the search looks at rows valid then, superseded ones included."""
        v1 = service.write("decision", "Use Redis", key="cache", body="redis cluster")
        v2 = service.write("decision", "Use memcached", key="cache", body="memcached pool")
        assert ids(service.search("redis", as_of=v1.valid_from)) == [v1.id]
        assert service.search("memcached", as_of=v1.valid_from) == []
        assert ids(service.search("memcached", as_of=v2.valid_from)) == [v2.id]
        assert service.search("redis", as_of=v2.valid_from) == []

    def test_retired_rows_are_not_found(self, service: Service) -> None:
        """Retiring a row removes it from search; as of before the retire it is found."""
        v = service.write("decision", "Kafka topics", key="k")
        retired = service.retire("decision/k")
        assert service.search("kafka") == []
        assert service.search(None, kinds=["decision"]) == []
        assert retired.valid_to is not None
        assert ids(service.search("kafka", as_of=retired.valid_to - 1)) == [v.id]

    def test_unchanged_rewrites_do_not_duplicate_hits(self, service: Service) -> None:
        """Rewriting the same content keeps exactly one hit."""
        v = service.write("decision", "Idempotent writes", key="a")
        service.write("decision", "Idempotent writes", key="a")
        assert ids(service.search("idempotent")) == [v.id]

    def test_the_kind_filter_keeps_only_those_kinds(self, service: Service) -> None:
        """kinds narrows hits and listings to the given kinds."""
        d = service.write("decision", "Retry policy", key="a")
        t = service.write("task", "Retry policy work", key="b")
        r = service.write("review", "Retry policy review", key="c")
        assert ids(service.search("retry", kinds=["task"])) == [t.id]
        assert sorted(ids(service.search("retry", kinds=["decision", "review"]))) == sorted(
            [d.id, r.id]
        )
        assert ids(service.search(None, kinds=["review"])) == [r.id]

    def test_an_invalid_kind_filter_is_rejected(self, service: Service) -> None:
        """A kind that is not a slug is InvalidInput, not an empty result."""
        with pytest.raises(InvalidInput):
            service.search("x", kinds=["Not A Kind"])

    def test_scope_filters_pick_one_scope_a_shape_or_all(self, service: Service) -> None:
        """Default scope, an exact scope, repo:*, board:* and all scopes each see their rows."""
        g = service.write("decision", "Shared word", key="k")
        a = service.write("decision", "Shared word", key="k", scope=REPO_A)
        b = service.write("decision", "Shared word", key="k", scope=REPO_B)
        s = service.write("decision", "Shared word", key="k", scope=BOARD)
        assert ids(service.search("shared")) == [g.id]
        assert ids(service.search("shared", scope=REPO_A)) == [a.id]
        assert sorted(ids(service.search("shared", scope="repo:*"))) == sorted([a.id, b.id])
        assert ids(service.search("shared", scope="board:*")) == [s.id]
        assert sorted(ids(service.search("shared", all_scopes=True))) == sorted(
            [g.id, a.id, b.id, s.id]
        )
        assert sorted(ids(service.search(None, scope="repo:*"))) == sorted([a.id, b.id])
        assert sorted(ids(service.search("shared", scope=REPO_A, as_of=a.valid_from))) == [a.id]

    def test_listing_without_text_gives_the_most_recent_current_rows_first(
        self, service: Service
    ) -> None:
        """No text lists current rows newest first, honouring the limit."""
        a = service.write("task", "First", key="a")
        b = service.write("task", "Second", key="b")
        c = service.write("task", "Third", key="c")
        a2 = service.write("task", "First again", key="a")
        assert ids(service.search(None)) == [a2.id, c.id, b.id]
        assert ids(service.search("")) == [a2.id, c.id, b.id]
        assert ids(service.search(None, limit=2)) == [a2.id, c.id]
        assert a.id not in ids(service.search(None))
        assert ids(service.search(None, as_of=c.valid_from)) == [c.id, b.id, a.id]

    def test_the_limit_caps_the_hits(self, service: Service) -> None:
        """limit bounds how many hits a search returns."""
        for i in range(5):
            service.write("note", f"Widget {i}", key=f"w{i}")
        assert len(service.search("widget", limit=3)) == 3
        assert len(service.search("widget")) == 5

    @pytest.mark.parametrize("limit", [0, -1, True, "3"])
    def test_a_bad_limit_is_rejected(self, service: Service, limit: object) -> None:
        """The limit must be a positive integer."""
        with pytest.raises(InvalidInput):
            service.search("x", limit=limit)  # type: ignore[arg-type]  # deliberately wrong type

    @pytest.mark.parametrize("text", HOSTILE, ids=[f"q{i}" for i in range(len(HOSTILE))])
    def test_any_query_text_is_valid_and_never_raises(self, service: Service, text: str) -> None:
        """Hostile query strings are read as plain words, now and as of a time."""
        v = service.write("decision", "Cache word (NEAR) AND stuff", key="k", body="cache body")
        hits = service.search(text)
        assert all(h.id == v.id for h in hits)
        past = service.search(text, as_of=v.valid_from)
        assert all(h.id == v.id for h in past)

    def test_punctuation_around_a_word_still_finds_it(self, service: Service) -> None:
        """Operators and punctuation are dropped, so the words inside still match."""
        v = service.write("decision", "Cache layer", key="k")
        for text in ["-cache", "^cache", "((cache)", '"cache', "cache*)", "(cache", ":cache:"]:
            assert ids(service.search(text)) == [v.id], text

    def test_operator_words_are_plain_words(self, service: Service) -> None:
        """AND, OR, NOT and col:x are searched as words, not obeyed as syntax."""
        plain = service.write("decision", "Cache layer", key="k")
        worded = service.write("decision", "Cache or not", key="w", body="title: cache")
        assert ids(service.search("cache OR")) == [worded.id]
        assert ids(service.search("NOT cache")) == [worded.id]
        assert ids(service.search("title:cache")) == [worded.id]
        assert sorted(ids(service.search("cache"))) == sorted([plain.id, worded.id])

    def test_search_as_of_ignores_case_in_any_script(self, service: Service) -> None:
        """The as-of fallback matches upper-case non-ASCII text as the current search does."""
        v1 = service.write("decision", "ÉCOLE ΣΟΦΊΑ", key="k", body="ПРИВЕТ мир")
        service.write("decision", "Replaced", key="k")
        for word in ("école", "σοφία", "привет", "ÉCOLE"):
            assert ids(service.search(word, as_of=v1.valid_from)) == [v1.id], word
