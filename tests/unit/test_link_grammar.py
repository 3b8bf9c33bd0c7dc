"""The link grammar and the resolution rule (``ryvem.domain.links``), case by case."""

from __future__ import annotations

import pytest

from ryvem.domain.links import (
    Candidate,
    Link,
    extract_links,
    extract_targets,
    normalize,
    resolve,
    resolve_links,
)
from ryvem.domain.traversal import clamp_depth, parse_direction
from ryvem.errors import InvalidInput

# --- what counts as a link -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("See [[Alpha]].", ["alpha"]),
        ("See [[Alpha|the first letter]].", ["alpha"]),
        ("| a | [[Alpha\\|first]] |\n|---|---|", ["alpha"]),
        ("See [[Alpha#Origins]].", ["alpha"]),
        ("See [[Alpha#^block-1]].", ["alpha"]),
        ("See [[Alpha#Origins|origins]].", ["alpha"]),
        ("![[Diagram Notes]]", ["diagram notes"]),
        ("[[^Library/Std]]", ["library/std"]),
        ("[[ Spaced Out ]]", ["spaced out"]),
        ("[[Notes/Alpha.md]]", ["notes/alpha"]),
        ("[[Note: draft]]", ["note: draft"]),
        ("See [[CHANGELOG@L12c42]].", ["changelog"]),
        ("See [[CHANGELOG@l12]].", ["changelog"]),
        ("See [[Outline Stress Test@1458]].", ["outline stress test"]),
        ("See [[Alpha@L3C4|there]].", ["alpha"]),
        ("See [[^Library/Std@12]].", ["library/std"]),
        ("Mail [[me@example]] or [[v@L]] or [[x@12b]].", ["me@example", "v@l", "x@12b"]),
    ],
)
def test_wikilink_forms_link_to_their_slug(body: str, expected: list[str]) -> None:
    """Every wikilink form (alias, escaped pipe, heading, block, position, embed, caret) names
    its slug; an @ that is not a position (@L<n>[C<n>] or @<n>) stays part of the name."""
    assert extract_targets(body) == expected


@pytest.mark.parametrize(
    ("body", "source", "expected"),
    [
        ("[text](beta.md)", "docs/alpha", ["docs/beta"]),
        ("![shown](beta.md)", "docs/alpha", ["docs/beta"]),
        ("[up](../top.md)", "docs/alpha", ["top"]),
        ("[here](./sub/gamma.md)", "docs/alpha", ["docs/sub/gamma"]),
        ("[enc](My%20Page.md)", "alpha", ["my page"]),
        ("[angle](<My Page.md>)", "alpha", ["my page"]),
        ("[abs](/docs/beta.md)", "x/y", ["docs/beta"]),
        ('[titled](beta.md "Beta page")', "alpha", ["beta"]),
        ("[anchor](beta.md#part)", "alpha", ["beta"]),
        ("[root](beta.md)", None, ["beta"]),
    ],
)
def test_markdown_links_to_markdown_files_link_to_their_path(
    body: str, source: str | None, expected: list[str]
) -> None:
    """A markdown link to a .md file links to its percent-decoded path, relative to the page."""
    assert extract_targets(body, source) == expected


@pytest.mark.parametrize(
    "body",
    [
        "[[#Heading on this page]]",
        "[[#^block]]",
        "[[@1458]]",
        "[[@L12c42]]",
        "Use `[[Alpha]]` to link.",
        "Use ``a `[[Alpha]]` b`` to link.",
        "```\n[[Alpha]]\n```",
        "~~~markdown\n[Alpha](alpha.md)\n~~~",
        "Para.\n\n    [[Alpha]] is indented code\n",
        "- item\n\n  ```\n  [[Alpha]]\n  ```\n",
        "[[https://example.com/page]]",
        "[site](https://example.com/alpha.md)",
        "[mail](mailto:someone@example.com)",
        "[proto](//example.com/alpha.md)",
        "![[photo.png]]",
        "[[Board.canvas]]",
        "[[sketch.excalidraw]]",
        "[[report.PDF]]",
        "![img](pic.jpg)",
        "[doc](document.pdf)",
        "[plain](page)",
        "[escape](../../outside.md)",
        "[empty]()",
        "no brackets at all",
    ],
)
def test_non_links_make_no_target(body: str) -> None:
    """Self-links, code, URLs, assets and non-markdown targets are not page links."""
    assert extract_targets(body, "docs/alpha") == []


