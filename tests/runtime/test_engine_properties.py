"""Properties of the turn engine over random agent trees (issue 28, "Tests").

Random trees of `SequentialAgent`, `ParallelAgent`, `LoopAgent`, `CodeAgent` and `Agent`
(unique names, depth <= 3, <= 6 leaves) run one or two turns on the scripted model, on a
memory store and on an SQLite file. Code agents write and delete random JSON state keys
(``temp:``, ``user:`` and ``app:`` ones too) and may escalate; some model agents call a tool
on their first round (asked for by a ``before_model_callback``, so the order in which
parallel branches reach the model does not matter; with nothing enqueued the scripted
model echoes, and what each branch sees is its own).

For every turn:

* the final events streamed (no partial text, no prompt progress) are the events recorded
  for that invocation in ``session.history``, in the same order;
* replaying the recorded state deltas rebuilds ``session.state``;
* every function call has its response;
* no ``temp:`` key is in the state or in a recorded delta after the turn;
* every event of a leaf agent carries the branch its place in the tree gives it.
"""

from __future__ import annotations

import asyncio
import itertools
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_nb import (
    Agent,
    AgentRunner,
    AgentSession,
    CodeAgent,
    Content,
    Event,
    FunctionCall,
    FunctionResponse,
    LoopAgent,
    ParallelAgent,
    Part,
    Role,
    SequentialAgent,
    TextMessage,
    ToolContext,
)
from agent_nb._core.state import apply_delta
from agent_nb._core.types import PromptProgress
from agent_nb.backends import ScriptedBackend
from agent_nb.stores import MemoryStore, SessionStore, SQLiteStore
from agent_nb.stores._base import replay_session_state

KEYS = ["a", "b", "c", "temp:t1", "temp:t2", "user:u", "app:x"]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text("xyz", max_size=3),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from("pq"), inner),
    max_leaves=3,
).filter(lambda v: v is not None)
OPS = st.lists(
    st.tuples(st.just("set"), st.sampled_from(KEYS), JSON)
    | st.tuples(st.just("del"), st.sampled_from(KEYS), st.none()),
    max_size=3,
)


@st.composite
def shapes(draw: Any, depth: int = 0) -> tuple[Any, ...]:
    """A tree's shape: ("code", ops, text, escalate) | ("model", tool, output_key) |
    (workflow kind, children[, max_iterations])."""
    if depth >= 3 or draw(st.integers(0, 2)) == 0:
        if draw(st.booleans()):
            return ("code", draw(OPS), draw(st.sampled_from(["", "note"])), draw(st.booleans()))
        return ("model", draw(st.booleans()), draw(st.sampled_from([None, "out", "temp:out"])))
    kind = draw(st.sampled_from(["seq", "par", "loop"]))
    children = draw(st.lists(shapes(depth + 1), min_size=1, max_size=3))
    if kind == "loop":
        return (kind, children, draw(st.integers(1, 2)))
    return (kind, children)


def leaves(shape: tuple[Any, ...]) -> int:
    if shape[0] in ("code", "model"):
        return 1
    return sum(leaves(child) for child in shape[1])


def code_fn(ops: list[tuple[str, str, Any]], text: str, escalate: bool) -> Callable[..., Any]:
    def run(ctx: ToolContext) -> str | None:
        for op, key, value in ops:
            if op == "set":
                ctx.state[key] = value
            elif key in ctx.state:
                del ctx.state[key]
        if escalate:
            ctx.escalate()
        return text or None

    return run


def note(tool_context: ToolContext) -> str:
    """Count a visit."""
    tool_context.state["visits"] = tool_context.state.get("visits", 0) + 1
    tool_context.state["temp:visited"] = True
    return "noted"


_ASKED: set[tuple[str, str]] = set()


def call_note_once(callback_context: Any, llm_request: Any) -> Content | None:
    """Ask for the ``note`` tool on this agent's first round of the invocation."""
    key = (callback_context.invocation_id, callback_context.agent_name)
    if key in _ASKED:
        return None
    _ASKED.add(key)
    return Content(Role.MODEL, [Part(function_call=FunctionCall(name="note", args={}))])


