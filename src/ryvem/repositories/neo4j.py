"""Deprecated: moved to :mod:`ryvem.adapters.neo4j` in 0.2 (the hexagonal layout);
removed in 0.3."""

import warnings as _warnings

from ryvem.adapters.neo4j import *  # noqa: F403  (re-exports the new module's names)
from ryvem.adapters.neo4j import __all__  # noqa: F401

_warnings.warn(
    "ryvem.repositories.neo4j moved to ryvem.adapters.neo4j; the old path is removed in 0.3",
    DeprecationWarning,
    stacklevel=2,
)
