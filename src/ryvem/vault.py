"""Deprecated: moved to :mod:`ryvem.application.vault` in 0.2 (the hexagonal layout);
removed in 0.3."""

import warnings as _warnings

from ryvem.application.vault import *  # noqa: F403  (re-exports the new module's names)
from ryvem.application.vault import __all__  # noqa: F401

_warnings.warn(
    "ryvem.vault moved to ryvem.application.vault; the old path is removed in 0.3",
    DeprecationWarning,
    stacklevel=2,
)
