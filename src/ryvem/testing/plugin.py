"""The pytest plugin ``ryvem.testing`` registers (entry point ``pytest11``): the ``contract``
mark every contract class carries, so a backend's own suite runs under ``--strict-markers``
with no configuration of its own."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "contract: the shared suite every backend must pass")
