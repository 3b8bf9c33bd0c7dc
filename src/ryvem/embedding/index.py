"""Exact nearest-neighbour search over unit vectors: one float32 matrix, one product a query.

Chosen by measurement (``bench/vector_index.py``, figures in ``docs/notes/search-notes.md``): at
100,000 vectors of 384 dimensions a query is one matrix-vector product plus a partial sort, a few
milliseconds, with recall 1.0 by construction, no build step, no native library and no
SQLite extension; vectors live in the store as little-endian float32 blobs
(:func:`to_blob`/:func:`from_blob`). Pure: numpy only, no I/O.

Several rows may share an owner (the chunks of one long body): :meth:`ExactIndex.search`
scores an owner by its best row and returns each owner once.

The product itself is :func:`similarities`: BLAS over every core, or numpy's own loop on one
core inside :func:`on_one_core` on a machine of two cores or fewer — what a hybrid search asks
for while its lexical leg runs beside the product on another thread (docs/notes/search-notes.md,
"The vector leg on one core").
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt

__all__ = ["ExactIndex", "from_blob", "on_one_core", "one_core", "similarities", "to_blob"]

Vectors = npt.NDArray[np.float32]

_THREAD = threading.local()


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


FEW_CORES = _cores() <= 2
"""Whether :func:`on_one_core` changes anything here. With more cores, BLAS's threads leave
room for the lexical leg (one of N shared), and its product is several times faster than one
core's loop, so it is kept."""


@contextmanager
def on_one_core() -> Iterator[None]:
    """Inside the block, :func:`similarities` computed **in this thread** run on one core.

    numpy's BLAS splits a matrix-vector product over every core; a hybrid search runs its
    lexical leg (SQLite, one thread) beside its vector leg, and on two cores the product
    then takes the lexical leg's core while it runs. numpy's own loop (``einsum``) is one
    core and, here, as fast as BLAS on one thread (10.4 vs 10.2 ms for 100,000 x 384, against
    4.8 ms on two threads). Only on a machine of two cores or fewer (:data:`FEW_CORES`).
    A flag of this thread, not BLAS's thread count: that setting is process-wide, and
    OpenBLAS does not reliably take it from any but the main thread."""
    before = getattr(_THREAD, "one_core", False)
    _THREAD.one_core = True
    try:
        yield
    finally:
        _THREAD.one_core = before


def one_core() -> bool:
    """Whether this thread is inside :func:`on_one_core`."""
    return bool(getattr(_THREAD, "one_core", False))


def similarities(matrix: Vectors, q: Vectors) -> Vectors:
    """``matrix @ q``: on every core, or on one inside :func:`on_one_core` (on a machine of
    two cores or fewer)."""
    if FEW_CORES and one_core():
        out: Vectors = np.einsum("ij,j->i", matrix, q)
        return out
    return matrix @ q


def to_blob(vector: npt.ArrayLike) -> bytes:
    """A vector as little-endian float32 bytes (4 bytes a dimension)."""
    return np.asarray(vector, dtype="<f4").tobytes()


def from_blob(blob: bytes, dim: int) -> Vectors:
    """The vector :func:`to_blob` wrote; ValueError when the size is not ``dim`` floats."""
    if len(blob) != 4 * dim:
        raise ValueError(f"a {dim}-dimensional vector is {4 * dim} bytes, got {len(blob)}")
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


class ExactIndex:
    """Rows of ``(owner, vector)``; cosine similarity (vectors are stored L2-normalised)."""

    def __init__(self, dim: int) -> None:
        if dim < 1:
            raise ValueError(f"dim must be positive, got {dim}")
        self.dim = dim
        self._owners: list[str] = []
        self._parts: list[Vectors] = []
        self._matrix: Vectors = np.zeros((0, dim), dtype=np.float32)
        self._dirty = False

    def __len__(self) -> int:
        return len(self._owners)

    @property
    def owners(self) -> set[str]:
        return set(self._owners)

    def add(self, owners: Sequence[str], vectors: npt.ArrayLike) -> None:
        """Append one row per owner (an owner may repeat); vectors are normalised here."""
        v = np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim)
        if len(owners) != len(v):
            raise ValueError(f"{len(owners)} owners for {len(v)} vectors")
        norms = np.linalg.norm(v, axis=1, keepdims=True)
        self._parts.append(v / np.clip(norms, 1e-12, None))
        self._owners.extend(owners)
        self._dirty = True

    def remove(self, owners: Iterable[str]) -> int:
        """Drop every row of these owners; returns how many rows went."""
        gone = set(owners)
        keep = [i for i, o in enumerate(self._owners) if o not in gone]
        dropped = len(self._owners) - len(keep)
        if dropped:
            self._matrix = self._stacked()[keep]
            self._parts = [self._matrix]
            self._owners = [self._owners[i] for i in keep]
            self._dirty = False
        return dropped

    def _stacked(self) -> Vectors:
        if self._dirty:
            self._matrix = (
                np.concatenate(self._parts) if self._parts else np.zeros((0, self.dim), np.float32)
            )
            self._parts = [self._matrix]
            self._dirty = False
        return self._matrix

    def search(
        self, query: npt.ArrayLike, k: int, *, allowed: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` best owners for ``query`` as ``(owner, cosine)``, best first; ties keep
        insertion order. ``allowed`` keeps only those owners (a scope or kind filter)."""
        if k < 1:
            return []
        matrix = self._stacked()
        if not len(matrix):
            return []
        q = np.asarray(query, dtype=np.float32).reshape(self.dim)
        q = q / max(float(np.linalg.norm(q)), 1e-12)
        scores = similarities(matrix, q)
        # Rows are partially sorted a few at a time, widening until k distinct owners fill.
        want = min(len(scores), max(4 * k, 32))
        while True:
            top = np.argpartition(-scores, want - 1)[:want] if want < len(scores) else None
            rows = np.arange(len(scores)) if top is None else top
            rows = rows[np.lexsort((rows, -scores[rows]))]
            out: list[tuple[str, float]] = []
            seen: set[str] = set()
            for r in rows:
                owner = self._owners[int(r)]
                if owner in seen or (allowed is not None and owner not in allowed):
                    continue
                seen.add(owner)
                out.append((owner, float(scores[r])))
                if len(out) == k:
                    return out
            if top is None:
                return out
            want = min(len(scores), want * 4)
