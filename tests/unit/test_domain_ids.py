"""Ids: made by the domain, 24 hex digits, sorting by creation time."""

from __future__ import annotations

from ryvem.domain.ids import IdSequence, is_id, new_id


def test_an_id_is_24_lowercase_hex_digits() -> None:
    """new_id gives 24 lowercase hex digits that is_id accepts."""
    vid = new_id(1_796_040_000_000_000)
    assert len(vid) == 24 and vid == vid.lower() and int(vid, 16) >= 0
    assert is_id(vid)


def test_ids_sort_in_creation_time_order() -> None:
    """Sorting ids sorts by the microsecond they were made, across magnitudes."""
    times = [1, 999, 10**6, 1_796_040_000_000_000, 1_796_040_000_000_001, 2**52 - 1]
    made = [new_id(t) for t in times]
    assert sorted(made) == made
    assert sorted(reversed(made)) == made


def test_ids_made_in_the_same_microsecond_are_distinct() -> None:
    """The random tail keeps ids made at one instant apart."""
    made = {new_id(1_796_040_000_000_000) for _ in range(5000)}
    assert len(made) == 5000


def test_ids_of_one_sequence_sort_in_the_order_they_were_made() -> None:
    """One write's ids share its microsecond and still sort in the order it made them."""
    at = 1_796_040_000_000_000
    mint = IdSequence(at)
    made = [mint() for _ in range(5000)]
    assert made == sorted(made) and len(set(made)) == len(made)
    assert all(is_id(i) and int(i[:13], 16) == at for i in made)
    assert sorted([new_id(at + 1), *made, new_id(at - 1)])[1:-1] == made


def test_the_time_prefix_of_an_id_is_its_microsecond() -> None:
    """The first 13 hex digits are the creation time."""
    assert int(new_id(1_796_040_000_123_456)[:13], 16) == 1_796_040_000_123_456


def test_things_that_are_not_ids_are_recognised() -> None:
    """Keys, short or upper-case hex and padded ids are not ids."""
    good = new_id(10**15)
    for text in ["", "decision/cache", good.upper(), good[:-1], good + "0", " " + good,
                 good + "\n", "g" * 24]:
        assert not is_id(text), text
