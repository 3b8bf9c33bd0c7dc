"""The eval harness behind `make eval`: its question file is well-formed and its pieces
(plain OR-BM25, reciprocal rank fusion, the metrics) compute what the search notes
(docs/notes/search-notes.md) say."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eval_run", ROOT / "eval" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_question_set_has_all_three_splits_every_category_and_real_answers(
    run: ModuleType,
) -> None:
    qs = run.load_questions()
    assert len(qs) >= 80 and len({q.id for q in qs}) == len(qs)
    splits = Counter(q.split for q in qs)
    assert set(splits) == {"tune", "heldout", "fresh"} and min(splits.values()) >= 40
    assert {q.category for q in qs} == {"paraphrase", "partial", "keyword", "detail"}
    for q in qs:
        assert q.question.strip() and q.answers
        for key in q.answers:
            assert (run.CORPUS / f"{key}.md").is_file(), (q.id, key)


def test_plain_bm25_ors_the_words_and_ranks_more_of_them_first(run: ModuleType) -> None:
    bm = run.BM25([("a", "cache invalidation strategy"), ("b", "cache warming"),
                   ("c", "unrelated text here"), ("d", "more unrelated words")])
    assert bm.rank("cache invalidation") == ["a", "b"]
    assert bm.rank("invalidation") == ["a"]
    assert bm.rank("nothing matches") == []


def test_rrf_sums_reciprocal_ranks(run: ModuleType) -> None:
    assert run.rrf([["a", "b", "c"], ["b", "c"]], k=60) == ["b", "c", "a"]
    assert run.rrf([["a"], []], k=60) == ["a"]


def test_metrics_count_any_answer_in_the_top_k(run: ModuleType) -> None:
    q = run.Question("x1", "q", ("p", "r"), "keyword", "tune")
    got = run.score([(q, ["z", "r"]), (q, []), (q, ["p"])])
    assert got["recall@1"] == pytest.approx(1 / 3, abs=1e-3)
    assert got["recall@5"] == pytest.approx(2 / 3, abs=1e-3)
    assert got["mrr@10"] == pytest.approx((1 / 2 + 1) / 3, abs=1e-3)
    assert got["zero_hit"] == 1


def test_the_frozen_before_mode_ands_unstemmed_words_as_search_did_before_issue_13(
    run: ModuleType,
) -> None:
    pages = [run.Page("a", "Cache invalidation", "nightly"), run.Page("b", "Cache warming", ""),
             run.Page("c", "Sessions", "")]
    before = run.mode_before(run.Corpus(None, pages, {}))
    assert before("cache invalidation") == ["a"]
    assert before("cache") in (["a", "b"], ["b", "a"])
    assert before("session") == []  # no stemming
    assert before('"') == []


def test_chunks_are_given_as_window_overlap_and_how_many_windows(run: ModuleType) -> None:
    import argparse

    assert run.parse_chunks("256/32/0") == (256, 32, 0)
    assert run.parse_chunks("128/16/3") == (128, 16, 3)
    for bad in ("256", "a/b/c", "1/2/3/4"):
        with pytest.raises(argparse.ArgumentTypeError):
            run.parse_chunks(bad)


def test_inbound_lines_give_each_page_the_lines_that_link_to_it_with_links_as_text(
    run: ModuleType,
) -> None:
    """Lever 13's prototype: a link names a page by key or by its unique name; the line is
    shown with every link as its text, never for the page holding it, short lines left out."""
    pages = [
        run.Page("Transclusions", "Transclusions", ""),
        run.Page("Guide/Vim", "Vim", ""),
        run.Page("A/Name", "Name", ""),
        run.Page("B/Name", "Name", ""),
        run.Page("Home", "Home", "Use [[Transclusions]] to pull content from one page.\n"
                 "* Toggle [[guide/vim|vi keys]] in the **editor** now\n"
                 "see [[Vim]]\n[[Name]] is ambiguous here, no page gets this line"),
        run.Page("Vim page", "Vim", "Talking about [[Vim page]] itself here, not counted"),
    ]
    got = run.inbound_lines(pages)
    assert got == {
        "Transclusions": ["Use Transclusions to pull content from one page."],
        "Guide/Vim": ["Toggle vi keys in the editor now"],
    }
