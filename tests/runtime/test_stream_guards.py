"""What the turn engine does with every backend's stream: the repetition stop,
usage of an interrupted call, the window bound on max_tokens, prompt progress,
and an empty reply that says so. Driven through `AgentSession` on the
ScriptedBackend (the one fake)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from agent_nb import Agent, AgentRunner, GenerationConfig, TurnComplete
from agent_nb._core.codec import event_from_dict, event_to_dict
from agent_nb._core.repetition import RepetitionWatch
from agent_nb._core.types import PromptProgress
from agent_nb.backends import ScriptedBackend
from agent_nb.errors import ContextWindowError

LOOP = "She loves to play with her favorite toys and loves to explore her own room. "


def test_a_looping_reply_stops_with_finish_reason_repetition(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    scripted.enqueue("Once upon a time. " + LOOP * 12 + "The end.")
    session = runner.get_or_create_session("loop")
    reply = session.run("tell me a story", config=GenerationConfig(max_tokens=500))
    assert reply.finish_reason == "repetition"
    assert reply.text.startswith("Once upon a time.") and reply.text.count("favorite toys") == 1
    assert "kept repeating itself" in reply.note and "repetition_stop" in reply.note
    # The backend was told to stop: it generated the three copies and a little
    # more, not all twelve (about 14 words each).
    assert reply.usage.generated_tokens < 4 + 14 * 4
    (end,) = [e for e in session.history if isinstance(e, TurnComplete)]
    assert end.finish_reason == "repetition" and not end.interrupted
    again = event_from_dict(event_to_dict(end))  # a stored row loads back
    assert again == end
    assert runner.get_or_create_session("loop").run("and then?").finish_reason == "stop"


def test_the_repetition_stop_never_cuts_a_json_value(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    """Under a schema a list of like items is not a loop to cut: the reply would be
    half a value (parsed None). The grammar's bounds end a real loop instead."""
    items = [f"the same long item again, number {i % 2}" for i in range(12)]
    schema = {"type": "array", "items": {"type": "string"}}
    scripted.enqueue(items)
    agent = Agent("lister", output_schema=schema)
    reply = runner.get_or_create_session("json-loop").run("list them", agent=agent)
    assert reply.finish_reason == "stop" and reply.parsed == items
    scripted.enqueue(" ".join(items))  # the same text without a schema is a loop
    free = runner.get_or_create_session("text-loop").run("list them")
    assert free.finish_reason == "repetition"


def test_the_repetition_stop_is_configurable(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    session = runner.get_or_create_session("loop-config")
    scripted.enqueue(LOOP * 5)
    off = session.run("story", config=GenerationConfig(repetition_stop=0))
    assert off.finish_reason == "stop" and off.text.count("favorite toys") == 5
    scripted.enqueue(LOOP * 5)
    later = session.run("story", config=GenerationConfig(repetition_stop=5))
    assert later.finish_reason == "repetition"
    scripted.enqueue(LOOP * 4)
    assert session.run("story", config=GenerationConfig(repetition_stop=5)).finish_reason == "stop"


@pytest.mark.parametrize(
    "text",
    [
        "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 3,  # short rows: under the minimum span
        "-" * 300,  # a rule: no letter or digit
        "ha " * 200,
        "for i in range(3):\n    print(i)\n" + "# a comment that differs %d\n" * 1,
    ],
)
def test_ordinary_text_is_not_taken_for_a_loop(text: str) -> None:
    watch = RepetitionWatch(3)
    assert not any(watch.feed(c) for c in text) and watch.kept() == text


def test_a_loop_is_found_whatever_the_chunk_boundaries() -> None:
    for size in (1, 7, 40, 200):
        watch = RepetitionWatch(3)
        text = "Intro. " + LOOP * 6
        found = [watch.feed(text[i : i + size]) for i in range(0, len(text), size)]
        assert any(found), size
        assert watch.kept().count("favorite toys") == 1


def test_an_interrupted_call_still_counts_what_it_generated(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    # Each token takes longer than the cancel grace, so the turn's task is
    # cancelled mid-call and no Finish (with the backend's usage) ever comes.
    scripted.enqueue(" ".join(f"w{i}" for i in range(50)))
    scripted.token_delay = 0.4
    session = runner.get_or_create_session("cut")
    stream = session.run_async("count")
    threading.Timer(1.5, stream.cancel).start()
    deadline = time.monotonic() + 10
    while session.busy and time.monotonic() < deadline:
        time.sleep(0.02)
    (end,) = [e for e in session.history if isinstance(e, TurnComplete)]
    shown = [e for e in session.history if getattr(e, "interrupted", False) and hasattr(e, "text")]
    words = len(shown[0].text.split())  # type: ignore[attr-defined]
    assert end.interrupted and words >= 2
    assert end.usage.generated_tokens == words
    prompt = scripted.count_tokens(scripted.requests[-1])
    assert end.usage.context_tokens == prompt + words  # not blank: the context column shows it
    info = {i.id: i for i in runner.sessions()}["cut"]
    assert info.tokens >= 1 + words and info.context_tokens == end.usage.context_tokens


def test_the_context_figure_is_prompt_plus_generated(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    scripted.enqueue("one two three four five")
    reply = runner.get_or_create_session("ctx").run("hello there")
    assert reply.usage.generated_tokens == 5
    assert reply.usage.context_tokens == scripted.count_tokens(scripted.requests[-1]) + 5


def test_max_tokens_beyond_the_window_is_refused_with_the_range() -> None:
    runner = AgentRunner(model=ScriptedBackend(context_window=100))
    try:
        session = runner.get_or_create_session("w")
        with pytest.raises(ContextWindowError) as caught:
            session.run("hi", config=GenerationConfig(max_tokens=101))
        assert "max_tokens must be between 1 and the model's window (100 tokens), got 101" in str(
            caught.value
        )
        assert session.history == []  # nothing recorded
        assert session.run("hi", config=GenerationConfig(max_tokens=50)).text
    finally:
        runner.shutdown()


def test_prompt_progress_comes_before_the_first_token_and_is_never_stored() -> None:
    slow = ScriptedBackend(["the answer"], token_delay=0.05, prefill_chunk=4)
    runner = AgentRunner(model=slow)
    try:
        session = runner.get_or_create_session("p")
        seen: list[object] = []

        async def consume() -> None:
            async for event in session.run_async("word " * 20):
                seen.append(event)

        asyncio.run(consume())
        progress = [e for e in seen if isinstance(e, PromptProgress)]
        first_text = next(i for i, e in enumerate(seen) if getattr(e, "is_partial", False))
        assert progress and all(seen.index(p) < first_text for p in progress)
        total = slow.count_tokens(slow.requests[-1])
        assert progress[-1].total == total and 0 < progress[-1].done < total
        assert not any(isinstance(e, PromptProgress) for e in session.history)
    finally:
        runner.shutdown()


def test_an_empty_reply_says_so(runner: AgentRunner, scripted: ScriptedBackend) -> None:
    scripted.enqueue("")
    reply = runner.get_or_create_session("empty").run("hi")
    assert reply.text == ""
    assert reply.note == "(the model returned an empty reply; finish reason: stop)"
    assert "empty reply" in reply._repr_markdown_()
