"""Deprecated: the adapters moved to :mod:`ryvem.adapters` and the composition root to
:mod:`ryvem.backends` in 0.2; this package is removed in 0.3."""

import warnings as _warnings

from ryvem.backends import GraphRepository, open_repository

__all__ = ["GraphRepository", "open_repository"]

_warnings.warn(
    "ryvem.repositories moved to ryvem.adapters and ryvem.backends; the old path is removed "
    "in 0.3",
    DeprecationWarning,
    stacklevel=2,
)
