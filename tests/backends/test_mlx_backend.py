"""The MLX backend with the real embedded SmolLM2, driven through AgentRunner sessions.

Greedy decoding and at most 16 new tokens per turn: the CPU build decodes a
few tokens per second, so every turn here is short and the model loads once.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from agent_nb import (
    AgentRunner,
    GenerationConfig,
    TextMessage,
    TurnComplete,
)
from agent_nb.backends import TextDelta, ToolCallChunk
from agent_nb.backends.mlx import MLXBackend
from agent_nb.backends.mlx.chat import TextGate
from agent_nb.errors import ModelNotFoundError
from tests.fixtures_mlx import cache_info
from tests.fixtures_runtime import RunnerFactory
from tests.waiting import wait_until

pytestmark = pytest.mark.mlx

GREEDY = GenerationConfig(max_tokens=16)


def chat_ids(backend: MLXBackend, turns: list[tuple[str, str]]) -> list[int]:
    """What the tokenizer itself makes of the chat (the reference for the counts)."""
    messages = [{"role": role, "content": text} for role, text in turns]
    text = backend.tokenizer.apply_chat_template(
        messages, add_generation_prompt=True, tokenize=False
    )
    return list(backend.tokenizer.encode(text, add_special_tokens=False))


def assert_consistent(backend: MLXBackend, key: str) -> None:
    """The token ids kept for ``key`` match what its KV cache holds.

    A cancelled turn can end (for the caller) a moment before the MLX thread
    notices; wait for the cache to be released first.
    """
    wait_until(lambda: not cache_info(backend, key)["busy"], timeout=30, interval=0.05,
               what=f"the MLX thread to release {key!r}")  # fmt: skip
    info = cache_info(backend, key)
    assert not info["busy"] and info["tokens"] == info["offset"], info


def test_three_turns_feed_only_the_new_tokens(
    mlx_runner: AgentRunner, mlx_backend: MLXBackend
) -> None:
    session = mlx_runner.get_or_create_session("three-turns")
    questions = ["What is 2+2?", "And 3+3?", "Thanks."]
    turns: list[tuple[str, str]] = []
    before: list[int] = []
    previous_prompt = 0
    for number, question in enumerate(questions, start=1):
        turns.append(("user", question))
        expected = chat_ids(mlx_backend, turns)
        reply = session.run(question, config=GREEDY)
        usage = reply.usage
        held = mlx_backend.cached_tokens(session.id)
        assert reply.finish_reason in ("stop", "length") and reply.text.strip()
        assert usage.prompt_tokens + usage.cached_tokens == len(expected)
        assert held[: len(expected)] == expected  # the cache holds exactly this prompt
        # Every sampled token is fed back (EOS included) except one at max_tokens.
        fed_back = usage.generated_tokens - (usage.generated_tokens == GREEDY.max_tokens)
        assert len(held) == len(expected) + fed_back
        if number == 1:
            assert usage.cached_tokens == 0
        else:
            # Everything held after the previous turn that still matches is reused
            # (at least its whole prompt); only the new tokens are fed.
            shared = next(
                (i for i, (a, b) in enumerate(zip(before, expected, strict=False)) if a != b),
                min(len(before), len(expected)),
            )
            assert usage.cached_tokens == shared
            assert usage.cached_tokens >= previous_prompt
            new_text = len(mlx_backend.tokenizer.encode(question, add_special_tokens=False))
            assert usage.prompt_tokens <= new_text + 12  # the new message plus template markup
        assert usage.generated_tokens >= 1 and usage.time_to_first_token_s is not None
        assert usage.peak_memory_bytes and usage.peak_memory_bytes > 0
        assert_consistent(mlx_backend, session.id)
        previous_prompt = len(expected)
        before = held
        turns.append(("assistant", reply.text))


def test_rewind_trims_the_cache_and_the_next_turn_reuses_it(
    mlx_runner: AgentRunner, mlx_backend: MLXBackend
) -> None:
    session = mlx_runner.get_or_create_session("rewind")
    first = session.run("Name a color.", config=GenerationConfig(max_tokens=6))
    session.run("Name a fruit.", config=GenerationConfig(max_tokens=6))
    held_before = mlx_backend.cached_tokens(session.id)
    second_id = session.invocations()[1]

    session.rewind(second_id)

    kept = mlx_backend.cached_tokens(session.id)
    after_first = chat_ids(mlx_backend, [("user", "Name a color."), ("assistant", first.text)])
    assert len(kept) < len(held_before)
    assert kept == held_before[: len(kept)]
    # Trimmed to what the rewound history still renders to, no further.
    assert kept == after_first[: len(kept)] and len(kept) >= len(after_first) - 3
    assert_consistent(mlx_backend, session.id)

    again = session.run("Name an animal.", config=GenerationConfig(max_tokens=6))
    assert again.usage.cached_tokens == len(kept)
    assert [m.text for m in session.history if isinstance(m, TextMessage)][2] == "Name an animal."

    # Switching back to the replaced branch keeps the longest prefix both paths
    # share (the first turn) and feeds only the rest on the next turn.
    session.switch_branch(2)
    shared = mlx_backend.cached_tokens(session.id)
    assert shared == held_before[: len(shared)], "a prefix of what branch 2 renders to"
    assert len(shared) >= len(after_first) - 3, "the shared first turn is not re-fed"
    assert_consistent(mlx_backend, session.id)
    back = session.run("And a vegetable?", config=GenerationConfig(max_tokens=6))
    assert back.usage.cached_tokens == len(shared)
    assert "Name a fruit." in [m.text for m in session.history if isinstance(m, TextMessage)]


def test_cancel_mid_stream_leaves_a_consistent_cache_then_a_good_turn(
    mlx_runner: AgentRunner, mlx_backend: MLXBackend
) -> None:
    session = mlx_runner.get_or_create_session("cancel")

    async def cancel_after_three_tokens() -> TurnComplete:
        stream = session.run_async(
            "Write a long story about a dragon.", config=GenerationConfig(max_tokens=200)
        )
        seen = 0
        done = None
        async for event in stream:
            if isinstance(event, TextMessage) and event.is_partial:
                seen += 1
                if seen == 3:
                    stream.cancel()
            if isinstance(event, TurnComplete):
                done = event
        assert done is not None
        return done

    done = asyncio.run(cancel_after_three_tokens())
    assert done.finish_reason == "cancelled" and done.interrupted
    assert_consistent(mlx_backend, session.id)
    prompt = chat_ids(mlx_backend, [("user", "Write a long story about a dragon.")])
    generated = len(mlx_backend.cached_tokens(session.id)) - len(prompt)
    assert 3 <= generated < 16  # stopped within a few tokens of the request
    partial = [e for e in session.history if isinstance(e, TextMessage) and e.interrupted]
    assert len(partial) == 1 and partial[0].text

    reply = session.run("What is the capital of France?", config=GREEDY)
    assert reply.finish_reason == "stop"
    assert "Paris" in reply.text
    assert reply.usage.cached_tokens > 0  # the cancelled turn's prefix was reused
    assert_consistent(mlx_backend, session.id)


def test_close_frees_the_sessions_kv_bytes(
    mlx_runner: AgentRunner, mlx_backend: MLXBackend
) -> None:
    session = mlx_runner.get_or_create_session("close-me")
    session.run("Hi!", config=GenerationConfig(max_tokens=4))
    held = mlx_backend.cache_bytes("close-me")
    assert held > 0
    memory = mlx_runner.memory()
    assert memory["sessions"]["close-me"]["kv_bytes"] == held
    figures = memory["backends"]["mlx:smollm2-135m"]
    assert figures["kv_bytes"]["close-me"] == held
    assert figures["active_bytes"] > 0 and figures["peak_bytes"] >= figures["active_bytes"]

    session.close()
    mlx_runner.get_or_create_session("close-me")  # waits for the background eviction

    assert mlx_backend.cache_bytes("close-me") == 0
    assert "close-me" not in mlx_runner.memory()["backends"]["mlx:smollm2-135m"]["kv_bytes"]


def test_kv_budget_evicts_the_least_recently_used_idle_cache(
    mlx_backend: MLXBackend, make_runner: RunnerFactory
) -> None:
    small = MLXBackend("smollm2-135m", kv_budget_bytes=1, progress=False)
    runner = make_runner(model=small)
    session = runner.get_or_create_session("over-budget")
    reply = session.run("Hi!", config=GenerationConfig(max_tokens=2))
    assert reply.text
    # Alone over a one-byte budget: evicted once idle; history stays.
    assert small.cache_bytes("over-budget") == 0
    assert small.memory()["kv_evictions"] >= 1
    assert len(session.history) == 3


def test_stop_strings_end_the_turn_without_showing_the_stop_string(
    mlx_runner: AgentRunner, mlx_backend: MLXBackend
) -> None:
    session = mlx_runner.get_or_create_session("stop")
    reply = session.run(
        "What is the capital of France?", config=GenerationConfig(max_tokens=16, stop=("Paris",))
    )
    assert reply.finish_reason == "stop"
    assert "Paris" not in reply.text and reply.text.strip()
    assert_consistent(mlx_backend, session.id)


def test_bad_model_path_says_what_exists_and_what_to_do(make_runner: RunnerFactory) -> None:
    with pytest.raises(ModelNotFoundError) as caught:
        MLXBackend("/nonexistent/agent_nb/model")
    message = str(caught.value)
    assert "/nonexistent/agent_nb/model does not exist" in message
    assert "config.json" in message and "mlx:smollm2-135m" in message

    runner = make_runner(model="scripted")
    with pytest.raises(ModelNotFoundError, match="nearest existing folder"):
        runner.model = "mlx:./no-such-model-folder"


def test_importing_the_backend_does_not_import_mlx() -> None:
    code = (
        "import sys, agent_nb.backends.mlx as m; "
        "m.from_spec('smollm2-135m'); "
        "print(sorted(n for n in sys.modules if n == 'mlx' or n.startswith(('mlx.', 'mlx_lm'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- text handling without the model (fast) -----------------------------------------


def test_text_gate_hides_a_stop_string_split_across_tokens() -> None:
    gate = TextGate(stop=("END",))
    shown = [c.text for piece in ["Hello E", "N", "D and more"] for c in gate.feed(piece)]
    assert "".join(shown) == "Hello " and gate.stopped
    assert gate.flush() == []


def test_text_gate_releases_a_false_alarm_prefix() -> None:
    gate = TextGate(stop=("END",))
    shown = [c.text for piece in ["Hello E", "ngland"] for c in gate.feed(piece)]
    shown += [c.text for c in gate.flush() if isinstance(c, TextDelta)]
    assert "".join(shown) == "Hello England" and not gate.stopped


def test_text_gate_turns_tool_markup_into_tool_calls() -> None:
    from mlx_lm.tool_parsers import json_tools

    gate = TextGate(
        tool_markers=(json_tools.tool_call_start, json_tools.tool_call_end),
        tool_parser=json_tools.parse_tool_call,
        tools=[],
    )
    pieces = ["Let me check. <tool", '_call>{"name": "add", ', '"arguments": {"a": 1}}</tool_call>']
    chunks = [c for piece in pieces for c in gate.feed(piece)] + gate.flush()
    assert [c.text for c in chunks if isinstance(c, TextDelta)] == ["Let me check. "]
    calls = [c for c in chunks if isinstance(c, ToolCallChunk)]
    assert [(c.name, c.args) for c in calls] == [("add", {"a": 1})]

    broken = TextGate(
        tool_markers=(json_tools.tool_call_start, json_tools.tool_call_end),
        tool_parser=json_tools.parse_tool_call,
    )
    out = broken.feed("<tool_call>not json</tool_call>") + broken.flush()
    assert [c.text for c in out if isinstance(c, TextDelta)] == ["<tool_call>not json"]
