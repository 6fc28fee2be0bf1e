"""Sessions that outgrow the model's context window keep working.

The scripted backend counts one token per word, so the window rules are
checked exactly without a model: what is sent never exceeds the window, the
newest turns stay, tool pairs stay together, the cut moves in steps, and
history keeps everything. A real SQLite file checks resume; a real socket
server answering vLLM's 400 checks the refusal path; the magics and the
widget show the window.
"""

from __future__ import annotations

import itertools
import json
import pathlib
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import (
    Agent,
    AgentRunner,
    Content,
    FunctionCall,
    FunctionResponse,
    GenerateContentRequest,
    GenerationConfig,
    Role,
    TextMessage,
    TurnComplete,
    get_runner,
)
from agent_nb._core.codec import event_from_dict, event_to_dict
from agent_nb._core.types import Usage
from agent_nb._core.window import SLIDE_TO, fit_window, omitted_line, turn_starts
from agent_nb._jupyter.export import session_json
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.backends.openai import OpenAIBackend
from agent_nb.backends.openai.wire import context_overflow
from agent_nb.errors import AgentError, ContextWindowError
from tests.fixtures_magics import run, usage_error
from tests.fixtures_server import FakeOpenAIServer, Reply, Status

SHORT = GenerationConfig(max_tokens=4)
WINDOW = 80


def _words(request: Any) -> int:
    return ScriptedBackend().count_tokens(request)


@pytest.fixture
def small() -> ScriptedBackend:
    return ScriptedBackend(context_window=WINDOW)


@pytest.fixture
def small_runner(small: ScriptedBackend) -> Iterator[AgentRunner]:
    runner = AgentRunner(model=small)
    yield runner
    runner.shutdown()


def _message(i: int) -> str:
    return f"question {i} about the data frame and its columns"


def test_sixty_turns_never_exceed_the_window_and_keep_the_newest() -> None:
    window = 160  # about 12 turns of 13 words
    small = ScriptedBackend(context_window=window)
    runner = AgentRunner(model=small)
    session = runner.get_or_create_session("long")
    omitted: list[int] = []
    for i in range(60):
        reply = session.run(_message(i), config=SHORT)
        request = small.requests[-1]
        sent = _words(request)
        assert sent + SHORT.max_tokens <= window, (i, sent)
        # What the model holds after the turn: the request plus the reply.
        assert reply.usage.context_tokens == sent + reply.usage.generated_tokens
        assert reply.usage.context_window == window
        # The newest turns are the ones shown: the last user text is this message,
        # and the turns shown are the latest ones, in order.
        shown = [c.text for c in request.contents if c.role is Role.USER]
        assert shown[-1] == _message(i)
        assert shown == [_message(j) for j in range(i - len(shown) + 1, i + 1)]
        omitted.append(reply.usage.omitted_turns)
    # The cut only moves forward, and in steps: after a slide the prompt takes
    # about ¾ of the window, so the next quarter (3 turns here) needs no slide.
    assert omitted == sorted(omitted) and omitted[-1] > 0
    slides = [i for i in range(1, 60) if omitted[i] != omitted[i - 1]]
    for i in slides:
        assert _words(small.requests[i]) + SHORT.max_tokens <= window * SLIDE_TO
    gaps = [b - a for a, b in itertools.pairwise(slides)]
    assert gaps and min(gaps) >= 3, slides
    # History keeps every turn.
    history = session.history
    assert sum(isinstance(e, TurnComplete) for e in history) == 60
    assert [e.text for e in history if isinstance(e, TextMessage) and e.author == "user"] == [
        _message(i) for i in range(60)
    ]
    exported = json.loads(session_json(session))
    assert len(exported["events"]) == len(history)
    runner.shutdown()


def test_without_a_window_the_whole_history_is_sent(runner: AgentRunner, scripted: Any) -> None:
    session = runner.get_or_create_session("free")
    for i in range(30):
        reply = session.run(_message(i), config=SHORT)
    assert len(scripted.requests[-1].contents) == 59
    assert reply.usage.context_window is None and reply.usage.omitted_turns == 0
    generated = reply.usage.generated_tokens
    assert reply.usage.context_tokens == _words(scripted.requests[-1]) + generated


def _lookup(key: str) -> str:
    """Look a key up."""
    return "value of " + key


