"""Deprecated: moved to :mod:`ryvem.application.copy` in 0.2 (the hexagonal layout);
removed in 0.3."""

import warnings as _warnings

from ryvem.application.copy import *  # noqa: F403  (re-exports the new module's names)
from ryvem.application.copy import __all__  # noqa: F401

_warnings.warn(
    "ryvem.copy moved to ryvem.application.copy; the old path is removed in 0.3",
    DeprecationWarning,
    stacklevel=2,
)
