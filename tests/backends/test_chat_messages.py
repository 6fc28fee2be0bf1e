"""History -> chat messages, as the MLX chat template and an OpenAI server see it."""

from __future__ import annotations

import pytest

from agent_nb import Content, FunctionCall, FunctionResponse, GenerateContentRequest, Part, Role
from agent_nb.backends.mlx.chat import to_messages
from agent_nb.backends.openai.wire import request_messages

CALL = FunctionCall(name="add", args={"a": 1, "b": 2}, call_id="c1")
RESULT = FunctionResponse(name="add", response={"result": 3}, call_id="c1")
TOOL_TURN = GenerateContentRequest(
    [
        Content.user("Add 1 and 2."),
        Content.model("Sure."),
        Content(Role.MODEL, [Part(function_call=CALL)]),
        Content(Role.USER, [Part(function_response=RESULT)]),
        Content.model("It is 3."),
    ],
    system_instruction="Be brief.",
)


def _expected(arguments: object, tool_extra: dict[str, str]) -> list[dict[str, object]]:
    return [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Add 1 and 2."},
        {
            "role": "assistant",
            "content": "Sure.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "add", "arguments": arguments},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", **tool_extra, "content": '{"result": 3}'},
        {"role": "assistant", "content": "It is 3."},
    ]


def test_chat_template_gets_dict_arguments_and_the_tool_name() -> None:
    assert to_messages(TOOL_TURN) == _expected({"a": 1, "b": 2}, {"name": "add"})


def test_openai_wire_gets_json_arguments() -> None:
    assert request_messages(TOOL_TURN) == _expected('{"a": 1, "b": 2}', {})


def test_a_tool_call_without_text_starts_its_own_assistant_message() -> None:
    request = GenerateContentRequest(
        [Content.user("go"), Content(Role.MODEL, [Part(function_call=CALL)])]
    )
    assert to_messages(request)[1]["content"] == ""
    assert request_messages(request)[1]["content"] is None


@pytest.mark.parametrize("mapping", [to_messages, request_messages])
def test_consecutive_user_messages_merge(mapping) -> None:  # type: ignore[no-untyped-def]
    request = GenerateContentRequest(
        [Content.user("first, then the turn failed"), Content.user("second")]
    )
    assert mapping(request) == [
        {"role": "user", "content": "first, then the turn failed\n\nsecond"}
    ]
