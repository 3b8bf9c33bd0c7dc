"""Vectors (the ``StoresVectors`` capability): queued with the write, versioned like the text,
searched over current rows in scope; and the search modes over them (real model)."""

from __future__ import annotations

import struct

import pytest

from ryvem.application import search as recall
from ryvem.application.service import NewNode, Service
from ryvem.application.session import Session
from ryvem.domain.scopes import ScopeFilter, parse_scope_filter
from ryvem.errors import InvalidInput
from ryvem.ports import GraphRepository, StoresVectors

from .base import ContractBase

DIM = 384
MODEL = "contract-model"
BOARD = "board:vectors"


def axis(*weights: tuple[int, float]) -> bytes:
    """A unit vector along the given axes (little-endian float32), so cosines are exact."""
    v = [0.0] * DIM
    for i, w in weights:
        v[i] = w
    norm = sum(x * x for x in v) ** 0.5
    return struct.pack(f"<{DIM}f", *(x / norm for x in v))


def store(repo: GraphRepository) -> StoresVectors:
    assert isinstance(repo, StoresVectors), f"{repo.backend} keeps no vectors"
    return repo


def embed_all(repo: GraphRepository, vectors: dict[str, list[bytes]]) -> int:
    """Store the given chunk vectors (by title) for every queued row."""
    s = store(repo)
    rows = [(p, vectors[p.title]) for p in s.vector_backlog(10_000) if p.title in vectors]
    return s.put_vectors(MODEL, rows)


def found(repo: GraphRepository, vector: bytes, *, kinds: tuple[str, ...] = (),
          scope: ScopeFilter | None = None, limit: int = 10) -> list[str]:
    hits = store(repo).vector_search(MODEL, vector, list(kinds), scope or ScopeFilter(), limit)
    return [h.title for h in hits]


