"""The public error hierarchy: what callers catch and which exit code each maps to."""

from __future__ import annotations

import inspect

import pytest

from ryvem import errors
from ryvem.errors import AmbiguousRef, InvalidInput, RyvemError

EXPECTED = {
    "AmbiguousRef", "BackendError", "BackendUnavailable", "CleanupIncomplete", "Conflict",
    "IntegrityError", "InvalidInput", "NotFound", "OperationalError", "RyvemError",
    "StoreDamaged", "StoreFull", "StoreReadOnly",
}


def _public_exception_classes() -> set[str]:
    return {
        name for name, obj in vars(errors).items()
        if inspect.isclass(obj) and issubclass(obj, BaseException) and not name.startswith("_")
        and obj.__module__ == errors.__name__
    }


def test_errors_all_lists_exactly_the_public_exception_classes() -> None:
    """__all__ names every exception class errors.py defines, and nothing else."""
    assert set(errors.__all__) == _public_exception_classes() == EXPECTED
    assert len(errors.__all__) == len(set(errors.__all__))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_public_error_is_a_ryvem_error(name: str) -> None:
    """Catching RyvemError catches every error ryvem raises on purpose."""
    cls = getattr(errors, name)
    assert issubclass(cls, RyvemError) and issubclass(cls, Exception)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_invalid_input_exits_2_and_everything_else_exits_1(name: str) -> None:
    """InvalidInput (and AmbiguousRef, a kind of it) map to exit 2; all others to 1."""
    cls = getattr(errors, name)
    expected = 2 if issubclass(cls, InvalidInput) else 1
    assert cls.exit_code == expected
    error = AmbiguousRef("x", ["a"]) if cls is AmbiguousRef else cls("x")
    assert error.exit_code == expected


def test_the_hierarchy_groups_backend_failures() -> None:
    """Operational and integrity failures are backend errors; the rest are not."""
    assert issubclass(errors.StoreFull, errors.OperationalError)
    assert issubclass(errors.CleanupIncomplete, errors.OperationalError)
    assert issubclass(errors.StoreReadOnly, errors.OperationalError)
    assert issubclass(errors.BackendUnavailable, errors.OperationalError)
    assert issubclass(errors.StoreDamaged, errors.BackendUnavailable)
    assert issubclass(errors.OperationalError, errors.BackendError)
    assert issubclass(errors.IntegrityError, errors.BackendError)
    for cls in (errors.InvalidInput, errors.NotFound, errors.Conflict):
        assert not issubclass(cls, errors.BackendError)


def test_an_error_message_is_always_one_line() -> None:
    """A multi-line message is folded into one line with single spaces."""
    e = errors.BackendError("driver said:\n  line two\n\tline three  ")
    assert str(e) == e.message == "driver said: line two line three"


def test_an_ambiguous_ref_carries_its_candidates() -> None:
    """AmbiguousRef tells the caller which names it could have meant."""
    e = AmbiguousRef("'cache' names 2 nodes", ["decision/cache", "task/cache"])
    assert e.candidates == ["decision/cache", "task/cache"]
    assert isinstance(e, InvalidInput)
