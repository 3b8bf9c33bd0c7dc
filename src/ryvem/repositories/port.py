"""Deprecated: moved to :mod:`ryvem.ports` in 0.2 (the hexagonal layout);
removed in 0.3."""

import warnings as _warnings

from ryvem.ports import *  # noqa: F403  (re-exports the new module's names)
from ryvem.ports import __all__  # noqa: F401

_warnings.warn(
    "ryvem.repositories.port moved to ryvem.ports; the old path is removed in 0.3",
    DeprecationWarning,
    stacklevel=2,
)