class VectorsContract(ContractBase):
    def test_a_very_short_row_is_damped_below_a_full_one_of_nearly_equal_meaning(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """damp_short scales a row's cosine by its length (a three-word template no longer
        outranks a page that explains), and leaves rows of full length as they were."""
        service.write("page", "Note", key="template", body="> note")
        service.write("page", "Admonitions", key="admonitions",
                      body=" ".join(["Admonitions are boxed notes that stand out."] * 12))
        embed_all(repo, {"Note": [axis((0, 1.0))],
                         "Admonitions": [axis((0, 0.9), (1, 0.1))]})
        hits = store(repo).vector_search(MODEL, axis((0, 1.0)), [], ScopeFilter(), 10)
        assert [h.title for h in hits] == ["Note", "Admonitions"]
        damped = recall.damp_short(repo, hits, 64, 0.5)
        assert [h.title for h in damped] == ["Admonitions", "Note"]
        assert damped[0].score == pytest.approx(hits[1].score, abs=1e-5)
        assert damped[1].score < hits[0].score / 3

    def test_a_new_current_row_waits_in_the_queue_until_its_vectors_are_stored(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """The write queues the row; storing its vectors takes it off the queue."""
        service.write("decision", "Alpha", key="alpha", body="first")
        s = store(repo)
        assert s.vector_pending() == 1
        [pending] = s.vector_backlog(10)
        assert (pending.title, pending.body) == ("Alpha", "first")
        assert found(repo, axis((0, 1.0))) == []
        assert embed_all(repo, {"Alpha": [axis((0, 1.0))]}) == 1
        assert s.vector_pending() == 0 and s.vector_backlog(10) == []
        assert found(repo, axis((0, 1.0))) == ["Alpha"]

    def test_a_row_scores_by_its_best_chunk_and_appears_once(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """Two chunks of one row: the row comes once, with the better chunk's cosine."""
        service.write("page", "Long", key="long")
        service.write("page", "Short", key="short")
        embed_all(repo, {"Long": [axis((1, 1.0)), axis((0, 1.0))],
                         "Short": [axis((0, 1.0), (1, 1.0))]})
        hits = store(repo).vector_search(MODEL, axis((0, 1.0)), [], ScopeFilter(), 10)
        assert [h.title for h in hits] == ["Long", "Short"]
        assert hits[0].score == pytest.approx(1.0, abs=1e-4)
        assert hits[1].score == pytest.approx(2 ** -0.5, abs=1e-4)

    def test_a_superseded_row_leaves_the_vector_index_in_the_same_write(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """Once superseded, the old version is never a vector hit; its successor is queued."""
        old = service.write("decision", "Cookies", key="sessions")
        embed_all(repo, {"Cookies": [axis((0, 1.0))]})
        new = service.write("decision", "Redis", key="sessions")
        hits = store(repo).vector_search(MODEL, axis((0, 1.0)), [], ScopeFilter(), 10)
        assert old.id not in {h.id for h in hits} and hits == []
        assert [p.id for p in store(repo).vector_backlog(10)] == [new.id]
        embed_all(repo, {"Redis": [axis((0, 1.0))]})
        assert [h.id for h in store(repo).vector_search(
            MODEL, axis((0, 1.0)), [], ScopeFilter(), 10)] == [new.id]

    def test_a_retired_row_leaves_the_vector_index_and_the_queue(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """Retiring drops the row's vectors; a queued row that is retired is dequeued."""
        service.write("task", "Done", key="done")
        service.write("task", "Queued", key="queued")
        embed_all(repo, {"Done": [axis((0, 1.0))]})
        service.retire("task/done", reason="finished")
        service.retire("task/queued", reason="dropped")
        assert found(repo, axis((0, 1.0))) == []
        assert store(repo).vector_pending() == 0

    def test_vector_search_keeps_to_the_kinds_and_the_scope(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """Kinds, an exact scope, a shape and every scope filter the nearest rows."""
        service.write("decision", "Global decision", key="g")
        service.write("task", "Global task", key="t")
        service.write("decision", "Board decision", key="b", scope=BOARD)
        same = [axis((0, 1.0))]
        embed_all(repo, {"Global decision": same, "Global task": same, "Board decision": same})
        q = axis((0, 1.0))
        assert set(found(repo, q)) == {"Global decision", "Global task", "Board decision"}
        assert set(found(repo, q, kinds=("decision",))) == {"Global decision", "Board decision"}
        assert found(repo, q, scope=parse_scope_filter(BOARD)) == ["Board decision"]
        assert found(repo, q, scope=parse_scope_filter("board:*")) == ["Board decision"]
        assert set(found(repo, q, scope=ScopeFilter(exact="global"))) == {
            "Global decision", "Global task"}
        assert found(repo, q, scope=parse_scope_filter(BOARD), kinds=("task",)) == []

    def test_a_small_scope_is_found_among_many_nearer_rows(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """Filters do not starve a search: the one row in scope comes back however many
        nearer rows sit outside it."""
        service.write_many([NewNode("note", f"near {i}", "global") for i in range(150)])
        service.write("note", "far", key="far", scope=BOARD)
        embed_all(repo, {**{f"near {i}": [axis((0, 1.0))] for i in range(150)},
                         "far": [axis((0, 0.2), (5, 1.0))]})
        assert found(repo, axis((0, 1.0)), scope=parse_scope_filter(BOARD)) == ["far"]

    def test_vectors_computed_from_an_older_text_are_refused(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """A row queued again after its text was read (a new ticket) keeps waiting."""
        v = service.write("page", "Draft", key="draft")
        s = store(repo)
        [read] = s.vector_backlog(10)
        assert s.requeue_vectors([v.id]) == 1
        assert s.put_vectors(MODEL, [(read, [axis((0, 1.0))])]) == 0
        assert s.vector_pending() == 1 and found(repo, axis((0, 1.0))) == []
        [again] = s.vector_backlog(10)
        assert again.ticket != read.ticket
        assert s.put_vectors(MODEL, [(again, [axis((0, 1.0))])]) == 1

    def test_requeue_drops_vectors_of_given_ids_or_a_scope(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """requeue_vectors(ids) and requeue_vectors(scope=...) drop and queue exactly those."""
        a = service.write("page", "A", key="a")
        service.write("page", "B", key="b", scope=BOARD)
        embed_all(repo, {"A": [axis((0, 1.0))], "B": [axis((0, 1.0))]})
        s = store(repo)
        assert s.requeue_vectors([a.id]) == 1
        assert found(repo, axis((0, 1.0))) == ["B"] and s.vector_pending() == 1
        assert s.requeue_vectors(scope=parse_scope_filter(BOARD)) == 1
        assert found(repo, axis((0, 1.0))) == [] and s.vector_pending() == 2
        embed_all(repo, {"A": [axis((0, 1.0))], "B": [axis((0, 1.0))]})
        assert s.requeue_vectors() == 2 and s.vector_pending() == 2

    def test_a_redacted_text_drops_its_vectors_and_queues_the_row_again(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """A redaction rewrites the text in place: the old text's vectors go in the same
        transaction and the row waits for vectors of its new text."""
        service.write("note", "Secret", key="s", body="the key is sk-live-4242424242")
        service.write("note", "Other", key="o", body="nothing to hide")
        embed_all(repo, {"Secret": [axis((0, 1.0))], "Other": [axis((1, 1.0))]})
        service.redact("sk-live-4242424242", all_scopes=True)
        assert found(repo, axis((0, 1.0))) == ["Other"]
        [pending] = store(repo).vector_backlog(10)
        assert pending.title == "Secret" and "sk-live" not in pending.body

    def test_vectors_of_another_model_are_never_compared(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """A search with one model's name ignores another model's vectors."""
        service.write("page", "Other", key="other")
        s = store(repo)
        s.put_vectors("another-model", [(p, [axis((0, 1.0))]) for p in s.vector_backlog(10)])
        assert found(repo, axis((0, 1.0))) == []

    def test_the_store_names_the_other_models_its_current_rows_hold_vectors_of(
        self, repo: GraphRepository, service: Service
    ) -> None:
        """A store embedded by an older model says so (which models, how many rows) until
        its rows are queued again and embedded by the current one; a closed row counts no
        more."""
        s = store(repo)
        assert s.other_vector_models(MODEL) == {}
        for key in ("a", "b", "c"):
            service.write("page", key.upper(), key=key, body=f"page {key}")
        rows = {p.title: p for p in s.vector_backlog(10)}
        s.put_vectors("older-model", [(rows["A"], [axis((0, 1.0)), axis((1, 1.0))]),
                                      (rows["B"], [axis((1, 1.0))])])
        s.put_vectors(MODEL, [(rows["C"], [axis((2, 1.0))])])
        assert s.other_vector_models(MODEL) == {"older-model": 2}
        assert s.other_vector_models("older-model") == {MODEL: 1}
        service.retire("page/b", reason="gone")
        assert s.other_vector_models(MODEL) == {"older-model": 1}
        assert s.requeue_vectors() == 2
        assert s.other_vector_models(MODEL) == {}
        embed_all(repo, {"A": [axis((0, 1.0))], "C": [axis((2, 1.0))]})
        assert s.other_vector_models(MODEL) == {}
        assert found(repo, axis((0, 1.0)))[0] == "A"


class SearchModesContract(ContractBase):
    """The search modes through the application, with the real local model."""

    @pytest.fixture
    def session(self, repo: GraphRepository) -> Session:
        from ryvem.embedding import probe

        reason = probe()
        if reason is not None:
            self.unavailable(reason)
        return Session(lambda: repo)

    def test_hybrid_finds_a_paraphrase_no_word_matches_and_says_each_rank(
        self, session: Session
    ) -> None:
        """A question sharing no word with the answer is found by meaning, ranks shown."""
        session.write("decision", "Keep sessions in signed cookies", key="sessions",
                      scope="global", body="User login state lives in a signed cookie.")
        session.write("decision", "Checkout is idempotent", key="checkout", scope="global",
                      body="Each checkout carries a key, so retries are safe.")
        result = session.search("where do we keep who is logged in", scope="global")
        assert result.mode == "hybrid" and result.pending == 0
        top = result.hits[0]
        assert top.hit.title == "Keep sessions in signed cookies"
        assert top.ranks["semantic"] == 1
        assert set(top.record()["ranks"]) == {"lexical", "semantic"}
        lexical = session.search("checkout retries", mode="lexical", scope="global")
        assert [h.ranks["semantic"] for h in lexical.hits] == [None] * len(lexical.hits)

    def test_hybrid_is_silent_when_no_word_matches_and_no_meaning_is_close(
        self, session: Session
    ) -> None:
        """A question whose words no memory holds returns nothing by default, and one close
        in meaning still finds its memory."""
        session.write("decision", "Keep sessions in signed cookies", key="sessions",
                      scope="global", body="User login state lives in a signed cookie.")
        session.write("note", "The cat sat on the mat", key="cat", scope="global",
                      body="A small cat was sitting on the mat all afternoon.")
        for text in ("zq81fa0c93e4", "blorfen the quaddle"):
            assert session.search(text, scope="global").hits == []
        close = session.search("kitten resting on a rug", scope="global").hits
        assert [h.hit.title for h in close] == ["The cat sat on the mat"]
        assert (close[0].scores["semantic"] or 0.0) >= recall.SILENCE_FLOOR
        assert close[0].confidence == close[0].score

    def test_hybrid_fuses_by_score_so_a_strong_word_match_keeps_first_place(
        self, session: Session
    ) -> None:
        """Each hit carries both legs' own scores; the fused score is
        0.3 x lexical over the best lexical + 0.7 x cosine, the order follows it."""
        session.write("decision", "Checkout is idempotent", key="checkout", scope="global",
                      body="Each checkout request carries an idempotency key.")
        session.write("decision", "Retries are safe", key="retries", scope="global",
                      body="A client may send a request again after a timeout.")
        hits = session.search("idempotency key", scope="global").hits
        assert hits[0].hit.title == "Checkout is idempotent"
        best = max(h.scores["lexical"] or 0.0 for h in hits)
        for h in hits:
            lex, sem = h.scores.get("lexical"), h.scores.get("semantic")
            want = 0.3 * (lex or 0.0) / best + 0.7 * max(sem or 0.0, 0.0)
            assert abs(h.score - want) < 1e-5
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)

    def test_hybrid_legs_run_side_by_side_and_give_the_answer_of_legs_run_in_turn(
        self, session: Session, repo: GraphRepository, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Both backends read concurrently: the lexical leg in a worker thread beside the
        vector leg gives exactly the hits and ranks of the two legs run one after the other."""
        from ryvem.ports import ReadsConcurrently

        for title, key, body in [
            ("Keep sessions in signed cookies", "sessions", "Login state lives in a cookie."),
            ("Checkout is idempotent", "checkout", "Each checkout carries a key."),
            ("Sessions expire after a day", "expiry", "A session cookie older than a day."),
        ]:
            session.write("decision", title, key=key, scope="global", body=body)
        questions = ["where do we keep who is logged in", "sessions", "what a checkout carries"]
        assert isinstance(repo, ReadsConcurrently) and repo.reads_concurrently

        def answers() -> list[list[tuple[str, dict[str, int | None]]]]:
            return [[(h.hit.id, h.ranks) for h in session.search(q, scope="global").hits]
                    for q in questions]

        together = answers()
        monkeypatch.setattr(type(repo), "reads_concurrently", property(lambda self: False))
        assert answers() == together
        assert all(hits for hits in together)

    def test_a_past_time_search_is_lexical_and_says_so(self, session: Session) -> None:
        """as_of: hybrid falls back to lexical with a note; semantic is invalid input."""
        session.write("decision", "Use Redis for sessions", key="store", scope="global")
        result = session.search("redis", scope="global", as_of="2999-01-01")
        assert result.mode == "lexical"
        assert any("as-of search is lexical" in n for n in result.notes)
        known = session.search("redis", scope="global", known_at="2999-01-01")
        assert known.mode == "lexical"
        assert any("known-at search is lexical" in n for n in known.notes), known.notes
        with pytest.raises(InvalidInput, match="current rows only"):
            session.search("redis", mode="semantic", scope="global", as_of="2999-01-01")

    def test_a_superseded_text_is_not_found_by_meaning(self, session: Session) -> None:
        """After a supersede, semantic search finds the new text only."""
        session.write("decision", "Sessions live in cookies", key="s", scope="global")
        session.search("cookies", mode="semantic", scope="global")  # embeds the backlog
        new = session.write("decision", "Sessions live in Redis", key="s", scope="global")
        hits = session.search("where are sessions stored", mode="semantic", scope="global").hits
        assert [h.id for h in hits] == [new.result.version.id]

    def test_a_store_embedded_by_an_older_model_says_to_reindex_and_reindex_converts_it(
        self, session: Session, repo: GraphRepository
    ) -> None:
        """Rows whose vectors are another model's (a store embedded before ryvem's model
        changed) have no semantic rank: hybrid and semantic search say so in one note naming
        `ryvem graph reindex` (never an empty answer without a word), and reindex embeds them
        again with the current model, after which the note is gone."""
        session.write("decision", "Checkout is idempotent", key="checkout", scope="global",
                      body="Each checkout carries a key, so retries are safe.")
        session.write("decision", "Use SQLite", key="store", scope="global",
                      body="One embedded file; no server to run.")
        s = store(repo)
        old = "all-MiniLM-L6-v2-int8"  # the name of the model ryvem shipped before
        s.put_vectors(old, [(p, [axis((0, 1.0))]) for p in s.vector_backlog(10)])
        question = "can a payment request be sent twice safely"
        semantic = session.search(question, mode="semantic", scope="global")
        assert semantic.hits == [] and semantic.pending == 0
        [note] = [n for n in semantic.notes if old in n]
        assert note.startswith("2 rows hold vectors of another model") and "\n" not in note
        assert "ryvem graph reindex" in note
        hybrid = session.search(question, scope="global")
        assert hybrid.mode == "hybrid" and note in hybrid.notes
        assert all(h.ranks["semantic"] is None for h in hybrid.hits)
        pending_only = session.reindex(pending_only=True)
        assert pending_only.embedded == 0 and pending_only.note is not None
        assert "without --pending" in pending_only.note
        done = session.reindex()
        assert (done.queued, done.embedded, done.pending, done.note) == (2, 2, 0, None)
        assert s.other_vector_models(done.model or "") == {}
        after = session.search(question, mode="semantic", scope="global")
        assert after.hits[0].hit.title == "Checkout is idempotent"
        assert not any("another model" in n for n in after.notes)
