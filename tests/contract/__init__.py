"""The shared contract suite (shipped as :mod:`ryvem.testing`) run on each backend
(``test_*.py``, one subclass each), the way a third backend would run it."""

from __future__ import annotations

from typing import NoReturn

from conftest import unavailable
from ryvem.testing import RepositoryContract


class ProjectContract(RepositoryContract):
    """The suite as this project runs it: a missing tool fails the test under CI=true."""

    def unavailable(self, reason: str) -> NoReturn:
        unavailable(reason)