def test_tool_call_and_response_stay_together(small: ScriptedBackend) -> None:
    runner = AgentRunner(model=small, agent=Agent(tools=[_lookup]))
    try:
        session = runner.get_or_create_session("tools")
        for i in range(25):
            small.enqueue(ToolCallChunk("_lookup", {"key": f"k{i}"}, call_id=f"c{i}"), "done")
            session.run(_message(i), config=SHORT)
            for request in small.requests[-2:]:
                assert _words(request) + SHORT.max_tokens <= WINDOW
                calls = {
                    p.function_call.call_id
                    for c in request.contents
                    for p in c.parts
                    if p.function_call
                }
                answers = {
                    p.function_response.call_id
                    for c in request.contents
                    for p in c.parts
                    if p.function_response
                }
                assert calls == answers
                # Every request starts at a user message: a whole turn.
                first = request.contents[0]
                assert first.role is Role.USER and first.parts[0].text is not None
        assert session.history[-1].usage.omitted_turns > 0  # type: ignore[attr-defined]
        assert sum(isinstance(e, FunctionCall) for e in session.history) == 25
        assert sum(isinstance(e, FunctionResponse) for e in session.history) == 25
    finally:
        runner.shutdown()


def test_error_policy_raises_before_anything_is_sent_or_recorded(
    small: ScriptedBackend,
) -> None:
    runner = AgentRunner(model=small, agent=Agent(context_policy="error"))
    try:
        session = runner.get_or_create_session("strict")
        i = 0
        with pytest.raises(ContextWindowError) as caught:
            while True:
                session.run(_message(i), config=SHORT)
                i += 1
        assert i > 2
        assert isinstance(caught.value, AgentError) and caught.value.window == WINDOW
        assert "context_policy='error'" in str(caught.value) and "%agent delete" in str(
            caught.value
        )
        assert len(small.requests) == i  # the failing turn sent nothing
        assert sum(isinstance(e, TurnComplete) for e in session.history) == i  # nor recorded
        assert session.history[-1].usage.omitted_turns == 0  # type: ignore[attr-defined]
        assert not session.busy
        # The same turn with the window policy for this turn only goes through.
        reply = session.run(_message(i), config=SHORT, context_policy="window")
        assert reply.usage.omitted_turns > 0
        with pytest.raises(ValueError, match="context_policy must be one of 'window', 'error'"):
            session.run("hi", context_policy="drop")  # type: ignore[arg-type]
    finally:
        runner.shutdown()


def test_agent_rejects_an_unknown_policy() -> None:
    with pytest.raises(ValueError, match="got 'trim'"):
        Agent(context_policy="trim")  # type: ignore[arg-type]


def test_a_message_too_big_alone_fails_and_loses_nothing(
    small: ScriptedBackend, small_runner: AgentRunner
) -> None:
    session = small_runner.get_or_create_session("big")
    session.run("a small question", config=SHORT)
    before = session.history
    with pytest.raises(ContextWindowError, match=r"the current message needs 1[0-9]{2} tokens"):
        session.run("word " * 100, config=SHORT)
    assert session.history == before and len(small.requests) == 1
    # max_tokens counts: a reply that cannot fit is refused too.
    with pytest.raises(ContextWindowError, match="to generate"):
        session.run("short", config=GenerationConfig(max_tokens=WINDOW))
    assert session.run("a second small question", config=SHORT).text


def test_resumed_sqlite_session_applies_the_same_window(tmp_path: pathlib.Path) -> None:
    db = f"sqlite:///{tmp_path / 'sessions.db'}"
    first_backend = ScriptedBackend(context_window=WINDOW)
    first = AgentRunner(model=first_backend, store=db)
    session = first.get_or_create_session("kept")
    for i in range(20):
        last = session.run(_message(i), config=SHORT)
    first.shutdown()
    assert last.usage.omitted_turns > 0

    second_backend = ScriptedBackend(context_window=WINDOW)
    second = AgentRunner(model=second_backend, store=db)
    try:
        resumed = second.get_or_create_session("kept")
        assert sum(isinstance(e, TurnComplete) for e in resumed.history) == 20
        info = next(i for i in second.sessions() if i.id == "kept")
        assert (info.context_tokens, info.context_window) == (
            last.usage.context_tokens,
            WINDOW,
        )
        reply = resumed.run(_message(20), config=SHORT)
        # The same cut as the first runner would keep (it was sticky), so the
        # request is the previous one plus the new turn.
        assert reply.usage.omitted_turns in (
            last.usage.omitted_turns,
            last.usage.omitted_turns + 1,
        )
        request = second_backend.requests[-1]
        assert _words(request) + SHORT.max_tokens <= WINDOW
        shown = [c.text for c in request.contents if c.role is Role.USER]
        assert shown[-1] == _message(20) and shown[0] != _message(0)
    finally:
        second.shutdown()


