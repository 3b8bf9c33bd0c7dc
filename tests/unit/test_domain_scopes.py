"""Scope parsing and scope filters."""

from __future__ import annotations

import pytest

from ryvem.domain.scopes import GLOBAL, ScopeFilter, parse_scope, parse_scope_filter
from ryvem.errors import InvalidInput

UUID = "0f8fad5b-d9cb-469f-a165-70867728950e"


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("global", "global"),
        (f"repo:{UUID}", f"repo:{UUID}"),
        (f"repo:{UUID.upper()}", f"repo:{UUID}"),
        ("board:sprint-7", "board:sprint-7"),
        ("board:x", "board:x"),
        ("board:" + "b" * 64, "board:" + "b" * 64),
    ],
)
def test_the_three_scope_shapes_parse_to_their_canonical_spelling(
    text: str, canonical: str
) -> None:
    """global, repo:<uuid> (any case, stored lower) and board:<slug> are valid."""
    assert parse_scope(text) == canonical


@pytest.mark.parametrize(
    "text",
    ["", "GLOBAL", " global", "global\n", "local", "repo", "repo:", f"repo:{{{UUID}}}",
     f"repo:{UUID[:-1]}", UUID.replace("-", ""), f"repo:{UUID.replace('-', '')}",
     f"repo: {UUID}", f"Repo:{UUID}", "board:", "board:Sprint", "board:sprint_7",
     "board:-x", "board:x-", "board:a--b", "board:" + "b" * 65, "board:x\n", "board:x:y",
     "team:x", "*", "repo:*", "board:*", "global:*"],
)
def test_anything_else_is_rejected_with_a_clear_one_line_error(text: str) -> None:
    """Malformed scopes raise InvalidInput naming the three valid shapes."""
    with pytest.raises(InvalidInput, match="'global', 'repo:<uuid>' or 'board:<slug>'") as info:
        parse_scope(text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("text", ["team", "repo:x", "global:*", "**", "board:Sprint"])
def test_a_bad_scope_filter_names_the_shapes_and_the_star_a_filter_also_takes(
    text: str,
) -> None:
    """A read's --scope also takes repo:*, board:* and *; its error says so (a write's does
    not, since a write needs one exact scope)."""
    with pytest.raises(InvalidInput) as info:
        parse_scope_filter(text)
    message = str(info.value)
    assert "'repo:*', 'board:*'" in message and "'*' for every scope" in message
    assert "\n" not in message


def test_a_scope_that_is_not_text_is_rejected() -> None:
    """Only strings are scopes."""
    with pytest.raises(InvalidInput):
        parse_scope(None)  # type: ignore[arg-type]  # deliberately wrong type


def test_no_filter_or_a_star_means_every_scope() -> None:
    """None and * match every scope."""
    for text in (None, "*"):
        f = parse_scope_filter(text)
        assert f.is_all and f.prefix is None
        assert all(f.matches(s) for s in ("global", f"repo:{UUID}", "board:x"))


def test_a_shape_wildcard_matches_only_that_shape() -> None:
    """repo:* matches every repo scope and nothing else; board:* likewise."""
    repos = parse_scope_filter("repo:*")
    boards = parse_scope_filter("board:*")
    assert repos == ScopeFilter(shape="repo") and repos.prefix == "repo:"
    assert boards.prefix == "board:"
    assert repos.matches(f"repo:{UUID}") and not repos.matches("board:x")
    assert not repos.matches(GLOBAL)
    assert boards.matches("board:x") and not boards.matches(f"repo:{UUID}")
    assert not boards.matches("boardroom")


def test_an_exact_filter_matches_one_canonical_scope() -> None:
    """An exact filter is parsed like a scope and matches only it."""
    f = parse_scope_filter(f"repo:{UUID.upper()}")
    assert f == ScopeFilter(exact=f"repo:{UUID}") and not f.is_all and f.prefix is None
    assert f.matches(f"repo:{UUID}")
    assert not f.matches(GLOBAL) and not f.matches(f"repo:{UUID[:-1]}0")
    assert parse_scope_filter("global").matches(GLOBAL)


@pytest.mark.parametrize("text", ["repo:?", "global:*", "board:**", "", "**", "repo:x"])
def test_a_malformed_filter_is_rejected(text: str) -> None:
    """A filter that is neither all, a shape nor a valid scope is InvalidInput."""
    with pytest.raises(InvalidInput):
        parse_scope_filter(text)
