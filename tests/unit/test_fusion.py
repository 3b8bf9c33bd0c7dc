"""Reciprocal rank fusion as the hybrid modes use it: ranks per component, weights."""

from __future__ import annotations

import pytest

from ryvem.application.search import (
    SCORE_WEIGHTS,
    SILENCE_FLOOR,
    STRATEGIES,
    fuse,
    fuse_scores,
    resolve_mode,
)
from ryvem.domain.model import SearchHit
from ryvem.errors import InvalidInput


def hit(id: str) -> SearchHit:
    return SearchHit(id=id, kind="page", scope="global", title=id, snippet="", score=1.0)


def test_a_hit_in_both_lists_outranks_one_that_tops_a_single_list() -> None:
    fused = fuse({"lexical": [hit("a"), hit("b")], "semantic": [hit("c"), hit("b")]},
                 rrf_k=60, limit=10)
    assert [h.id for h in fused] == ["b", "a", "c"]
    assert fused[0].ranks == {"lexical": 2, "semantic": 2}
    assert fused[1].ranks == {"lexical": 1, "semantic": None}


def test_a_weight_scales_a_components_say_and_other_components_appear_in_ranks() -> None:
    lists = {"lexical": [hit("a")], "semantic": [hit("b")], "graph": [hit("b")]}
    plain = fuse(lists, rrf_k=60, limit=10)
    assert [h.id for h in plain] == ["b", "a"]
    assert plain[0].ranks == {"lexical": None, "semantic": 1, "graph": 1}
    damped = fuse(lists, rrf_k=60, limit=10, weights={"semantic": 0.25, "graph": 0.25})
    assert [h.id for h in damped] == ["a", "b"]


def test_the_modes_a_face_offers_keep_their_two_components() -> None:
    assert STRATEGIES["hybrid"].components == ("lexical", "semantic")
    assert STRATEGIES["hybrid+graph"].components == ("lexical", "semantic", "graph")


def test_the_librarys_unknown_mode_error_names_every_mode_it_takes() -> None:
    """The library takes `hybrid+graph` too; its error listed only the faces' three modes."""
    with pytest.raises(InvalidInput,
                       match=r"use lexical, semantic, hybrid, hybrid-rrf, hybrid\+graph$"):
        resolve_mode("bogus", text="x", as_of=None, semantic_off=None)


def scored(id: str, score: float) -> SearchHit:
    return SearchHit(id=id, kind="page", scope="global", title=id, snippet="", score=score)


def test_score_fusion_keeps_a_strong_lexical_first_place_the_vectors_weakly_disagree_with() -> None:
    """Reciprocal rank fusion put a lexical first place the vector list lacked (1/61) below a
    row ranked 10th in both lists; score fusion weighs what each leg said."""
    lexical = [scored("exact", 12.0), *[scored(f"l{i}", 3.0 - i / 10) for i in range(9)],
               scored("both", 2.0)]
    semantic = [*[scored(f"s{i}", 0.31 - i / 100) for i in range(9)], scored("both", 0.22)]
    lists = {"lexical": lexical, "semantic": semantic}
    assert fuse(lists, rrf_k=60, limit=3)[0].id == "both"
    fused = fuse_scores(lists, limit=3, weights=dict(SCORE_WEIGHTS))
    assert fused[0].id == "exact"
    assert fused[0].scores == {"lexical": 12.0} and fused[0].ranks["semantic"] is None
    assert fused[0].confidence == pytest.approx(0.3)


def test_score_fusion_lets_close_meaning_promote_a_hit_words_found_weakly() -> None:
    lists = {"lexical": [scored("a", 10.0), scored("b", 2.0)],
             "semantic": [scored("b", 0.8), scored("a", 0.1)]}
    fused = fuse_scores(lists, limit=10, weights=dict(SCORE_WEIGHTS))
    assert [h.id for h in fused] == ["b", "a"]
    assert fused[0].score == pytest.approx(0.3 * 0.2 + 0.7 * 0.8)
    assert fused[0].record()["scores"] == {"lexical": 2.0, "semantic": 0.8}


def test_the_default_hybrid_fuses_by_score_and_falls_silent_below_the_floor() -> None:
    hybrid = STRATEGIES["hybrid"]
    assert hybrid.fusion == "scores" and hybrid.silence == SILENCE_FLOOR > hybrid.min_similarity
    assert STRATEGIES["hybrid-rrf"].fusion == "rrf"