def test_usage_rows_written_before_the_window_fields_still_read() -> None:
    old = {"kind": "turn_complete", "usage": {"prompt_tokens": 3, "cached_tokens": 0,
           "generated_tokens": 2, "time_to_first_token_s": None, "tokens_per_s": None,
           "peak_memory_bytes": None}}  # fmt: skip
    event = event_from_dict(old)
    assert isinstance(event, TurnComplete) and event.usage.context_window is None
    new = TurnComplete(usage=Usage(context_tokens=70, context_window=80, omitted_turns=3))
    assert event_from_dict(json.loads(json.dumps(event_to_dict(new)))) == new


def test_turn_starts_group_whole_turns() -> None:
    from agent_nb import Part

    call = FunctionCall(name="t", call_id="x")
    contents = [
        Content.model("an opening from the model"),
        Content.user("q1"),
        Content(Role.MODEL, (Part(function_call=call),)),
        Content(Role.USER, (Part(function_response=FunctionResponse(name="t", call_id="x")),)),
        Content.model("a1"),
        Content.user("q2"),
    ]
    assert turn_starts(contents) == [0, 1, 5]
    assert omitted_line(3, 8192) == (
        "3 oldest turns no longer fit the 8,192-token window; they stay in history"
    )
    assert omitted_line(1, None).startswith("1 oldest turn no longer fits the model's window")


# -- OpenAI-compatible servers -------------------------------------------------------

VLLM_400 = (
    "This model's maximum context length is 60 tokens. However, you requested 75 tokens "
    "(71 in the messages, 4 in the completion). Please reduce the length of the messages "
    "or completion."
)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (VLLM_400, (60, 15)),
        ("This model's maximum context length is 8192 tokens. However, your messages "
         "resulted in 9000 tokens. Please reduce the length of the messages.", (8192, 812)),
        ("'max_tokens' or 'max_completion_tokens' is too large: 4. This model's maximum "
         "context length is 1024 tokens and your request has 1030 input tokens "
         "(4 > 1024 - 1030).", (1024, 10)),
        ("The prompt (total length 5000) is too long to fit into the model (context length "
         "4096).", (4096, 908)),
        ("This model's maximum context length is 4096 tokens.", (4096, None)),
        ("Invalid value for 'temperature'", None),
    ],
)  # fmt: skip
def test_context_overflow_reads_vllm_and_openai_texts(
    message: str, expected: tuple[int, int | None] | None
) -> None:
    assert context_overflow(message, max_tokens=4) == expected


def test_server_refusal_for_length_then_the_next_turn_fits(
    fake_openai: FakeOpenAIServer,
) -> None:
    backend = OpenAIBackend(
        "fake-model", base_url=fake_openai.base_url, timeout=5, max_retries=0, context_window=60
    )
    runner = AgentRunner(model=backend)
    try:
        session = runner.get_or_create_session("served")
        for i in range(3):
            fake_openai.enqueue(Reply(pieces=("ok",)))
            session.run(_message(i), config=SHORT)
        fake_openai.enqueue(Status(400, VLLM_400), Reply(pieces=("fits",)))
        with pytest.raises(ContextWindowError, match="too long for the model's window by 15"):
            session.run(_message(3), config=SHORT)
        refused = fake_openai.requests[-1]
        assert session.history[-1].error.startswith("ContextWindowError")  # type: ignore[attr-defined]
        reply = session.run(_message(4), config=SHORT)
        assert reply.text == "fits" and reply.usage.context_window == 60 - 15
        sent = fake_openai.requests[-1]
        assert len(sent["messages"]) < len(refused["messages"]) + 2
        assert sent["messages"][-1]["content"] == _message(4)
        assert reply.usage.context_tokens is not None
        assert reply.usage.context_tokens - reply.usage.generated_tokens + SHORT.max_tokens <= 45
    finally:
        runner.shutdown()


