"""The pure rules of forgetting (``ryvem.domain.redaction``): literal replacement, what a
rewrite may touch, and which TEXT is refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ryvem.domain.model import NodeVersion
from ryvem.domain.redaction import (
    PURGED,
    REDACTED,
    check_redaction_text,
    purge_version,
    redact_body,
    redact_data,
    redact_link_targets,
    redact_text,
    redact_version,
    skeleton_part,
)
from ryvem.domain.spellings import html_forms, spelled_spans
from ryvem.errors import InvalidInput

SECRET = "tok_9f8e7d6c"


def version(**fields: object) -> NodeVersion:
    values: dict[str, object] = {
        "id": "a" * 24, "entity": "a" * 24, "kind": "task", "scope": "global", "key": "k",
        "title": "t", "body": "", "data": {}, "valid_from": 1,
    }
    values.update(fields)
    return NodeVersion(**values)


def test_replacement_is_literal_and_case_sensitive() -> None:
    assert redact_text(f"a {SECRET} b {SECRET}", SECRET) == (f"a {REDACTED} b {REDACTED}", 2)
    assert redact_text(SECRET.upper(), SECRET) == (SECRET.upper(), 0)
    assert redact_text("a.*b a-b", ".*b a") == ("a[redacted]-b", 1)


@given(st.text(), st.text(min_size=1))
def test_no_occurrence_is_left_after_a_redaction(value: str, text: str) -> None:
    """Whatever the value, the text is gone afterwards (unless the marker itself holds it,
    which check_redaction_text refuses)."""
    if text in REDACTED:
        return
    out, n = redact_text(value, text)
    assert text not in out
    assert (n == 0) == (text not in value)


def test_data_is_redacted_in_every_string_and_key_at_any_depth() -> None:
    data = {"a": SECRET, "n": 3, "deep": {"list": [f"x{SECRET}", 1, None]}, SECRET: True,
            f"{SECRET}!": 1}
    out, n = redact_data(data, SECRET)
    assert out == {"a": REDACTED, "n": 3, "deep": {"list": [f"x{REDACTED}", 1, None]},
                   REDACTED: True, f"{REDACTED}!": 1}
    assert n == 4
    collide, _ = redact_data({f"{SECRET}": 1, "[redacted]": 2}, SECRET)
    assert collide == {REDACTED: 1, f"{REDACTED} (2)": 2}


def test_a_version_with_no_occurrence_is_left_alone_and_link_targets_follow_the_body() -> None:
    assert redact_version(version(body="plain"), (), SECRET) is None
    v = version(body=f"see [[{SECRET}]] and [[other]]", data={"x": SECRET})
    r = redact_version(v, (SECRET.casefold(), "other"), SECRET)
    assert r is not None
    assert r.body == f"see [[{REDACTED}]] and [[other]]" and r.data == {"x": REDACTED}
    assert all(SECRET.casefold() not in t for t in r.targets) and "other" in r.targets
    assert r.erased == "redacted"
    only_target = redact_version(version(body="x"), (f"vault/{SECRET}",), SECRET)
    assert only_target is not None and only_target.targets == (f"vault/{REDACTED}",)


def test_a_purge_keeps_nothing_of_the_content_and_a_purged_version_stays_purged() -> None:
    p = purge_version(version(title="Secret", body="b [[x]]", data={"a": 1},
                              retired_reason="r"))
    assert (p.title, p.body, p.data, p.targets, p.retired_reason) == (PURGED, "", {}, (), PURGED)
    assert purge_version(version()).retired_reason is None
    again = redact_version(version(title=f"x {SECRET}", erased="purged"), (), SECRET)
    assert again is not None and again.erased == "purged"


def test_text_in_a_kind_key_or_scope_names_the_part_a_redaction_cannot_change() -> None:
    assert skeleton_part(version(key=f"a/{SECRET}"), SECRET) == "key"
    assert skeleton_part(version(key=f"a/{SECRET.upper()}"), SECRET) == "folded key"
    assert skeleton_part(version(scope="board:tok-secret-x"), "tok-secret") == "scope"
    assert skeleton_part(version(title=SECRET), SECRET) is None


@pytest.mark.parametrize(
    ("text", "force", "fragment"),
    [("", True, "empty"), ("short", False, "under 8"), ("redacted", True, "markers"),
     ("[purged]", True, "markers"), ("ab\ud800cdefgh", True, "surrogate"), (3, True, "string")],
)
def test_bad_text_is_refused(text: object, force: bool, fragment: str) -> None:
    with pytest.raises(InvalidInput, match=fragment):
        check_redaction_text(text, force=force)


def test_short_text_is_allowed_with_force_and_hostile_text_is_just_text() -> None:
    assert check_redaction_text("4711", force=True) == "4711"
    for text in (r".*[a]+$(x|y)", '"quoted"', "nul\x00byte!", "x" * 1_000_000):
        assert check_redaction_text(text) == text


def test_a_number_holding_the_text_becomes_the_marker_whole_and_other_values_stay() -> None:
    """A card number stored as a JSON number was never rewritten (only strings were): the
    redaction said nothing held it while the file did. A number whose JSON form holds the
    text becomes the string marker whole; booleans, nulls and other numbers stay."""
    data = {"card": 4111111111111111, "amount": 12.5, "pins": [98765432, 1], "ok": True,
            "none": None, "rate": 4111111111.25}
    out, n = redact_data(data, "41111111")
    assert out == {"card": REDACTED, "amount": 12.5, "pins": [98765432, 1], "ok": True,
                   "none": None, "rate": REDACTED}
    assert n == 2


@given(st.text(min_size=0, max_size=40), st.text(min_size=8, max_size=12),
       st.text(min_size=8, max_size=12))
def test_a_second_redaction_reads_as_redacted_further_and_the_first_does_not(
    base: str, first: str, second: str
) -> None:
    """What copy relies on to bring a second redaction across: redacting more of a text
    that was redacted once is "further"; going back is not, unless nothing changed."""
    from ryvem.domain.redaction import _text_redacted_further as further

    text = f"{first} {base} {second}!"
    if REDACTED in text or "[" in first + second or first in REDACTED or second in REDACTED:
        return  # (check_redaction_text refuses a TEXT inside the marker)
    once, _ = redact_text(text, first)
    twice, n = redact_text(once, second)
    assert further(text, once) and further(once, once)
    assert further(once, twice) and further(text, twice)
    if n:
        assert not further(twice, once)


def test_two_different_redactions_are_neither_further_than_the_other() -> None:
    text = "token sk-AAAA1111 and password hunter2-BBBB"
    a, _ = redact_text(text, "sk-AAAA1111")
    b, _ = redact_text(text, "hunter2-BBBB")
    from ryvem.domain.redaction import _text_redacted_further as further

    assert not further(a, b) and not further(b, a)
    assert not further(text, "token [redacted] and password hunter2-BBBB, edited")


def test_a_redacted_link_target_is_gone_and_a_redacted_alias_keeps_its_link() -> None:
    """A sweep found "[[tok-SECRET]]" became a link to a page "redacted" ("[[[redacted]]]"
    parses so), and "[[Other Page|alias SECRET]]" lost its link (the marker's brackets end
    the link early), though the edge stayed. Now the first link is gone and the second kept."""
    v = version(body=f"[[tok-{SECRET}]] and [[Other Page|alias {SECRET}]] and [[plain]]")
    r = redact_version(v, (f"tok-{SECRET}".casefold(), "other page", "plain"), SECRET)
    assert r is not None
    assert r.body == f"[[tok-{REDACTED}]] and [[Other Page|alias {REDACTED}]] and [[plain]]"
    assert r.targets == ("other page", "plain")


def test_a_second_redaction_of_a_number_or_a_key_reads_as_redacted_further() -> None:
    """Copy compared data as sorted JSON text: a number turned "[redacted]" gains quotes and
    a redacted key sorts elsewhere, so a second redaction in the source read as "redacted
    differently" and the target kept the secret. Data is compared as redact_data rewrites it."""
    from ryvem.domain.redaction import redacted_further

    def redacted(v: NodeVersion, text: str) -> NodeVersion:
        r = redact_version(v, (), text)
        assert r is not None
        return v.model_copy(update={"title": r.title, "body": r.body, "data": r.data,
                                    "erased": r.erased})

    v = version(body="first AAAA-1111-x", data={
        "num": 5555666677778888, "SECRETKEYZ": 1, "Y": 2, "deep": [{"k": "AAAA-1111-y"}],
        "BBBB-2222": "one", "BBBB-2222!": "two"})
    once = redacted(v, "AAAA-1111")
    for second in ("5555666677778888", "SECRETKEYZ", "BBBB-2222"):
        twice = redacted(once, second)
        assert redacted_further(once, twice), second
        assert not redacted_further(twice, once), second
    other = redacted(v, "SECRETKEYZ")
    assert not redacted_further(once, other) and not redacted_further(other, once)


