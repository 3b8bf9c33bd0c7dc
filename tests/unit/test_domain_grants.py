import pytest

from ryvem.domain.grants import Grant, hash_secret, parse_grant, secret_matches
from ryvem.errors import InvalidInput

REPO = "repo:0b9f3c4e-1111-4222-8333-444455556666"


def test_a_read_grant_on_one_repo_reads_that_repo_and_nothing_else() -> None:
    g = Grant(read=parse_grant(REPO))
    assert g.may_read(REPO)
    assert not g.may_read("global")
    assert not g.may_read("repo:0b9f3c4e-1111-4222-8333-000000000000")


def test_a_shape_grant_covers_every_scope_of_that_shape_only() -> None:
    g = Grant(write=parse_grant("repo:*, global"))
    assert g.may_write(REPO) and g.may_write("global")
    assert not g.may_write("board:team")


def test_an_empty_grant_allows_nothing_and_star_allows_everything() -> None:
    assert not Grant().may_read("global")
    assert Grant(forget=parse_grant("*")).may_forget("board:x")


def test_a_malformed_scope_in_a_grant_is_refused() -> None:
    with pytest.raises(InvalidInput):
        parse_grant("repo:not-a-uuid")


def test_a_secret_matches_only_its_own_hash() -> None:
    stored = hash_secret("s3cret-value")
    assert secret_matches("s3cret-value", stored)
    assert not secret_matches("s3cret-valuf", stored)
