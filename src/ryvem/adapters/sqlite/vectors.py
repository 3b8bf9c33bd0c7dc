"""Exact vector search over the SQLite store's chunk vectors, with numpy.

The vectors of current rows live in ``node_vectors`` as float32 blobs (migration 003). A
search scores every chunk of the model with one matrix-vector product (100k x 384 is a few
tens of milliseconds; ``docs/notes/search-notes.md`` has the measurements against HNSW indexes),
keeps the best chunk of each row, and applies the kind and scope filters as masks over integer
codes, so a filter costs no Python loop.

The matrix is cached per store handle and refreshed cheaply: ``vector_state.generation``
changes whenever a vector is added or removed (triggers), so a search first reads that one
integer; when it moved, the cache reads the ids removed since its last look from the removal
log (``vector_removed``, migration 007: positions only grow, the newest 65,536 are kept) and
masks those rows out, and reads only the rows added after its last id (``vec_id`` only
grows). A cache further behind than the log reaches reads every id still stored instead
(through a covering index, no blob page touched), as every refresh did before the log: at
100,000 vectors that read cost a search right after a write about 30 ms. The matrix is
compacted only once a quarter of it is dead, so a supersede costs the next search no copy of
the matrix. The first read of a process is column by column (about 0.3 s for 100k rows
here). numpy is imported only here, and only when a
search runs (it comes with the ``semantic`` extra, as do the vectors).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ryvem.domain.scopes import ScopeFilter

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["Codes", "VectorCache", "VectorSql", "filter_mask"]

Read = Callable[[str, dict[str, Any]], list[Any]]


@dataclass(frozen=True)
class VectorSql:
    """The statements a cache refreshes with (the adapter's query files)."""

    log: str  # vector_log: the removal log's oldest kept and newest positions
    removed: str  # vector_removed_since: ids removed after a position
    ids: str  # vector_ids: every id stored (when the log no longer reaches back)
    after: str  # vector_rows_after: a model's rows added after an id


@dataclass
class Codes:
    """Strings (kinds, scopes) as small integers, so filters are numpy masks."""

    codes: dict[str, int] = field(default_factory=dict)

    def code(self, name: str) -> int:
        return self.codes.setdefault(name, len(self.codes))

    def matching(self, pred: Callable[[str], bool]) -> list[int]:
        return [c for name, c in self.codes.items() if pred(name)]


def filter_mask(
    base: npt.NDArray[np.bool_] | None,
    row_kinds: npt.NDArray[np.int32],
    kind_codes: Codes,
    kinds: Sequence[str],
    row_scopes: npt.NDArray[np.int32],
    scope_codes: Codes,
    scope: ScopeFilter,
) -> npt.NDArray[np.bool_] | None:
    """Which rows a search of ``kinds`` (all when empty) in ``scope`` may return, given their
    kind and scope codes, and'd with ``base`` (None: no filter at all)."""
    import numpy as np

    mask = base
    if kinds:
        wanted = set(kinds)
        by_kind = np.isin(row_kinds, kind_codes.matching(lambda k: k in wanted))
        mask = by_kind if mask is None else mask & by_kind
    if not scope.is_all:
        in_scope = np.isin(row_scopes, scope_codes.matching(scope.matches))
        mask = in_scope if mask is None else mask & in_scope
    return mask


class VectorCache:
    """One model's vectors of one store, as a matrix kept in step with the table."""

    def __init__(self, model: str) -> None:
        import numpy as np

        self.model = model
        self.generation: int | None = None
        self.dim = 0
        self.vec_ids: npt.NDArray[np.int64] = np.zeros(0, np.int64)
        self.seqs: npt.NDArray[np.int64] = np.zeros(0, np.int64)
        self.kinds: npt.NDArray[np.int32] = np.zeros(0, np.int32)
        self.scopes: npt.NDArray[np.int32] = np.zeros(0, np.int32)
        self.matrix: npt.NDArray[np.float32] = np.zeros((0, 0), np.float32)
        self.live: npt.NDArray[np.bool_] | None = None  # None: every row is still stored
        self.removed_pos = 0  # the removal log's position this cache has read up to
        self.kind_codes = Codes()
        self.scope_codes = Codes()

    @property
    def size(self) -> int:
        """How many of the model's vectors are still stored (as of the last refresh)."""
        import numpy as np

        return len(self.vec_ids) if self.live is None else int(np.count_nonzero(self.live))

    def refresh(self, generation: int, read: Read, sql: VectorSql) -> None:
        """Bring the matrix up to ``generation`` (a no-op when it is already there)."""
        import numpy as np

        if generation == self.generation:
            return
        # The log's bounds first: a removal committed after this read has a later position,
        # so the next refresh reads it (marking a row gone twice is harmless).
        oldest, newest = read(sql.log, {})[0]
        if len(self.vec_ids):
            log: list[Any] | None = None
            if newest == self.removed_pos or 0 < oldest <= self.removed_pos + 1:
                log = read(sql.removed, {"pos": self.removed_pos})
                # A later statement than the bounds': a commit between the two may have
                # pruned entries the bounds promised. The log's positions have no holes, so
                # it still reaches back when its first entry is the one right after ours.
                # (An empty read while the bounds named newer entries reaches back to nothing.)
                first = int(log[0][0]) if log else None
                if (first is not None and first != self.removed_pos + 1) or (
                    first is None and newest != self.removed_pos
                ):
                    log = None
            if log is not None:
                # every removal since the last look is still in the log: mask those rows
                gone = np.fromiter((r[1] for r in log), dtype=np.int64)
                keep = ~np.isin(self.vec_ids, gone)
            else:
                # further behind than the log reaches: every id still stored (all models,
                # through a covering index, no blob page touched)
                stored = np.fromiter((r[0] for r in read(sql.ids, {})), dtype=np.int64)
                keep = np.isin(self.vec_ids, stored, assume_unique=True)
            # A row gone is masked out, and the matrix is only compacted once a quarter of it
            # is dead, so a supersede costs a search no 100k-row copy.
            if self.live is not None:
                keep &= self.live
            if keep.all():
                self.live = None
            elif 4 * int(np.count_nonzero(~keep)) > len(keep):
                self.vec_ids, self.seqs = self.vec_ids[keep], self.seqs[keep]
                self.kinds, self.scopes = self.kinds[keep], self.scopes[keep]
                self.matrix, self.live = self.matrix[keep], None
            else:
                self.live = keep
        self.removed_pos = int(newest)
        after = int(self.vec_ids.max()) if len(self.vec_ids) else 0
        rows = read(sql.after, {"model": self.model, "after": after})
        if rows:
            n = len(rows)
            dim = len(rows[0][4]) // 4
            if self.dim and dim != self.dim:
                raise ValueError(f"vectors of {self.model} have {dim} and {self.dim} dimensions")
            self.dim = dim
            # Column by column with fromiter and one join of the blobs: a cold start reads
            # 100k rows in well under half a second (a Python list per column took 3x that).
            add = np.frombuffer(b"".join([r[4] for r in rows]), dtype="<f4").reshape(n, dim)
            kc, sc = self.kind_codes.code, self.scope_codes.code
            ids = np.fromiter((r[0] for r in rows), np.int64, n)
            seqs = np.fromiter((r[1] for r in rows), np.int64, n)
            kinds = np.fromiter((kc(r[2]) for r in rows), np.int32, n)
            scopes = np.fromiter((sc(r[3]) for r in rows), np.int32, n)
            del rows
            if len(self.vec_ids):
                self.matrix = np.concatenate([self.matrix, add])
                self.vec_ids = np.concatenate([self.vec_ids, ids])
                self.seqs = np.concatenate([self.seqs, seqs])
                self.kinds = np.concatenate([self.kinds, kinds])
                self.scopes = np.concatenate([self.scopes, scopes])
                if self.live is not None:
                    self.live = np.concatenate([self.live, np.ones(n, np.bool_)])
            else:  # the first read: the blobs' buffer is the matrix, no copy
                self.matrix = add.astype(np.float32, copy=False)
                self.vec_ids, self.seqs, self.kinds, self.scopes = ids, seqs, kinds, scopes
        self.generation = generation

    def _mask(self, kinds: Sequence[str], scope: ScopeFilter) -> npt.NDArray[np.bool_] | None:
        return filter_mask(self.live, self.kinds, self.kind_codes, kinds,
                           self.scopes, self.scope_codes, scope)

    def search(
        self, vector: bytes, kinds: Sequence[str], scope: ScopeFilter, limit: int
    ) -> list[tuple[int, float]]:
        """The ``limit`` best rows as ``(seq, cosine of its best chunk)``, best first."""
        import numpy as np

        if not len(self.seqs) or limit < 1:
            return []
        q = np.frombuffer(vector, dtype="<f4").astype(np.float32)
        if len(q) != self.dim:
            raise ValueError(f"a query of {len(q)} dimensions against {self.dim}")
        from ryvem.embedding import index

        scores = index.similarities(self.matrix, q)
        mask = self._mask(kinds, scope)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        n = len(scores)
        want = min(n, max(4 * limit, 32))
        while True:
            top = np.argpartition(-scores, want - 1)[:want] if want < n else np.arange(n)
            top = top[np.lexsort((top, -scores[top]))]
            out: list[tuple[int, float]] = []
            seen: set[int] = set()
            for r in top:
                s = float(scores[r])
                if s == -np.inf:
                    return out
                seq = int(self.seqs[r])
                if seq in seen:
                    continue
                seen.add(seq)
                out.append((seq, s))
                if len(out) == limit:
                    return out
            if want >= n:
                return out
            want = min(n, want * 4)