PCT = "tok-pctsecret-998877"


@pytest.mark.parametrize(("body", "expected"), [
    ("only [x](tok%2Dpctsecret%2D998877.md) encoded", "only [x]([redacted].md) encoded"),
    ("[y](<tok-pct&#115;ecret-998877.md>)", "[y](<[redacted].md>)"),
    ("tok-pct&#x73;ecret&#X2d;998877 said", "[redacted] said"),
    (r"tok\-pctsecret\-998877 said", "[redacted] said"),
    ("[w](tok&#37;2Dpctsecret-998877.md)", "[w]([redacted].md)"),
    ("%74ok-pctsecret-998877 and tok-pctsecret-998877", "[redacted] and [redacted]"),
])
def test_a_redaction_matches_the_text_in_every_spelling_the_product_decodes(
    body: str, expected: str
) -> None:
    """Issue 39: a percent-encoded link target, an HTML entity, a backslash escape, an
    entity spelling a percent escape: each reads as the text in the page, so each goes."""
    assert redact_body(body, PCT)[0] == expected
    r = redact_version(version(body=body), (), PCT)
    assert r is not None and r.body == expected and r.erased == "redacted"
    assert not any(PCT in t for t in r.targets)


def test_an_encoded_spelling_of_another_text_and_plain_escapes_stay_as_written() -> None:
    body = "100% &amp; tok%2Dother%2D998877 and [a](b%20c.md) and \\* star"
    assert spelled_spans(body, PCT) == []
    assert redact_body(body, PCT) == (body, 0)
    assert redact_version(version(body=body), ("b c",), PCT) is None


