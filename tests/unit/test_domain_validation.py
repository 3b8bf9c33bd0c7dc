"""Validation limits: what a value must be before it reaches any store."""

from __future__ import annotations

from typing import Any

import pytest

from ryvem.domain.validation import (
    MAX_BODY_BYTES,
    MAX_DATA_BYTES,
    MAX_DATA_DEPTH,
    MAX_KEY_CHARS,
    MAX_TITLE_CHARS,
    check_text,
    validate_body,
    validate_data,
    validate_key,
    validate_kind,
    validate_reason,
    validate_rel,
    validate_title,
)
from ryvem.errors import InvalidInput


def nested(levels: int, leaf: Any = 1) -> dict[str, Any]:
    """``levels`` nested objects around ``leaf``."""
    value: Any = leaf
    for _ in range(levels):
        value = {"a": value}
    assert isinstance(value, dict)
    return value


def rejects(fn: Any, value: Any, match: str | None = None) -> str:
    with pytest.raises(InvalidInput, match=match) as info:
        fn(value)
    message = str(info.value)
    assert message and "\n" not in message and len(message) < 300
    return message


@pytest.mark.parametrize("fn", [validate_title, validate_key, validate_body, validate_reason])
def test_text_fields_refuse_nul_bytes(fn: Any) -> None:
    """A NUL byte anywhere in text is refused."""
    rejects(fn, "before\x00after", "NUL")


@pytest.mark.parametrize("fn", [validate_title, validate_key, validate_body, validate_reason])
def test_text_fields_refuse_lone_surrogates(fn: Any) -> None:
    """A lone surrogate is not Unicode text and is refused."""
    rejects(fn, "x\udc80y", "surrogate")
    rejects(fn, "\ud83d", "surrogate")


def test_proper_non_ascii_text_passes_unchanged() -> None:
    """Accents, CJK and emoji (paired surrogates in the source) are fine."""
    text = "Règle 漢字 🚀 \u200b"
    assert check_text("title", text) == text
    assert validate_title(text) == text and validate_body(text) == text


def test_a_key_is_at_most_1024_characters() -> None:
    """1024 characters pass; 1025 and 10,000 are refused with the limit in the message."""
    assert validate_key("k" * MAX_KEY_CHARS) == "k" * MAX_KEY_CHARS
    rejects(validate_key, "k" * (MAX_KEY_CHARS + 1), "1024")
    assert "10000 characters" in rejects(validate_key, "k" * 10_000)


@pytest.mark.parametrize(
    "key", ["", "   ", " lead", "trail ", "a\nb", "a\tb", "a\rb", "a\x1bb", "a\x7fb"]
)
def test_a_key_must_be_non_empty_trimmed_and_free_of_control_characters(key: str) -> None:
    """Blank, padded and control-character keys are refused."""
    rejects(validate_key, key)


def test_a_key_may_hold_slashes_spaces_and_unicode() -> None:
    """Keys are paths or names, not slugs."""
    for key in ["notes/a b/c.md", "Décision", "PR#42", "a:b"]:
        assert validate_key(key) == key


def test_a_title_must_have_text_and_at_most_1000_characters() -> None:
    """Empty or blank titles and titles over the limit are refused."""
    rejects(validate_title, "", "empty")
    rejects(validate_title, " \n\t", "empty")
    assert validate_title("t" * MAX_TITLE_CHARS) == "t" * MAX_TITLE_CHARS
    rejects(validate_title, "t" * (MAX_TITLE_CHARS + 1), "1000")
    rejects(validate_title, 7)


