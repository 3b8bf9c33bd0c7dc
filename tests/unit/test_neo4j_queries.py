"""How the Neo4j adapter sends a query: values packed into one map, text folded for the index.

Pure functions, no server: the contract suite runs every packed query on a real one.
"""

from __future__ import annotations

import random

import pytest

from ryvem.adapters.neo4j import queries as cypher
from ryvem.adapters.neo4j.repository import _WORD, _ft, _statement
from ryvem.domain.search import fold


def test_a_packed_query_reads_every_value_from_one_map_and_leaves_literals_alone() -> None:
    """Each $name becomes $p.name; a $ inside a string, a quoted name or a comment stays."""
    text = ("MATCH (n {id: $id}) // not $this\nWHERE n.s = 'a $b' AND n.`$c` = \"$d\" "
            "RETURN $id, $xs")
    packed = cypher.packed(text)
    assert packed.text == (
        "MATCH (n {id: $p.id}) // not $this\nWHERE n.s = 'a $b' AND n.`$c` = \"$d\" "
        "RETURN $p.id, $p.xs"
    )
    assert packed.names == {"id", "xs"}


def test_every_query_file_packs_to_the_parameters_its_header_names() -> None:
    """The rewrite finds exactly the $parameters each query file uses, and leaves none bare."""
    for name in cypher.names():
        packed = cypher.packed(cypher.load(name))
        body = "\n".join(line for line in packed.text.splitlines() if not line.startswith("//"))
        assert "$" not in body.replace(f"${cypher.PACK}.", ""), name
        header = "\n".join(line for line in packed.text.splitlines() if line.startswith("//"))
        assert all(f"${p}" in header for p in packed.names), name


def test_a_query_goes_out_without_its_comments_and_with_its_strings_untouched() -> None:
    """The server pre-parses every character of a query on every run: comments and blank
    lines stay in the files, not on the wire; a // inside a string or quoted name stays."""
    text = ("// header $x\nMATCH (n {id: $id})  // trailing\n\n  // indented\n"
            "WHERE n.s = 'a // b' AND n.`//c` = \"//d\"\nRETURN n")
    sent, values = _statement(text, {"id": 1, "x": 2})
    assert sent == "MATCH (n {id: $p.id})\nWHERE n.s = 'a // b' AND n.`//c` = \"//d\"\nRETURN n"
    assert values == {"p": {"id": 1, "x": 2}}
    for name in cypher.names():
        assert "//" not in cypher.compact(cypher.packed(cypher.load(name)).text), name


def test_a_query_missing_one_of_its_values_is_refused_before_it_is_sent() -> None:
    """A map would hide a missing key as null, so the adapter checks the names first."""
    text, values = _statement("RETURN $a, $b", {"a": 1, "b": [], "extra": 2})
    assert text == "RETURN $p.a, $p.b" and values == {"p": {"a": 1, "b": [], "extra": 2}}
    with pytest.raises(ValueError, match="'b'"):
        _statement("RETURN $a, $b", {"a": 1})


def test_full_text_folding_is_the_same_word_by_word_whatever_the_script() -> None:
    """The ASCII fast path gives exactly the words the per-word fold gives."""
    rng = random.Random(7)
    alphabet = "aZ09_ -.,éÉßİıǅﬁ½\u0301\u00a0日本語ǄΣς"
    texts = ["Hello World_foo bar-baz 12ab", "Ünïcödé café ½ ﬁne Straße İstanbul", "", "a_b"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(30))) for _ in range(3000)]
    for text in texts:
        assert _ft(text) == " ".join(fold(w) for w in _WORD.findall(text)), repr(text)
