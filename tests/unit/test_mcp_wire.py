"""``ryvem.mcp.wire.repair``: only a line the SDK's reader refuses is changed; a tool call then
carries what was wrong, naming the arguments, and any other request becomes one the SDK answers."""

from __future__ import annotations

import json

from ryvem.mcp.wire import INVALID_REQUEST, REFUSED, repair


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
    assert message["params"]["arguments"] == {
        REFUSED: ["title, data contain a lone surrogate (not valid Unicode text)"]}


def test_an_argument_name_holding_one_is_named_with_a_replacement_character() -> None:
    message = json.loads(repair(call('{"ti\\udcfftle":"x"}')))
    assert message["params"]["arguments"] == {
        REFUSED: ["ti\ufffdtle contains a lone surrogate (not valid Unicode text)"]}


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


def nested(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


def test_a_tool_call_nested_past_what_the_sdk_reads_is_refused_as_too_deep() -> None:
    message = json.loads(repair(call('{"kind":"task","title":"t","data":' + nested(300) + "}")))
    assert message["id"] == 7
    assert message["params"]["arguments"] == {REFUSED: ["data is nested deeper than 32 levels"]}


def test_a_tool_call_nested_past_what_python_reads_is_still_answered_under_its_id() -> None:
    message = json.loads(repair(call('{"data":' + nested(5000) + "}")))
    assert message["id"] == 7 and message["params"]["name"] == "memory_write"
    assert message["params"]["arguments"] == {
        REFUSED: ["an argument is nested deeper than 32 levels"]}


def test_an_integer_of_more_than_4300_digits_is_refused_naming_its_argument() -> None:
    message = json.loads(repair(call('{"text":"x","limit":' + "9" * 5000 + "}", "memory_search")))
    assert message["params"]["arguments"] == {
        REFUSED: ["limit holds an integer too long to read (over 4,300 digits)"]}


def test_a_nesting_the_sdk_reads_is_left_for_ryvem_to_refuse_itself() -> None:
    line = call('{"kind":"task","title":"t","data":' + nested(60) + "}")
    assert repair(line) is line


def test_a_request_that_is_not_json_rpc_becomes_one_the_sdk_answers_under_its_id() -> None:
    for line in (b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":"x"}\n',
                 b'{"id":"a","method":"ping"}\n', b'{"jsonrpc":"2.0","id":5,"method":7}\n'):
        message = json.loads(repair(line))
        assert message == {"jsonrpc": "2.0", "id": json.loads(line)["id"],
                           "method": INVALID_REQUEST}


def test_a_message_without_an_id_a_reply_could_name_passes_as_it_is() -> None:
    for line in (b'{"jsonrpc":"2.0","method":7}\n', b'{"jsonrpc":"2.0","id":true,"method":1}\n',
                 b"[1, 2]\n"):
        assert repair(line) is line