def test_a_body_is_at_most_8_mib_of_utf8() -> None:
    """Exactly 8 MiB passes; one byte more, counted in UTF-8, is refused."""
    assert len(validate_body("x" * MAX_BODY_BYTES)) == MAX_BODY_BYTES
    rejects(validate_body, "x" * (MAX_BODY_BYTES + 1), "8 MiB")
    rejects(validate_body, "é" * (MAX_BODY_BYTES // 2 + 1), "8 MiB")  # 2 bytes each
    assert validate_body(None) == ""
    rejects(validate_body, b"bytes")


@pytest.mark.parametrize(
    "value",
    ["decision", "business-rule", "codebase-map", "pr", "a1", "x" * 64],
)
def test_kinds_and_rels_are_lowercase_slugs(value: str) -> None:
    """Lowercase letters, digits and single inner hyphens, at most 64 characters."""
    assert validate_kind(value) == value and validate_rel(value) == value


@pytest.mark.parametrize(
    "value",
    ["", "Decision", "1abc", "-a", "a-", "a--b", "a_b", "a b", "a.b", "é", "x" * 65, "a\n",
     None, 3],
)
def test_anything_else_is_not_a_kind_or_rel(value: object) -> None:
    """Non-slugs are refused with an example of a good one."""
    assert "lowercase slug" in rejects(validate_kind, value) or not isinstance(value, str)
    rejects(validate_rel, value)


def test_data_is_a_json_object_given_as_a_dict_or_as_json_text() -> None:
    """A dict or JSON object text passes; None means empty."""
    assert validate_data({"a": [1, 2.5, None, True, "x"]}) == {"a": [1, 2.5, None, True, "x"]}
    assert validate_data('{"status": "open"}') == {"status": "open"}
    assert validate_data(None) == {}


@pytest.mark.parametrize(
    "value",
    ["[1]", "1", '"x"', "null", "{", "{'a': 1}", [1], 5, {1: "x"}, {"a": float("nan")},
     {"a": float("inf")}, {"a": {1, 2}}, {"a": b"x"}, {"a\x00": 1}, {"a": "b\x00"},
     {"a": "\ud800"}, {"\udfff": 1}],
)
def test_data_that_is_not_a_clean_json_object_is_refused(value: object) -> None:
    """Lists, scalars, bad JSON, non-string keys, NaN, non-JSON types and bad text are refused."""
    rejects(validate_data, value)


def test_an_integer_too_long_to_read_is_named_as_such_not_as_invalid_json() -> None:
    """Valid JSON Python will not read (over 4,300 digits) said "data is not valid JSON"."""
    rejects(validate_data, '{"a": ' + "9" * 5000 + "}", "integer too long to read")
    rejects(validate_data, '{"a": 1,}', "data is not valid JSON")


def test_data_may_nest_32_objects_or_arrays_but_not_33() -> None:
    """Depth counts containers: 32 nested objects pass with or without a scalar leaf."""
    assert validate_data(nested(MAX_DATA_DEPTH)) == nested(MAX_DATA_DEPTH)
    assert validate_data(nested(MAX_DATA_DEPTH - 1, {}))
    rejects(validate_data, nested(MAX_DATA_DEPTH + 1), "deeper than 32")
    rejects(validate_data, nested(MAX_DATA_DEPTH, []), "deeper than 32")
    deep_text = '{"a":' * (MAX_DATA_DEPTH + 1) + "1" + "}" * (MAX_DATA_DEPTH + 1)
    rejects(validate_data, deep_text, "deeper than 32")


def test_absurdly_deep_data_is_refused_without_a_recursion_error() -> None:
    """100,000 nested levels, as text or as objects, give InvalidInput."""
    rejects(validate_data, '{"a":' * 100_000 + "1" + "}" * 100_000, "deeper")
    rejects(validate_data, nested(100_000), "deeper")


def test_data_is_at_most_1_mib_serialised() -> None:
    """A data object over 1 MiB of JSON is refused; just under passes."""
    assert validate_data({"a": "x" * (MAX_DATA_BYTES - 100)})
    rejects(validate_data, {"a": "x" * MAX_DATA_BYTES}, "1 MiB")


def test_a_reason_is_optional_text_of_at_most_2000_characters() -> None:
    """None passes; long or non-text reasons are refused."""
    assert validate_reason(None) is None
    assert validate_reason("obsolete") == "obsolete"
    rejects(validate_reason, "r" * 2001, "2000")
    rejects(validate_reason, 5)
