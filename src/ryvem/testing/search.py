"""Search: words OR-ed and ranked (BM25, stemmed, diacritics folded), current rows only or as
of a time from an index of every version, filters, listing without text, and any text is a
valid query."""

from __future__ import annotations

import pytest

from ryvem.application import search as recall
from ryvem.application.service import Service
from ryvem.domain.model import SearchHit
from ryvem.domain.search import parse_search
from ryvem.errors import InvalidInput
from ryvem.ports import GraphRepository

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

    def test_words_are_ored_and_rows_holding_all_of_them_come_first(
        self, service: Service
    ) -> None:
        """Several words find rows holding any of them; a row holding all ranks first."""
        cache_only = service.write("decision", "Cache warming", key="b")
        both = service.write("decision", "Cache invalidation", key="a")
        inval = service.write("decision", "Invalidation of tokens", key="c")
        service.write("decision", "Unrelated", key="d")
        hits = ids(service.search("cache invalidation"))
        assert hits[0] == both.id
        assert sorted(hits) == sorted([both.id, cache_only.id, inval.id])

    def test_rows_holding_more_of_the_words_rank_higher(self, service: Service) -> None:
        """Three words of equal rarity in bodies of equal length: the row with all three
        above the row with two, above the row with one."""
        one = service.write("note", "Note", key="one", body="retry plain plain text")
        three = service.write("note", "Note", key="three", body="checkout retry idempotent text")
        two = service.write("note", "Note", key="two", body="checkout plain idempotent text")
        for i in range(4):  # padding, so the words are not in most rows
            service.write("note", f"Filler {i}", key=f"f{i}", body="plain text")
        hits = ids(service.search("checkout retry idempotent"))
        assert hits[:3] == [three.id, two.id, one.id]

    def test_question_words_do_not_decide_the_ranking(self, service: Service) -> None:
        """Stop words ("how do we") are ignored when other words exist, so a row full of
        them does not outrank the one about the subject."""
        chatter = service.write(
            "note", "How do we do it", key="chatter",
            body="how do we do this, how do we do that, we do how we do",
        )
        subject = service.write("note", "Sessions", key="subject", body="signed cookies")
        hits = ids(service.search("how do we store sessions"))
        assert hits == [subject.id]
        assert chatter.id not in hits

    def test_a_query_made_only_of_question_words_still_searches_them(
        self, service: Service
    ) -> None:
        """Stop words are dropped only when other words exist."""
        v = service.write("note", "Where to look", key="w", body="somewhere")
        service.write("note", "Elsewhere", key="e", body="nothing")
        assert ids(service.search("where")) == [v.id]

    def test_words_next_to_each_other_rank_above_the_same_words_apart(
        self, service: Service
    ) -> None:
        """Neighbouring query words are a bonus phrase: "page templates" together first."""
        apart = service.write(
            "note", "Notes", key="apart", body="a page with templates and a page of text"
        )
        together = service.write("note", "Notes", key="together", body="page templates here")
        hits = ids(service.search("page templates"))
        assert hits[0] == together.id and apart.id in hits

    def test_other_word_forms_find_each_other(self, service: Service) -> None:
        """Words are stemmed: session/sessions, store/stored/storing find the same rows."""
        s1 = service.write("note", "Keep sessions in signed cookies", key="s")
        s2 = service.write("note", "Where state is kept", key="t", body="we stored it")
        service.write("note", "Unrelated", key="u", body="nothing here")
        assert ids(service.search("session")) == [s1.id]
        assert ids(service.search("SESSIONS")) == [s1.id]
        assert ids(service.search("storing")) == [s2.id]
        assert ids(service.search("store")) == [s2.id]
        assert ids(service.search("how do we store sessions"))[:2] in (
            [s1.id, s2.id], [s2.id, s1.id]
        )

    def test_diacritics_are_folded(self, service: Service) -> None:
        """café finds cafe and cafe finds café."""
        v = service.write("note", "Café menu", key="c")
        w = service.write("note", "Cafe hours", key="d")
        assert sorted(ids(service.search("cafe"))) == sorted([v.id, w.id])
        assert sorted(ids(service.search("café"))) == sorted([v.id, w.id])

    def test_the_key_is_searched_too(self, service: Service) -> None:
        """A row's key (a page's name) matches its words, even when title and body do not."""
        v = service.write("note", "Details", key="Guide/Encryption", body="see below")
        service.write("note", "Other", key="other", body="see above")
        assert ids(service.search("encryption")) == [v.id]

    def test_a_quoted_phrase_matches_words_in_order(self, service: Service) -> None:
        """A quoted phrase needs its words adjacent and in order."""
        yes = service.write("decision", "x", key="a", body="we chose the red button")
        service.write("decision", "y", key="b", body="the button is red")
        assert ids(service.search('"red button"')) == [yes.id]

    def test_a_trailing_star_matches_a_prefix(self, service: Service) -> None:
        """word* finds every word starting with it; without the star it does not."""
        v = service.write("decision", "Kubernetes strategy", key="a")
        assert ids(service.search("kube*")) == [v.id]
        assert ids(service.search("kube")) == []

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

    def test_search_as_of_is_ranked_like_current_search(self, service: Service) -> None:
        """As of a time, hits come best first too: all the words above some of them, and a
        past version's words are found as of then and not now."""
        first = service.write("note", "Retry budget", key="a", body="checkout retry budget")
        service.write("note", "Checkout", key="b", body="one word")
        service.write("note", "Other", key="c", body="retry elsewhere")
        then = service.write("note", "Padding", key="d", body="nothing").valid_from
        service.write("note", "Moved on", key="a", body="gone")
        hits = service.search("checkout retry budget", as_of=then)
        assert ids(hits)[0] == first.id and len(hits) == 3
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert first.id not in ids(service.search("checkout retry budget"))
        assert ids(service.search("budget")) == []
        assert ids(service.search("budgets", as_of=then)) == [first.id]

    def test_a_row_is_found_under_a_hundred_better_matches_the_filters_drop(
        self, service: Service
    ) -> None:
        """The best rows that pass the filters come back even when more than a hundred rows
        match the words better but are superseded, of another kind, or (as of a time) made
        later: the answer is the filtered top, not the top filtered."""
        early = service.write("note", "Early", key="early", body="a zebra once")
        then = early.valid_from
        service.write("note", "Early", key="early", body="nothing to see")
        for i in range(60):
            service.write("note", f"Zebra zebra {i}", key="herd", body="zebra zebra zebra")
        service.write("note", "Horses", key="herd", body="only horses now")
        for i in range(50):
            service.write("task", f"Zebra crossing {i}", key=f"t{i}", body="zebra zebra")
        weak = service.write("note", "Animals", key="zoo", body="one zebra among many words")
        assert ids(service.search("zebra", kinds=["note"], limit=1)) == [weak.id]
        assert ids(service.search("zebra", kinds=["note"], limit=3)) == [weak.id]
        assert ids(service.search("zebra", limit=60))[-1] == weak.id
        assert ids(service.search("zebra", kinds=["note"], limit=1, as_of=then)) == [early.id]

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
        """AND, OR, NOT and col:x are never obeyed as syntax: NOT excludes nothing, col: picks
        no column, and the words around them still rank."""
        plain = service.write("decision", "Cache layer", key="k")
        worded = service.write("decision", "Cache or not", key="w", body="title: cache")
        assert sorted(ids(service.search("NOT cache"))) == sorted([plain.id, worded.id])
        assert ids(service.search("title:cache"))[0] == worded.id
        assert ids(service.search("cache NOT layer"))[0] == plain.id
        assert sorted(ids(service.search("cache"))) == sorted([plain.id, worded.id])

    def test_punctuation_inside_a_word_parts_it_into_words_ored_like_any_others(
        self, service: Service
    ) -> None:
        """"redis/postgres" finds a row holding "Redis" alone, as "redis postgres" does, and a
        row holding "req/min" (the words side by side) ranks first for "req/min"."""
        redis = service.write("decision", "Sessions live in Redis", key="r")
        limit = service.write("decision", "Rate limit", key="l", body="at most 300 req/min")
        apart = service.write("decision", "Request budget", key="a",
                              body="each req counts; min and max set per client")
        assert ids(service.search("redis/postgres")) == [redis.id]
        assert ids(service.search("sessions,cookies")) == [redis.id]
        found = ids(service.search("req/min"))
        assert found[0] == limit.id and apart.id in found

    def test_search_as_of_ignores_case_in_any_script(self, service: Service) -> None:
        """The as-of fallback matches upper-case non-ASCII text as the current search does."""
        v1 = service.write("decision", "ÉCOLE ΣΟΦΊΑ", key="k", body="ПРИВЕТ мир")
        service.write("decision", "Replaced", key="k")
        for word in ("école", "σοφία", "привет", "ÉCOLE"):
            assert ids(service.search(word, as_of=v1.valid_from)) == [v1.id], word

    def test_graph_distance_lists_the_rows_linked_to_the_best_hits(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """The graph component ranks rows one edge from the top hits (links either way and
        typed edges), the row linked to more and better seeds first; out-of-scope and
        retired rows never appear; fused, a linked row no word matched is found and its
        ranks say it came from the graph."""
        service.write("page", "Cookie sessions", key="cookies", scope="global",
                      body="Sessions live in signed cookies. See [[signing]] and [[rotation]].")
        service.write("page", "Redis storage", key="storage", scope="global",
                      body="Sessions were once in Redis. See [[signing]].")
        service.write("page", "Key signing", key="signing", scope="global", body="HMAC keys.")
        service.write("page", "Key rotation", key="rotation", scope="global", body="Monthly.")
        service.write("page", "Elsewhere", key="elsewhere", scope=BOARD,
                      body="Points at [[cookies]].")
        service.write("page", "Audit", key="audit", scope="global", body="Logs.")
        service.link("audit", "cookies", "depends-on", scope="global")
        service.write("page", "Gone", key="gone", scope="global", body="[[cookies]]")
        service.retire("gone", scope="global")
        request = service.search_request("sessions", scope="global", limit=10)
        seeds = service.repo.search(parse_search("sessions"), [], request.scope, 2, None)
        assert [h.title for h in seeds] == ["Cookie sessions", "Redis storage"]
        graph = [h.title for h in recall.linked_to(service.repo, seeds, request, 10)]
        # Key signing is linked from both seeds (1 + 1/2); each seed counts itself.
        assert graph[:2] == ["Key signing", "Cookie sessions"]
        assert set(graph) == {"Cookie sessions", "Redis storage", "Key signing",
                              "Key rotation", "Audit"}
        strategy = recall.Strategy("lexical+graph", ("lexical", "graph"), graph_seeds=2)
        fused = recall.run_strategy(strategy, service.repo, request, None)
        signing = next(h for h in fused if h.hit.title == "Key signing")
        assert signing.ranks["lexical"] is None and signing.ranks["graph"] == 1
        assert fused[0].hit.title == "Cookie sessions"
