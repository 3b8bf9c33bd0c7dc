"""Deprecated: moved to :mod:`ryvem.application.service` in 0.2 (the hexagonal layout);
removed in 0.3."""

import warnings as _warnings

from ryvem.application.service import *  # noqa: F403  (re-exports the new module's names)
from ryvem.application.service import __all__  # noqa: F401

_warnings.warn(
    "ryvem.service moved to ryvem.application.service; the old path is removed in 0.3",
    DeprecationWarning,
    stacklevel=2,
)