def test_a_stray_backtick_does_not_hide_links_in_later_paragraphs() -> None:
    """An unclosed backtick hides nothing beyond its own paragraph."""
    body = "It costs 5` here.\n\nSee [[Alpha]] and `x` then [[Beta]]."
    assert extract_targets(body) == ["alpha", "beta"]


def test_targets_keep_first_appearance_order_without_repeats() -> None:
    """Targets are listed once each, in the order they first appear, across both syntaxes."""
    body = "[[Gamma]] then [b](beta.md) then [[alpha]] and [[ALPHA|again]] and [[Gamma#x]]"
    assert extract_targets(body) == ["gamma", "beta", "alpha"]


def test_a_link_to_the_page_itself_is_dropped() -> None:
    """Naming the page's own key links nowhere."""
    assert extract_targets("[[Alpha]] and [[Beta]]", "Alpha") == ["beta"]


@pytest.mark.parametrize(
    ("body", "anchor"),
    [
        ("[[Alpha]]", None),
        ("[[Alpha|alias]]", None),
        ("[[Alpha#Origins]]", "#Origins"),
        ("[[Alpha# Two Words |x]]", "#Two Words"),
        ("[[Alpha#^block-1]]", "#^block-1"),
        ("[[Alpha#]]", None),
        ("[[Alpha@L12c42]]", "@L12c42"),
        ("[[Alpha@1458]]", "@1458"),
        ("[[Alpha@12#Heading]]", "#Heading"),
        ("[a](alpha.md#Part%201)", "#Part 1"),
        ("[a](alpha.md)", None),
    ],
)
def test_the_anchor_is_kept_as_written(body: str, anchor: str | None) -> None:
    """A heading, block or position suffix is stripped from the target and kept as the anchor."""
    assert extract_links(body) == [Link("alpha", anchor)]


def test_the_first_appearance_of_a_target_gives_its_anchor() -> None:
    """One link per target: a later mention with another anchor does not replace the first."""
    assert extract_links("[[A#one]] [[A@12]] [[/A.md]]") == [Link("a", "#one")]


def test_a_target_spelled_in_another_case_is_a_second_link_with_its_spelling() -> None:
    """[[Note]] and [[note]] may name two pages, so each keeps the spelling it was written in."""
    links = extract_links("[[Note#x]] [[note]] [[/Note.md]]")
    assert [(link.target, link.anchor, link.written) for link in links] == [
        ("note", "#x", "Note"), ("note", None, "note"),
    ]
    assert extract_targets("[[Note]] [[note]]") == ["note"]


def test_a_links_edge_data_names_target_anchor_and_field_when_present() -> None:
    """Edge data holds the normalised target, plus the anchor and field when there are any."""
    assert Link("a").edge_data() == {"target": "a"}
    assert Link("a", "@L1").edge_data() == {"target": "a", "anchor": "@L1"}
    assert Link("a", None, "deciders").edge_data() == {"target": "a", "field": "deciders"}


# --- links in the data (front matter) ---------------------------------------------------------