def test_a_spelled_span_covers_exactly_the_source_that_decodes_to_the_text() -> None:
    body = "a tok%2Dpctsecret&#45;998877 b"
    assert spelled_spans(body, PCT) == [(2, len(body) - 2)]
    assert redact_body(body, PCT) == ("a [redacted] b", 1)


def test_the_page_forms_of_a_text_are_its_html_escapes() -> None:
    assert html_forms("a<b>&\"c'") == {
        "a<b>&\"c'", "a&lt;b&gt;&amp;\"c'", "a&lt;b&gt;&amp;&quot;c'",
        "a&lt;b&gt;&amp;&quot;c&#x27;"}


def test_a_link_target_that_holds_the_text_once_case_folded_is_redacted_where_written() -> None:
    body = ("a [[Straße-Secret-1234|alias]] and [b](STRASSE%2DSECRET-1234.md#h) "
            "but Straße-Secret-1234")
    out, n = redact_link_targets(body, None, "strasse-secret-1234")
    assert out == "a [[[redacted]|alias]] and [b]([redacted].md#h) but Straße-Secret-1234"
    assert n == 2
    assert redact_link_targets("no [[Other]] link", None, "strasse-secret-1234") == (
        "no [[Other]] link", 0)


def test_a_link_in_code_is_not_a_link_so_its_case_is_kept() -> None:
    body = "`[[Straße-Secret-1234]]`"
    assert redact_link_targets(body, None, "strasse-secret-1234") == (body, 0)
