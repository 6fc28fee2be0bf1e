"""Direct model access and the three mutually exclusive chat() modes."""

from __future__ import annotations

import asyncio

import pytest

from agent_nb import (
    Agent,
    AgentRunner,
    Content,
    ConversationReference,
    DataAgentContext,
    FunctionCall,
    FunctionResponse,
    GenerateContentRequest,
    InlineContext,
    TextMessage,
    TurnComplete,
)
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.errors import BackendError


def collect(stream) -> list:  # type: ignore[no-untyped-def]
    async def main() -> list:
        return [e async for e in stream]

    return asyncio.run(main())


def test_generate_content_uses_caller_history_and_stores_nothing(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    scripted.enqueue("Blue.")
    request = GenerateContentRequest(
        [Content.user("My favourite colour is blue."), Content.model("Noted."),
         Content.user("What is my favourite colour?")],
        session_id="affinity-key",
    )  # fmt: skip
    events = collect(runner.generate_content_async(request))
    assert [e.text for e in events if isinstance(e, TextMessage) and not e.is_partial] == ["Blue."]
    assert isinstance(events[-1], TurnComplete)
    assert scripted.requests[-1].contents == request.contents
    assert runner.sessions(include_hidden=True) == []  # session_id is only a cache key
    assert runner.stored_session_ids() == []


def test_generate_content_reports_tool_calls_without_running_them(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    scripted.enqueue(ToolCallChunk("search", {"q": "mlx"}))
    events = collect(runner.generate_content_async(GenerateContentRequest([Content.user("s")])))
    calls = [e for e in events if isinstance(e, FunctionCall)]
    assert [(c.name, dict(c.args)) for c in calls] == [("search", {"q": "mlx"})]
    assert not any(isinstance(e, FunctionResponse) for e in events)


def test_generate_content_cancel_keeps_the_partial_text_marked_interrupted(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    """Direct access runs on the session turn engine: same cancel, same closing steps."""
    scripted.enqueue(" ".join(["word"] * 200))
    scripted.token_delay = 0.01
    stream = runner.generate_content_async(GenerateContentRequest([Content.user("go")]))

    async def main() -> list:
        events = []
        async for event in stream:
            events.append(event)
            if len(events) == 3:
                stream.cancel()
        return events

    events = asyncio.run(main())
    final = [e for e in events if isinstance(e, TextMessage) and not e.is_partial]
    assert len(final) == 1 and final[0].interrupted and final[0].author == "model"
    done = events[-1]
    assert isinstance(done, TurnComplete) and done.finish_reason == "cancelled" and done.interrupted
    reply = stream.result(timeout=5)
    assert reply.interrupted and reply.text == final[0].text
    assert len({e.invocation_id for e in events}) == 1


def test_generate_content_failure_is_recorded_then_raised(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    scripted.enqueue(RuntimeError("model fell over"))
    stream = runner.generate_content_async(GenerateContentRequest([Content.user("go")]))
    seen: list = []

    async def main() -> None:
        async for event in stream:
            seen.append(event)

    with pytest.raises(BackendError, match="model fell over"):
        asyncio.run(main())
    (done,) = seen
    assert isinstance(done, TurnComplete) and done.finish_reason == "error"
    assert done.error == "BackendError: scripted failure: model fell over"


def test_generate_content_rejects_non_requests(runner: AgentRunner) -> None:
    with pytest.raises(TypeError, match="GenerateContentRequest"):
        runner.generate_content_async([Content.user("x")])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Content"):
        GenerateContentRequest(["just a string"])  # type: ignore[list-item]


@pytest.mark.parametrize(
    "modes",
    [
        {},
        {"conversation": ConversationReference("a"), "inline": InlineContext("x")},
        {"data_agent": DataAgentContext("d"), "inline": InlineContext("x")},
        {
            "conversation": ConversationReference("a"),
            "data_agent": DataAgentContext("d"),
            "inline": InlineContext("x"),
        },
    ],
)
def test_chat_needs_exactly_one_mode(runner: AgentRunner, modes: dict) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        runner.chat("hi", **modes)
    assert runner.sessions(include_hidden=True) == []


def test_chat_conversation_mode_is_stateful(runner: AgentRunner) -> None:
    collect(runner.chat("one", conversation=ConversationReference("conv")))
    collect(runner.chat("two", conversation=ConversationReference("conv")))
    users = [e.text for e in runner.get_or_create_session("conv").history
             if isinstance(e, TextMessage) and e.author == "user"]  # fmt: skip
    assert users == ["one", "two"]
    with pytest.raises(ValueError, match="history="):
        runner.chat("x", conversation=ConversationReference("conv"), history=[])


def test_chat_data_agent_mode_uses_caller_history_and_a_stored_agent(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    runner.register_agent(Agent(name="analyst", instructions="You analyse data."))
    history = [Content.user("Sales were 10."), Content.model("OK.")]
    collect(runner.chat("Summarise.", data_agent=DataAgentContext("analyst"), history=history))
    request = scripted.requests[-1]
    assert request.system_instruction == "You analyse data."
    assert [c.text for c in request.contents] == ["Sales were 10.", "OK.", "Summarise."]
    assert runner.sessions(include_hidden=True) == []
    with pytest.raises(KeyError, match="no agent named 'ghost'"):
        runner.chat("x", data_agent=DataAgentContext("ghost"))


def test_chat_inline_mode_runs_inline_tools_statelessly(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    def total(values: list[float]) -> float:
        """Sum values."""
        return sum(values)

    scripted.enqueue(ToolCallChunk("total", {"values": [1, 2, 3.5]}), "6.5")
    events = collect(
        runner.chat("Add.", inline=InlineContext("Be terse.", tools=[total]), history=[])
    )
    responses = [e.response for e in events if isinstance(e, FunctionResponse)]
    assert responses == [{"result": 6.5}]
    assert scripted.requests[-1].system_instruction == "Be terse."
    assert runner.sessions(include_hidden=True) == []
    assert runner.stored_session_ids() == []