def test_front_matter_strings_and_list_items_link_with_their_field() -> None:
    """A scalar and the string items of a list link; nested mappings and non-strings do not."""
    data = {
        "deciders": "[[Zef Hemel]]",
        "related": ["[[ADR/010 Rust Backend]]", 3, "[[Sync#How|sync]] and [[Space Lua]]"],
        "nested": {"deep": "[[Nope]]"},
        "listed": [["[[Nope either]]"]],
        "count": 3,
        "md": "[not a link](alpha.md)",
    }
    assert extract_links("", "ADR/002", data) == [
        Link("zef hemel", None, "deciders"),
        Link("adr/010 rust backend", None, "related"),
        Link("sync", "#How", "related"),
        Link("space lua", None, "related"),
    ]


def test_front_matter_links_come_first_in_field_order_then_the_body() -> None:
    """Fields in key order precede the body; a target the front matter named is not repeated."""
    data = {"owner": "[[Zef]]", "deciders": "[[Zef]]", "related": ["[[Body Too]]"]}
    assert extract_links("[[Body Too#x]] then [[Other]]", "page", data) == [
        Link("zef", None, "deciders"),
        Link("body too", None, "related"),
        Link("other"),
    ]


def test_front_matter_follows_the_wikilink_grammar_and_drops_self_links() -> None:
    """Positions strip, URLs and assets do not link, and the page's own key is dropped."""
    data = {"a": "[[Page@L2]]", "b": "[[https://x.org]]", "c": "![[pic.png]]", "d": "[[Self]]"}
    assert extract_links("", "self", data) == [Link("page", "@L2", "a")]
    assert extract_targets("[[Body]]", "self", data) == ["page", "body"]


def test_normalisation_is_nfc_casefolded_and_trimmed() -> None:
    """Decomposed accents, case, whitespace, a leading slash and .md all compare equal."""
    assert normalize(" /Cafe\u0301/Ménu.MD ") == normalize("café/ménu") == "café/ménu"


# --- resolution -----------------------------------------------------------------------------


def _c(entity: str, key: str, scope: str = "global", kind: str = "page") -> Candidate:
    return Candidate(entity=entity, kind=kind, key=key, scope=scope)


def test_the_exact_key_wins_over_a_longer_path() -> None:
    """Rule 1: an exact key is chosen even when other keys share its last segment."""
    pool = [_c("1", "a/foo"), _c("2", "foo")]
    hit = resolve("foo", "global", "page", pool)
    assert hit is not None and hit.entity == "2"


def test_a_unique_last_segment_resolves() -> None:
    """Rule 2: the only key whose last segment equals the target is chosen."""
    hit = resolve("foo", "global", "page", [_c("1", "deep/down/Foo")])
    assert hit is not None and hit.entity == "1"


def test_a_written_path_picks_the_key_ending_with_it() -> None:
    """Rule 3: among several, the key ending with the written path is chosen."""
    pool = [_c("1", "a/foo"), _c("2", "x/b/foo"), _c("3", "foo2")]
    hit = resolve("b/foo", "global", "page", pool)
    assert hit is not None and hit.entity == "2"


def test_a_written_path_never_resolves_to_a_key_not_ending_with_it() -> None:
    """A path target does not fall back to an unrelated key with the same last segment."""
    assert resolve("b/foo", "global", "page", [_c("1", "c/foo")]) is None


def test_several_keys_pick_the_fewest_segments() -> None:
    """Rule 3: without a better match, the shallowest key wins; ties go to key order."""
    pool = [_c("1", "a/b/foo"), _c("3", "z/foo"), _c("2", "y/foo")]
    hit = resolve("foo", "global", "page", pool)
    assert hit is not None and hit.entity == "2"


def test_same_key_in_two_kinds_prefers_the_linking_kind() -> None:
    """An exact key held by two kinds resolves to the linking node's own kind."""
    pool = [_c("1", "cache", kind="decision"), _c("2", "cache", kind="page")]
    hit = resolve("cache", "global", "page", pool)
    assert hit is not None and hit.entity == "2"