def build(shape: tuple[Any, ...], names: itertools.count[int], branch: str | None,
          expected: dict[str, str | None]) -> Any:  # fmt: skip
    """The agent for ``shape``; ``expected`` gets each leaf's branch."""
    name = f"n{next(names)}"
    kind = shape[0]
    if kind == "code":
        expected[name] = branch
        return CodeAgent(name, code_fn(*shape[1:]))
    if kind == "model":
        expected[name] = branch
        tool, output_key = shape[1:]
        if not tool:
            return Agent(name, output_key=output_key)
        return Agent(
            name, tools=[note], before_model_callback=call_note_once, output_key=output_key
        )
    children = []
    for child in shape[1]:
        # A parallel agent's sub-agent runs on f"{branch}.{par}.{sub}" (ADK); the sub's
        # name is the next one the counter gives.
        child_branch = branch
        if kind == "par":
            upcoming = f"n{_peek(names)}"
            child_branch = f"{branch}.{name}.{upcoming}" if branch else f"{name}.{upcoming}"
        children.append(build(child, names, child_branch, expected))
    if kind == "seq":
        return SequentialAgent(name, children)
    if kind == "par":
        return ParallelAgent(name, children)
    return LoopAgent(name, children, max_iterations=shape[2])


def _peek(names: itertools.count[int]) -> int:
    """The counter's next value, left in place (itertools.count repr holds it)."""
    return int(repr(names)[len("count(") : -1])


async def _collect(session: AgentSession, text: str) -> tuple[str, list[Event]]:
    stream = session.run_async(text)
    async with stream:
        events = [e async for e in stream]
    return stream.invocation_id, events


def check_turn(session: AgentSession, text: str, expected: dict[str, str | None]) -> None:
    invocation_id, streamed = asyncio.run(_collect(session, text))
    history = session.history
    recorded = [e for e in history if e.invocation_id == invocation_id]
    final = [
        e
        for e in streamed
        if not isinstance(e, PromptProgress) and not (isinstance(e, TextMessage) and e.is_partial)
    ]
    assert final == recorded
    state = session.state
    replayed: dict[str, Any] = {}
    for event in history:
        apply_delta(
            replayed, {k: v for k, v in event.state_delta.items() if not k.startswith("temp:")}
        )
    assert replayed == state
    assert replay_session_state(history) == {k: v for k, v in state.items() if ":" not in k}
    calls = [e.call_id for e in history if isinstance(e, FunctionCall)]
    answered = [e.call_id for e in history if isinstance(e, FunctionResponse)]
    assert sorted(calls) == sorted(answered) and len(set(calls)) == len(calls)
    assert not any(k.startswith("temp:") for k in state)
    assert not any(k.startswith("temp:") for e in history for k in e.state_delta)
    for event in recorded:
        if event.author in expected:
            assert event.branch == expected[event.author], (event.author, event)


@pytest.mark.slow  # property-based: 25 random agent trees
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=shapes().filter(lambda s: leaves(s) <= 6), turns=st.integers(1, 2))
def test_streamed_events_are_the_recorded_ones_and_replay_rebuilds_the_state(
    shape: tuple[Any, ...], turns: int
) -> None:
    expected: dict[str, str | None] = {}
    tree = build(shape, itertools.count(), None, expected)
    with tempfile.TemporaryDirectory() as tmp:
        store_makers: list[Callable[[], SessionStore]] = [
            MemoryStore,
            lambda: SQLiteStore(Path(tmp) / "p.db"),
        ]
        for make_store in store_makers:
            runner = AgentRunner(tree, model=ScriptedBackend(), store=make_store())
            try:
                session = runner.get_or_create_session("s")
                for turn in range(turns):
                    check_turn(session, f"turn {turn}", expected)
            finally:
                runner.shutdown()
