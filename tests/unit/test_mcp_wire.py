"""``ryvem.mcp.wire.repair``: only a line whose JSON holds a lone surrogate is changed, and a
tool call then carries the names of the arguments that held one."""

from __future__ import annotations

import json

from ryvem.mcp.wire import NOT_UNICODE, repair


def call(arguments: str, name: str = "memory_write") -> bytes:
    return (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"%s",'
            b'"arguments":%s}}\n' % (name.encode(), arguments.encode()))


def test_a_line_without_a_surrogate_escape_passes_as_the_same_bytes() -> None:
    line = call('{"kind":"decision","title":"caf\\u00e9 \U0001f642"}')
    assert repair(line) is line


def test_a_valid_pair_and_an_escaped_backslash_are_not_lone_surrogates() -> None:
    """"\\ud83d\\ude00" is an emoji, and "\\\\udcff" is a backslash and five letters."""
    for text in ('"\\ud83d\\ude00"', '"\\\\udcff"'):
        line = call('{"kind":"decision","title":' + text + "}")
        assert repair(line) is line


def test_a_tool_call_holding_one_names_the_arguments_that_held_it() -> None:
    line = call('{"kind":"decision","title":"x\\udcff","data":{"k":["\\ud800"]},"key":"k"}')
    message = json.loads(repair(line))
    assert message["id"] == 7 and message["params"]["name"] == "memory_write"
    assert message["params"]["arguments"] == {NOT_UNICODE: ["title", "data"]}


def test_an_argument_name_holding_one_is_named_with_a_replacement_character() -> None:
    message = json.loads(repair(call('{"ti\\udcfftle":"x"}')))
    assert message["params"]["arguments"] == {NOT_UNICODE: ["ti\ufffdtle"]}


def test_any_other_message_gets_the_replacement_character() -> None:
    line = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":'
            b'{"name":"host\\udcff","version":"1"},"protocolVersion":"2025-06-18",'
            b'"capabilities":{}}}\n')
    message = json.loads(repair(line))
    assert message["params"]["clientInfo"]["name"] == "host\ufffd"
    assert message["method"] == "initialize" and message["id"] == 1


def test_a_line_that_is_not_json_or_not_utf8_is_left_to_the_sdk() -> None:
    for line in (b'{"title": "\\udcff" oops\n', b'{"title": "\xff\\ud800"}\n'):
        assert repair(line) is line
