"""Deprecated: moved to :mod:`ryvem.adapters.sqlite` in 0.2 (the hexagonal layout);
removed in 0.3."""

import warnings as _warnings

from ryvem.adapters.sqlite import *  # noqa: F403  (re-exports the new module's names)
from ryvem.adapters.sqlite import __all__  # noqa: F401

_warnings.warn(
    "ryvem.repositories.sqlite moved to ryvem.adapters.sqlite; the old path is removed in 0.3",
    DeprecationWarning,
    stacklevel=2,
)
