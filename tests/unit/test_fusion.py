"""Reciprocal rank fusion as the hybrid modes use it: ranks per component, weights."""

from __future__ import annotations

import pytest

from ryvem.application.search import STRATEGIES, fuse, resolve_mode
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
    with pytest.raises(InvalidInput, match=r"use lexical, semantic, hybrid, hybrid\+graph$"):
        resolve_mode("bogus", text="x", as_of=None, semantic_off=None)