def test_the_linking_scope_is_searched_before_global() -> None:
    """A key in the node's own scope beats an exact key in global."""
    scope = "board:team"
    pool = [_c("1", "foo"), _c("2", "notes/foo", scope=scope)]
    hit = resolve("foo", scope, "page", pool)
    assert hit is not None and hit.entity == "2"


def test_global_is_the_fallback_and_other_scopes_are_never_used() -> None:
    """A target missing from the node's scope resolves in global, never in a third scope."""
    pool = [_c("1", "foo", scope="board:other")]
    assert resolve("foo", "board:team", "page", pool) is None
    pool.append(_c("2", "foo"))
    hit = resolve("foo", "board:team", "page", pool)
    assert hit is not None and hit.entity == "2"


def test_resolution_is_case_and_unicode_insensitive() -> None:
    """A target written in another case or Unicode form still resolves."""
    hit = resolve(normalize("CAFE\u0301"), "global", "page", [_c("1", "Notes/Café")])
    assert hit is not None and hit.entity == "1"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a/page", "a/x"),  # its own folder
        ("b/page", "b/x"),
        ("b/sub/page", "b/x"),  # the nearest ancestor's subtree
        ("c/page", "a/x"),  # no nearer folder: key order
        ("page", "a/x"),
        (None, "a/x"),  # unkeyed: as at the root
    ],
)
def test_equal_candidates_go_to_the_nearest_folder_then_key_order(
    source: str | None, expected: str
) -> None:
    """[[x]] with a/x and b/x: the linking page's own folder, then nearest ancestor, then key."""
    pool = [_c("2", "b/x"), _c("1", "a/x"), _c("3", "a/deeper/x")]
    for order in (pool, pool[::-1]):
        hit = resolve("x", "global", "page", order, source)
        assert hit is not None and hit.key == expected


def test_nearness_compares_whole_folder_names_case_insensitively() -> None:
    """Folder "ab" is not near "a"; "Docs" and "docs" are the same folder."""
    pool = [_c("1", "a/x/y"), _c("2", "Docs/x/y"), _c("3", "ab/x/y")]
    hit = resolve("x/y", "global", "page", pool, "ab/page")
    assert hit is not None and hit.key == "ab/x/y"
    hit = resolve("x/y", "global", "page", pool, "docs/sub/page")
    assert hit is not None and hit.key == "Docs/x/y"


def test_fewer_segments_and_the_own_kind_rank_before_nearness() -> None:
    """Nearness only breaks ties: a shallower key, or one of the linking kind, still wins."""
    pool = [_c("1", "a/b/x"), _c("2", "z/x")]
    hit = resolve("x", "global", "page", pool, "a/b/page")
    assert hit is not None and hit.key == "z/x"
    pool = [_c("1", "a/x", kind="decision"), _c("2", "z/x")]
    hit = resolve("x", "global", "page", pool, "a/page")
    assert hit is not None and hit.key == "z/x"


def test_ties_never_depend_on_ids_or_the_order_candidates_come_in() -> None:
    """The same keys under any entity ids and in any order give the same key."""
    keys = [("y/foo", "page"), ("x/foo", "page"), ("foo", "task"), ("FOO", "decision")]
    picks = set()
    for ids in (["1", "2", "3", "4"], ["4", "3", "2", "1"]):
        pool = [_c(i, k, kind=kind) for i, (k, kind) in zip(ids, keys, strict=True)]
        for order in (pool, pool[::-1]):
            for target in ("foo", "x/foo"):
                hit = resolve(target, "global", "page", order, "q/page")
                assert hit is not None
                picks.add((target, hit.key, hit.kind))
    assert picks == {("foo", "FOO", "decision"), ("x/foo", "x/foo", "page")}