def test_openai_window_from_the_servers_model_list(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.models = [{"id": "other", "max_model_len": 1}, {"id": "fake-model",
                          "object": "model", "max_model_len": 4096}]  # fmt: skip
    backend = OpenAIBackend("fake-model", base_url=fake_openai.base_url, max_retries=0)
    runner = AgentRunner(model=backend)
    try:
        reply = runner.get_or_create_session("m").run("hello", config=SHORT)
        assert reply.usage.context_window == 4096 == backend.context_window
    finally:
        runner.shutdown()


def test_openai_without_a_model_list_leaves_the_window_unknown(
    fake_openai: FakeOpenAIServer,
) -> None:
    backend = OpenAIBackend("fake-model", base_url=fake_openai.base_url, max_retries=0)
    runner = AgentRunner(model=backend)
    try:
        reply = runner.get_or_create_session("m").run("hello", config=SHORT)
        assert reply.usage.context_window is None and backend.context_window is None
    finally:
        runner.shutdown()


# -- the magics ------------------------------------------------------------------------


@pytest.fixture
def windowed_shell(shell: InteractiveShell, backend: ScriptedBackend) -> InteractiveShell:
    backend._context_window = WINDOW  # the shell fixture's backend, given a small window
    return shell


def test_magic_says_when_turns_are_left_out_and_sessions_show_the_window(
    windowed_shell: InteractiveShell,
) -> None:
    shell = windowed_shell
    lines = []
    for i in range(12):
        _, cap = run(shell, f"%%agent --max-tokens 4\n{_message(i)}")
        lines.append(cap.stdout)
    assert "oldest turn" not in lines[0]
    left_out = [s for s in lines if "no longer fit" in s]
    assert left_out and all(
        "-token window; they stay in history" in s or "it stays in history" in s for s in left_out
    )
    assert all("no longer fit the 80-token window" in s or "no longer fits the 80-token" in s
               for s in left_out)  # fmt: skip
    _, cap = run(shell, "%agent sessions")
    table = cap.outputs[-1].data["text/html"]
    assert "<th>context</th>" in table and " / 80</td>" in table
    assert len(get_runner().get_or_create_session("default").history) == 12 * 3


def test_magic_context_error_option_and_config(windowed_shell: InteractiveShell) -> None:
    shell = windowed_shell
    for i in range(6):
        run(shell, f"%%agent --max-tokens 4\n{_message(i)}")
    before = get_runner().get_or_create_session("default").history
    result, cap = run(shell, f"%%agent --context error --max-tokens 4\n{_message(6)}")
    usage_error(result, cap, "ContextWindowError")
    assert get_runner().get_or_create_session("default").history == before
    run(shell, "%config AgentMagics.context_policy = 'error'")
    result, cap = run(shell, f"%%agent --max-tokens 4\n{_message(6)}")
    usage_error(result, cap, "context_policy='error'")
    _, cap = run(shell, f"%%agent --context window --max-tokens 4\n{_message(6)}")
    assert "no longer fit" in cap.stdout
    result, cap = run(shell, "%%agent --context drop\nhi")
    usage_error(result, cap, "invalid choice")


def test_the_request_shown_is_the_one_counted() -> None:
    # A backend may keep what counting rendered (MLX keeps the token ids) and reuse
    # it when that very request is sent: fitting must hand back the object it counted.
    contents = []
    for n in range(12):
        contents += [Content.user(f"question {n} " + "word " * 8), Content.model("answer " * 4)]
    contents.append(Content.user("the current question"))
    request = GenerateContentRequest(contents, config=GenerationConfig(max_tokens=4))
    counted: list[GenerateContentRequest] = []

    def count(candidate: GenerateContentRequest) -> int:
        counted.append(candidate)
        return sum(len(c.text.split()) for c in candidate.contents)

    for start in (0, 3):  # fits as it is, with and without turns already left out
        counted.clear()
        fitted = fit_window(request, count=count, window=1_000, policy="window", start=start)
        assert fitted.omitted == start and [fitted.request] == counted
    slid = fit_window(request, count=count, window=80, policy="window", start=0)
    assert slid.omitted > 0 and any(slid.request is c for c in counted)
    assert len(counted) == len({id(c) for c in counted})  # no candidate counted twice
