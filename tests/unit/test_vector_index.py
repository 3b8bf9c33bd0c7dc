"""The exact vector index: best owner first, one hit per owner, filters, blobs, removal."""

from __future__ import annotations

import numpy as np
import pytest

from ryvem.embedding.index import ExactIndex, from_blob, to_blob


def unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_search_matches_brute_force_cosine() -> None:
    """On random unit vectors the top 10 are exactly the 10 largest dot products, in order."""
    rng = np.random.default_rng(7)
    data, queries = unit(rng, 2000, 64), unit(rng, 20, 64)
    index = ExactIndex(64)
    index.add([f"n{i}" for i in range(2000)], data)
    for q in queries:
        want = np.argsort(-(data @ q), kind="stable")[:10]
        got = index.search(q, 10)
        assert [o for o, _ in got] == [f"n{i}" for i in want]
        assert [s for _, s in got] == pytest.approx([float(data[i] @ q) for i in want], abs=1e-5)


def test_an_owner_with_several_chunks_is_returned_once_with_its_best_score() -> None:
    index = ExactIndex(2)
    index.add(["a", "a", "b", "c"], [[1, 0], [0.6, 0.8], [0.8, 0.6], [0, 1]])
    got = index.search([1, 0], 3)
    assert [o for o, _ in got] == ["a", "b", "c"]
    assert got[0][1] == pytest.approx(1.0)
    assert index.search([0, 1], 2) == [("c", pytest.approx(1.0)), ("a", pytest.approx(0.8))]


def test_vectors_and_queries_are_normalised_and_k_caps_the_hits() -> None:
    index = ExactIndex(2)
    index.add(["a", "b"], [[10, 0], [0, 3]])
    assert index.search([5, 0], 1) == [("a", pytest.approx(1.0))]
    assert len(index.search([1, 1], 10)) == 2
    assert index.search([1, 1], 0) == []
    assert ExactIndex(2).search([1, 0], 5) == []


def test_allowed_keeps_only_those_owners_even_when_they_rank_low() -> None:
    rng = np.random.default_rng(3)
    index = ExactIndex(16)
    index.add([f"n{i}" for i in range(500)], unit(rng, 500, 16))
    q = unit(rng, 1, 16)[0]
    worst, low = index.search(q, 500)[-1]
    assert index.search(q, 5, allowed={worst}) == [(worst, pytest.approx(low))]
    assert index.search(q, 5, allowed=set()) == []


def test_remove_drops_every_row_of_an_owner_and_later_adds_still_count() -> None:
    index = ExactIndex(2)
    index.add(["a", "a", "b"], [[1, 0], [0.9, 0.1], [0, 1]])
    assert index.remove(["a", "zzz"]) == 2
    assert len(index) == 1 and index.owners == {"b"}
    index.add(["c"], [[1, 0]])
    assert [o for o, _ in index.search([1, 0], 2)] == ["c", "b"]


def test_blobs_round_trip_as_little_endian_float32() -> None:
    v = np.array([0.5, -1.25, 3.0], dtype=np.float32)
    blob = to_blob(v)
    assert blob == np.array(v, dtype="<f4").tobytes() and len(blob) == 12
    assert np.array_equal(from_blob(blob, 3), v)
    with pytest.raises(ValueError, match="12 bytes"):
        from_blob(blob[:-1], 3)


def test_bad_shapes_are_refused() -> None:
    with pytest.raises(ValueError):
        ExactIndex(0)
    with pytest.raises(ValueError, match="2 owners for 1 vectors"):
        ExactIndex(2).add(["a", "b"], [[1, 0]])
