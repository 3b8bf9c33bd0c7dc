"""The vector leg's product: the same cosines on every core or on one, and "on one core" is
a setting of the thread that asked for it, undone when its block ends."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from ryvem.embedding import index
from ryvem.embedding.index import ExactIndex, on_one_core, one_core, similarities


def test_the_product_on_one_core_gives_the_cosines_of_the_product_on_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(index, "FEW_CORES", True)  # as on this machine of two
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((5_000, 384)).astype(np.float32)
    q = rng.standard_normal(384).astype(np.float32)
    everywhere = similarities(matrix, q)
    with on_one_core():
        alone = similarities(matrix, q)
    assert alone.dtype == everywhere.dtype == np.float32
    np.testing.assert_allclose(alone, everywhere, rtol=1e-5, atol=1e-5)


def test_an_index_ranks_the_same_owners_inside_and_outside_the_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(index, "FEW_CORES", True)
    rng = np.random.default_rng(8)
    idx = ExactIndex(16)
    idx.add([f"row{i}" for i in range(200)], rng.standard_normal((200, 16)))
    q = rng.standard_normal(16)
    with on_one_core():
        inside = idx.search(q, 10)
    assert [o for o, _ in inside] == [o for o, _ in idx.search(q, 10)]


def test_one_core_is_this_threads_setting_and_ends_with_the_block() -> None:
    seen: dict[str, bool] = {}
    with on_one_core():
        seen["here"] = one_core()
        other = threading.Thread(target=lambda: seen.setdefault("other thread", one_core()))
        other.start()
        other.join()
        with on_one_core():
            pass
        seen["after a nested block"] = one_core()
    seen["after"] = one_core()
    assert seen == {"here": True, "other thread": False, "after a nested block": True,
                    "after": False}


def test_an_error_in_the_block_still_ends_it() -> None:
    with pytest.raises(RuntimeError), on_one_core():
        raise RuntimeError("boom")
    assert not one_core()


@pytest.mark.parametrize(("few", "loops"), [(True, 1), (False, 0)])
def test_numpys_own_loop_runs_only_inside_the_block_on_a_machine_of_few_cores(
    monkeypatch: pytest.MonkeyPatch, few: bool, loops: int
) -> None:
    monkeypatch.setattr(index, "FEW_CORES", few)
    calls: list[str] = []
    einsum = np.einsum

    def counted(*args: object, **kwargs: object) -> object:
        calls.append("einsum")
        return einsum(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(index.np, "einsum", counted)
    matrix = np.ones((10, 4), dtype=np.float32)
    q = np.ones(4, dtype=np.float32)
    similarities(matrix, q)
    assert calls == []
    with on_one_core():
        assert list(similarities(matrix, q)) == [4.0] * 10
    assert len(calls) == loops