def test_resolve_links_makes_one_edge_per_node_and_lists_the_dangling() -> None:
    """Two targets reaching one node make one edge (the first link's); self and ghosts none."""
    by_tail = {"foo": [_c("1", "a/foo")], "me": [_c("9", "me")]}
    links = [Link("foo", "#h"), Link("a/foo"), Link("me"), Link("ghost")]
    want, dangling = resolve_links(links, "9", "global", "page", "me", by_tail)
    assert want == {"1": Link("foo", "#h")}
    assert dangling == ["ghost"]


def test_the_key_spelled_as_written_wins_over_one_equal_after_case_folding() -> None:
    """With pages Note and note, [[note]] reaches note and [[Note]] Note, in any order; a
    spelling matching neither key, or none given, falls back to the folded order (key order)."""
    pool = [_c("1", "Note"), _c("2", "note")]
    for order in (pool, pool[::-1]):
        for written, expected in (("note", "2"), ("Note", "1"), ("NOTE", "1"), (None, "1")):
            hit = resolve("note", "global", "page", order, None, written)
            assert hit is not None and hit.entity == expected, written


def test_an_exact_spelling_outranks_a_folded_key_of_the_linking_kind() -> None:
    """The exact key is rule (1): kind, folder and key order only break ties below it."""
    pool = [_c("1", "Note", kind="task"), _c("2", "a/note"), _c("3", "note", kind="decision")]
    hit = resolve("note", "global", "task", pool, "a/page", "note")
    assert hit is not None and hit.entity == "3"


def test_resolve_links_sends_each_spelling_to_its_own_page() -> None:
    """A page linking [[Note]] and [[note]] reaches both pages, each with its own link."""
    by_tail = {"note": [_c("1", "Note"), _c("2", "note")]}
    links = extract_links("[[note#low]] and [[Note#up]] and [[ghost]] [[Ghost]]")
    want, dangling = resolve_links(links, "9", "global", "page", "me", by_tail)
    assert {e: link.anchor for e, link in want.items()} == {"2": "#low", "1": "#up"}
    assert dangling == ["ghost"]


def test_no_candidate_means_unresolved() -> None:
    """A target with no matching key resolves to nothing."""
    assert resolve("ghost", "global", "page", [_c("1", "host")]) is None


# --- traversal parameters -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [(0, 1), (-3, 1), (11, 10), (1, 1), (10, 10), ("2", 2), ("-3", 1), (" +4 ", 4)],
)
def test_depth_is_clamped_to_one_through_ten(given: object, expected: int) -> None:
    """Depths outside [1, 10] are clamped, whether given as a number or its spelling."""
    assert clamp_depth(given) == expected


@pytest.mark.parametrize("given", ["2.5", "two", "", "--3", "\u00b2", 2.0, True, None])
def test_a_non_integer_depth_is_invalid_input(given: object) -> None:
    """Anything but an integer is refused with InvalidInput."""
    with pytest.raises(InvalidInput, match="depth must be an integer"):
        clamp_depth(given)


def test_an_unknown_direction_is_invalid_input() -> None:
    """Only out, in and both are directions."""
    assert [parse_direction(d) for d in ("out", "in", "both")] == ["out", "in", "both"]
    with pytest.raises(InvalidInput, match="unknown direction"):
        parse_direction("sideways")


@pytest.mark.parametrize(
    ("body", "data", "expected"),
    [
        ("[[../b/Note|n]]", None, [("docs/b/note", None)]),
        ("[[./Sibling#part]]", None, [("docs/a/sibling", "#part")]),
        ("[[../../top]]", None, [("top", None)]),
        ("[[../../../outside]]", None, []),
        ("", {"up": "[[../Index]]"}, [("docs/index", None)]),
        ("[[b/../c]]", None, [("b/../c", None)]),  # not relative: a name as written
    ],
)
def test_relative_wikilinks_are_taken_from_the_linking_pages_folder(
    body: str, data: dict[str, str] | None, expected: list[tuple[str, str | None]]
) -> None:
    links = extract_links(body, "docs/a/page", data)
    assert [(link.target, link.anchor) for link in links] == expected
