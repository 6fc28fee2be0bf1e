"""Runner and session lifecycle through the real runner and the ScriptedBackend."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from agent_nb import (
    Agent,
    AgentRunner,
    Content,
    FunctionCall,
    FunctionResponse,
    GenerationConfig,
    TextMessage,
    ToolContext,
    TurnComplete,
    get_runner,
    set_runner,
)
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.backends.mlx.kv import KVStore
from agent_nb.errors import (
    BackendError,
    ModelNotFoundError,
    SessionBusyError,
    SessionClosedError,
)
from tests.fixtures_runtime import RunnerFactory
from tests.interrupts import interrupt_main_when
from tests.waiting import wait_until


def kinds(events: list) -> list[str]:
    return [type(e).__name__ for e in events]


def test_run_records_user_text_final_text_and_turn_complete(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    scripted.enqueue("Hello there, friend.")
    session = runner.get_or_create_session("s")
    reply = session.run("hi")
    assert reply.text == "Hello there, friend."
    assert reply.finish_reason == "stop" and not reply.interrupted
    assert kinds(session.history) == ["TextMessage", "TextMessage", "TurnComplete"]
    user, model, done = session.history
    assert (user.author, user.text) == ("user", "hi")
    assert model.text == "Hello there, friend." and not model.is_partial
    assert done.usage.generated_tokens == 3
    assert {e.invocation_id for e in session.history} == {reply.invocation_id}


def test_later_turns_see_earlier_ones(runner: AgentRunner, scripted: ScriptedBackend) -> None:
    session = runner.get_or_create_session("s")
    session.run("first")
    session.run("second")
    texts = [c.text for c in scripted.requests[-1].contents]
    assert texts == ["first", "You said: first", "second"]


def test_same_object_for_same_id(runner: AgentRunner) -> None:
    assert runner.get_or_create_session("a") is runner.get_or_create_session("a")


def test_stream_partials_are_streamed_not_stored(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    scripted.enqueue("one two three")
    session = runner.get_or_create_session("s")

    async def consume() -> list:
        return [e async for e in session.run_async("go")]

    events = asyncio.run(consume())
    partials = [e for e in events if isinstance(e, TextMessage) and e.is_partial]
    assert "".join(p.text for p in partials) == "one two three"
    assert not any(getattr(e, "is_partial", False) for e in session.history)
    assert isinstance(events[-1], TurnComplete)


def test_text_tokens_and_text_messages(runner: AgentRunner, scripted: ScriptedBackend) -> None:
    scripted.enqueue("alpha beta", "gamma")
    session = runner.get_or_create_session("s")

    async def main() -> tuple[list[str], list[str]]:
        tokens = [t async for t in session.run_async("x").text_tokens()]
        finals = [t async for t in session.run_async("y").text_messages()]
        return tokens, finals

    tokens, finals = asyncio.run(main())
    assert tokens == ["alpha", " beta"]
    assert finals == ["gamma"]


def test_iterating_a_stream_twice_raises(runner: AgentRunner) -> None:
    session = runner.get_or_create_session("s")

    async def main() -> None:
        stream = session.run_async("x")
        async for _ in stream:
            pass
        with pytest.raises(RuntimeError, match="already iterated"):
            async for _ in stream:
                pass

    asyncio.run(main())


def test_second_concurrent_turn_is_busy(runner: AgentRunner, scripted: ScriptedBackend) -> None:
    scripted.token_delay = 0.05
    scripted.enqueue("a b c d e f g h")
    session = runner.get_or_create_session("s")

    async def main() -> None:
        async with session.run_async("first"):
            with pytest.raises(SessionBusyError, match="already running"):
                session.run_async("second")

    asyncio.run(main())
    assert next(e.text for e in session.history if isinstance(e, TextMessage)) == "first"
    assert all(e.text != "second" for e in session.history if isinstance(e, TextMessage))


def test_32_concurrent_sessions_keep_isolated_histories(make_runner: RunnerFactory) -> None:
    backend = ScriptedBackend(token_delay=0.002)  # echoes each session's own message
    runner = make_runner(model=backend)
    sessions = [runner.get_or_create_session(f"s{i}") for i in range(32)]

    async def one(i: int) -> None:
        for turn in range(3):
            async for _ in sessions[i].run_async(f"msg-{i}-{turn}"):
                pass

    async def main() -> None:
        await asyncio.gather(*(one(i) for i in range(32)))

    asyncio.run(main())
    for i, session in enumerate(sessions):
        texts = [e.text for e in session.history if isinstance(e, TextMessage)]
        expected = []
        for turn in range(3):
            expected += [f"msg-{i}-{turn}", f"You said: msg-{i}-{turn}"]
        assert texts == expected


def test_cancel_keeps_user_message_and_partial_text(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    scripted.token_delay = 0.05
    scripted.enqueue(" ".join(f"w{i}" for i in range(100)))
    session = runner.get_or_create_session("s")

    async def main() -> list:
        seen = []
        stream = session.run_async("tell me a long story")
        async for event in stream:
            seen.append(event)
            if sum(isinstance(e, TextMessage) and e.is_partial for e in seen) == 3:
                await stream.aclose()
                break
        return seen

    asyncio.run(main())
    history = session.history
    assert history[0].text == "tell me a long story"
    partial = history[1]
    assert isinstance(partial, TextMessage) and partial.interrupted
    assert partial.text.startswith("w0 w1 w2")
    done = history[-1]
    assert isinstance(done, TurnComplete)
    assert done.finish_reason == "cancelled" and done.interrupted
    # The session is usable afterwards.
    assert session.run("again").text == "You said: again"


def test_cancel_during_a_tool_never_leaves_a_call_without_response(
    make_runner: RunnerFactory,
) -> None:
    started = threading.Event()

    def slow(seconds: float) -> str:
        """Sleep a while.

        Args:
            seconds: how long
        """
        started.set()
        time.sleep(seconds)
        return "done"

    from agent_nb import Agent
    from agent_nb.backends import ToolCallChunk

    backend = ScriptedBackend([ToolCallChunk("slow", {"seconds": 2.0}), "never"])
    runner = make_runner(Agent(tools=[slow]), model=backend)
    session = runner.get_or_create_session("s")
    stream = session.run_async("go")
    assert started.wait(60)
    stream.cancel()
    # A deadline only against a hang: under load the recorded end may take seconds.
    wait_until(lambda: not session.busy, timeout=60, what="the cancelled turn to end")
    history = session.history
    calls = [e for e in history if isinstance(e, FunctionCall)]
    responses = [e for e in history if isinstance(e, FunctionResponse)]
    assert [c.call_id for c in calls] == [r.call_id for r in responses]
    assert "error" in responses[0].response
    assert history[-1].finish_reason == "cancelled"


def test_keyboard_interrupt_while_waiting_cancels_the_turn(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    import _thread

    scripted.token_delay = 0.05  # 25 s to the end: only the interrupt ends it
    scripted.enqueue(" ".join(["word"] * 500))
    session = runner.get_or_create_session("s")
    streamed = threading.Event()

    def on_event(event: object) -> None:
        if isinstance(event, TextMessage) and event.is_partial:
            streamed.set()

    session.subscribe(on_event)
    # Ctrl-C while the caller waits for a streaming turn (not while it starts one).
    ready = interrupt_main_when(streamed.is_set, "wait_interruptibly", _thread.interrupt_main)
    with pytest.raises(KeyboardInterrupt), ready:
        session.run("long")
    assert not session.busy
    assert session.history[-1].finish_reason == "cancelled"
    assert session.run("next").text == "You said: next"


def test_sync_helper_works_inside_a_running_event_loop(runner: AgentRunner) -> None:
    session = runner.get_or_create_session("s")

    async def cell_with_top_level_await() -> str:
        reply = session.run("sync inside loop")  # a plain call in an async cell
        async for text in session.run_async("async too").text_messages():
            return reply.text + " | " + text
        return ""

    assert asyncio.run(cell_with_top_level_await()) == (
        "You said: sync inside loop | You said: async too"
    )


def test_close_returns_at_once_and_same_id_is_fresh(runner: AgentRunner) -> None:
    session = runner.get_or_create_session("s")
    session.run("remember me")
    session.close()
    with pytest.raises(SessionClosedError, match="closed"):
        session.run_async("x")
    again = runner.get_or_create_session("s")
    assert again is not session
    assert again.history == []


def test_close_cancels_the_running_turn(runner: AgentRunner, scripted: ScriptedBackend) -> None:
    scripted.token_delay = 2.0  # the turn can only end through cancellation
    scripted.enqueue(" ".join(["word"] * 200))
    session = runner.get_or_create_session("s")
    stream = session.run_async("long")
    wait_until(lambda: scripted.requests, timeout=60, interval=0.001, what="the model to stream")
    session.close()
    # close() did not wait: the turn is still winding down (the task is
    # cancelled after a 0.25 s grace period), and the id is being evicted.
    assert not stream.done
    assert [(i.id, i.closed, i.evicting) for i in runner.sessions()] == [("s", True, True)]
    assert stream.result(timeout=60).finish_reason == "cancelled"
    fresh = runner.get_or_create_session("s")
    assert fresh.history == []
    assert all(not info.evicting for info in runner.sessions())


def test_delete_is_synchronous(runner: AgentRunner, scripted: ScriptedBackend) -> None:
    scripted.token_delay = 0.05
    scripted.enqueue(" ".join(["word"] * 200))
    session = runner.get_or_create_session("s")
    session.run_async("long")
    runner.delete_session("s")
    assert runner.sessions() == []
    assert runner.store.get_session(runner.app_name, runner.user_id, "s") is None
    with pytest.raises(SessionClosedError):
        session.run_async("x")
    runner.delete_session("never-existed")  # no error


def test_clear_all_sessions(runner: AgentRunner) -> None:
    for i in range(3):
        runner.get_or_create_session(f"s{i}").run("hi")
    runner.clear_all_sessions()
    assert runner.sessions() == []
    assert runner.stored_session_ids() == []


def test_single_turn_session_is_removed_after_completion(runner: AgentRunner) -> None:
    reply = runner.run_single_turn("once")
    assert reply.text == "You said: once"
    assert runner.sessions(include_hidden=True) == []
    assert runner.stored_session_ids() == []


def test_single_turn_session_is_removed_after_cancel(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    scripted.token_delay = 0.05
    scripted.enqueue(" ".join(["word"] * 100))

    async def main() -> None:
        stream = runner.run_single_turn_async("long")
        async for event in stream:
            if isinstance(event, TextMessage) and event.is_partial:
                await stream.aclose()
                break

    asyncio.run(main())
    assert runner.sessions(include_hidden=True) == []
    assert runner.stored_session_ids() == []


def test_single_turn_session_is_removed_after_error(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    scripted.enqueue(RuntimeError("model fell over"))
    with pytest.raises(BackendError, match="model fell over"):
        runner.run_single_turn("x")
    assert runner.sessions(include_hidden=True) == []


def test_backend_error_keeps_history_and_next_turn_works(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    session = runner.get_or_create_session("s")
    session.run("one")
    scripted.enqueue(RuntimeError("server down"))
    with pytest.raises(BackendError):
        session.run("two")
    assert session.history[-1].finish_reason == "error"
    assert "server down" in session.history[-1].error
    assert session.run("three").text == "You said: three"
    users = [e.text for e in session.history if isinstance(e, TextMessage) and e.author == "user"]
    assert users == ["one", "two", "three"]


def test_bad_content_is_refused_before_anything_is_recorded(runner: AgentRunner) -> None:
    session = runner.get_or_create_session("s")
    with pytest.raises(TypeError, match="str or Content"):
        session.run_async(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty"):
        session.run_async("   ")
    with pytest.raises(TypeError, match="JSON"):
        session.run_async("x", state_delta={"k": object()})
    assert session.history == [] and not session.busy


TEMPERATURE = "temperature must be a finite number between 0 (inclusive) and 2.0"


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"temperature": -1}, TEMPERATURE + ", got -1"),
        ({"temperature": float("nan")}, TEMPERATURE + ", got nan"),
        ({"temperature": float("inf")}, TEMPERATURE + ", got inf"),
        ({"top_p": float("nan")}, "top_p must be a finite number between 0 (exclusive) and 1"),
        ({"top_p": 0}, "top_p must be a finite number between 0 (exclusive) and 1"),
        ({"top_p": 1.5}, "top_p must be a finite number between 0 (exclusive) and 1, got 1.5"),
        ({"temperature": 2.01}, TEMPERATURE),
        ({"repetition_stop": 1}, "repetition_stop must be 0 (off) or at least 2 repeats"),
        ({"repetition_stop": -2}, "repetition_stop (0 turns it off) must be a whole number >= 0"),
        ({"top_k": -1}, "top_k (0 disables it) must be a whole number >= 0"),
        ({"top_k": float("nan")}, "top_k (0 disables it) must be a whole number >= 0"),
        ({"max_tokens": 0}, "max_tokens must be a whole number >= 1"),
        ({"max_tokens": float("inf")}, "max_tokens must be a whole number >= 1"),
        ({"max_tokens": 2.5}, "max_tokens must be a whole number >= 1"),
        ({"seed": -1}, "seed must be a whole number between 0 (inclusive) and"),
        ({"seed": float("nan")}, "seed must be a whole number"),
        ({"repetition_penalty": float("nan")}, "repetition_penalty must be a finite number > 0"),
        ({"repetition_penalty": 0}, "repetition_penalty must be a finite number > 0"),
    ],
)
def test_generation_config_is_validated(options: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValueError) as caught:
        GenerationConfig(**options)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_other_numbers_are_finite_and_in_range() -> None:
    with pytest.raises(ValueError, match="max_turns must be a whole number >= 1"):
        Agent(max_turns=float("nan"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"KV budget \(bytes\) must be a whole number >= 0"):
        KVStore(float("nan"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="temperature must be a finite number"):
        GenerationConfig(temperature="0.5")  # type: ignore[arg-type]
    assert GenerationConfig(temperature=1, seed=3).temperature == 1.0


def test_max_tokens_reaches_the_backend(runner: AgentRunner, scripted: ScriptedBackend) -> None:
    scripted.enqueue("a b c d e f")
    reply = runner.get_or_create_session("s").run("x", config=GenerationConfig(max_tokens=2))
    assert reply.text == "a b" and reply.finish_reason == "length"


def test_rewind_moves_the_turn_and_later_ones_to_a_branch(runner: AgentRunner) -> None:
    session = runner.get_or_create_session("s")
    first = session.run("one", state_delta={"step": 1})
    second = session.run("two", state_delta={"step": 2})
    third = session.run("three", state_delta={"step": 3})
    assert session.rewind(second.invocation_id) == 2
    assert session.invocations() == [first.invocation_id]
    assert session.state["step"] == 1
    assert session.turns == 1
    with pytest.raises(ValueError, match="no turn"):
        session.rewind("nope")
    branches = session.branches()
    assert [(b.number, b.active, b.shared) for b in branches] == [(1, True, 1), (2, False, 1)]
    assert branches[1].own_turns == (second.invocation_id, third.invocation_id)
    session.switch_branch(2)
    assert session.invocations() == [i.invocation_id for i in (first, second, third)]
    assert (session.state["step"], session.turns, session.branch) == (3, 3, 2)
    with pytest.raises(ValueError, match="branches 1 to 2, not 3"):
        session.switch_branch(3)
    with pytest.raises(TypeError, match="int"):
        session.switch_branch("2")  # type: ignore[arg-type]


def test_unknown_model_spec_names_what_exists() -> None:
    with pytest.raises(ModelNotFoundError) as info:
        _ = AgentRunner(model="nonsense").backend
    assert "mlx:smollm2-135m" in str(info.value) and "openai:" in str(info.value)
    runner = AgentRunner(model="scripted")
    with pytest.raises(ModelNotFoundError):
        runner.model = "gpt:whatever"
    assert runner.model == "scripted"
    runner.shutdown()


def test_get_runner_is_a_singleton_and_set_runner_replaces_it() -> None:
    first = get_runner()
    assert get_runner() is first
    mine = AgentRunner(model="scripted")
    previous = set_runner(mine)
    try:
        assert previous is first and get_runner() is mine
    finally:
        set_runner(first)
        mine.shutdown()


@pytest.mark.slow  # a fresh interpreter
def test_runner_shuts_down_at_interpreter_exit() -> None:
    import subprocess
    import sys

    code = (
        "from agent_nb import get_runner, set_runner, AgentRunner\n"
        "from agent_nb.backends import ScriptedBackend\n"
        "set_runner(AgentRunner(model=ScriptedBackend(token_delay=0.05)))\n"
        "s = get_runner().get_or_create_session('s')\n"
        "s.run_async('word ' * 5000)\n"  # 250 s of streaming left when the interpreter exits
        "print('exiting')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "exiting"


def test_content_objects_work_as_messages(runner: AgentRunner) -> None:
    reply = runner.get_or_create_session("s").run(Content.user("as content"))
    assert reply.text == "You said: as content"
    with pytest.raises(ValueError, match="role USER"):
        runner.get_or_create_session("s").run_async(Content.model("no"))


def test_get_history_num_recent_events_beyond_the_history_returns_all(
    runner: AgentRunner,
) -> None:
    session = runner.get_or_create_session("few")
    session.run("one")
    events = session.history
    assert len(events) == 3
    assert session.get_history(num_recent_events=4) == events
    assert session.get_history(num_recent_events=100) == events
    assert session.get_history(num_recent_events=2) == events[1:]
    assert session.get_history(num_recent_events=0) == []


def test_deleting_state_in_a_tool_records_a_none_and_removes_the_key(
    scripted: ScriptedBackend, make_runner: RunnerFactory
) -> None:
    def forget(key: str, tool_context: ToolContext) -> str:
        """Forget a key.

        Args:
            key: the state key to forget
        """
        value = tool_context.state.pop(key)
        del tool_context.state["user:lang"]
        assert key not in tool_context.state and "user:lang" not in tool_context.state
        return f"forgot {value}"

    runner = make_runner(Agent(tools=[forget]), model=scripted)
    session = runner.get_or_create_session("forgetful")
    session.run("set", state_delta={"topic": "cats", "keep": 1, "user:lang": "fr"})
    scripted.enqueue(ToolCallChunk("forget", {"key": "topic"}), "Done.")
    session.run("forget it")
    response = next(e for e in session.history if isinstance(e, FunctionResponse))
    assert response.response == {"result": "forgot cats"}
    assert dict(response.state_delta) == {"topic": None, "user:lang": None}
    assert session.state == {"keep": 1}
