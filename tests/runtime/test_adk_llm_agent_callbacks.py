"""ADK's callback tests, re-expressed through a real `AgentRunner` on the scripted model:
``agents/test_llm_agent_callbacks.py``, ``agents/test_model_callback_chain.py``,
``agents/test_base_agent.py`` (agent callbacks), ``flows/llm_flows/test_model_callbacks.py``,
``flows/llm_flows/test_tool_callbacks.py`` and ``flows/llm_flows/test_async_tool_callbacks.py``.

ADK's contract: a callback that returns a value bypasses (before) or replaces (after) what it
wraps; returning None continues; a list of callbacks runs in order until one returns a value.
Callbacks are called with keyword arguments named as in ADK.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from agent_nb import (
    Agent,
    CodeAgent,
    Content,
    FunctionCall,
    GenerateContentRequest,
    Part,
    Role,
    SequentialAgent,
    ToolContext,
)
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from tests.fixtures_runtime import RunnerFactory
from tests.runtime.adk_support import simplify, turn_events


def run_root(make_runner: RunnerFactory, model: ScriptedBackend, **agent_kwargs: Any) -> Any:
    """ADK's ``TestInMemoryRunner(agent).run_async_with_new_session('test')``, simplified."""
    agent = Agent("root_agent", **agent_kwargs)
    session = make_runner(agent, model=model).get_or_create_session("s")
    reply = session.run("test")
    return simplify(turn_events(session.history, reply.invocation_id))


def noop_callback(**kwargs: Any) -> None:
    pass


async def async_noop_callback(**kwargs: Any) -> None:
    pass


# -- model callbacks (test_llm_agent_callbacks.py, test_model_callbacks.py) -----------------


def test_before_model_callback(make_runner: RunnerFactory) -> None:
    """ADK agents/test_llm_agent_callbacks.py::test_before_model_callback"""
    model = ScriptedBackend(["model_response"])

    def before(callback_context: Any, llm_request: GenerateContentRequest) -> Content:
        return Content.model("before_model_callback")

    assert run_root(make_runner, model, before_model_callback=before) == [
        ("root_agent", "before_model_callback")
    ]
    assert model.requests == []  # the model was never called


def test_before_model_callback_noop(make_runner: RunnerFactory) -> None:
    """ADK agents/test_llm_agent_callbacks.py::test_before_model_callback_noop"""
    model = ScriptedBackend(["model_response"])
    assert run_root(make_runner, model, before_model_callback=noop_callback) == [
        ("root_agent", "model_response")
    ]
    assert len(model.requests) == 1


def test_before_model_callback_end(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_model_callbacks.py::test_before_model_callback_end:
    a str is as good as a Content"""
    model = ScriptedBackend(["model_response"])
    events = run_root(
        make_runner, model, before_model_callback=lambda **kw: "before_model_callback"
    )
    assert events == [("root_agent", "before_model_callback")]
    assert model.pending == 1


def test_after_model_callback(make_runner: RunnerFactory) -> None:
    """ADK agents/test_llm_agent_callbacks.py::test_after_model_callback"""
    model = ScriptedBackend(["model_response"])
    seen: list[str] = []

    def after(callback_context: Any, llm_response: Content) -> Content:
        seen.append(llm_response.text)
        return Content.model("after_model_callback")

    assert run_root(make_runner, model, after_model_callback=after) == [
        ("root_agent", "after_model_callback")
    ]
    assert seen == ["model_response"]
    assert len(model.requests) == 1


def test_after_model_callback_noop(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_model_callbacks.py::test_after_model_callback_noop"""
    model = ScriptedBackend(["model_response"])
    assert run_root(make_runner, model, after_model_callback=noop_callback) == [
        ("root_agent", "model_response")
    ]


def test_async_before_model_callback(make_runner: RunnerFactory) -> None:
    """ADK agents/test_llm_agent_callbacks.py::test_async_before_model_callback"""
    model = ScriptedBackend(["model_response"])

    async def before(callback_context: Any, llm_request: GenerateContentRequest) -> Content:
        await asyncio.sleep(0)
        return Content.model("async_before_model_callback")

    assert run_root(make_runner, model, before_model_callback=before) == [
        ("root_agent", "async_before_model_callback")
    ]
    assert model.requests == []


def test_async_before_model_callback_noop(make_runner: RunnerFactory) -> None:
    """ADK agents/test_llm_agent_callbacks.py::test_async_before_model_callback_noop"""
    model = ScriptedBackend(["model_response"])
    assert run_root(make_runner, model, before_model_callback=async_noop_callback) == [
        ("root_agent", "model_response")
    ]


def test_async_after_model_callback(make_runner: RunnerFactory) -> None:
    """ADK agents/test_llm_agent_callbacks.py::test_async_after_model_callback"""
    model = ScriptedBackend(["model_response"])

    async def after(callback_context: Any, llm_response: Content) -> Content:
        return Content.model("async_after_model_callback")

    assert run_root(make_runner, model, after_model_callback=after) == [
        ("root_agent", "async_after_model_callback")
    ]


def test_before_model_callback_sees_the_request(make_runner: RunnerFactory) -> None:
    """ADK agents/test_llm_agent_callbacks.py::test_before_model_callback: the
    callback gets the request about to be sent and a `CallbackContext`"""
    from agent_nb import CallbackContext  # exported by the reshaped engine (issue 28)

    model = ScriptedBackend(["model_response"])
    seen: list[tuple[Any, GenerateContentRequest]] = []

    def before(callback_context: Any, llm_request: GenerateContentRequest) -> None:
        seen.append((callback_context, llm_request))

    run_root(make_runner, model, before_model_callback=before, instructions="Be brief.")
    [(context, request)] = seen
    assert isinstance(context, CallbackContext)
    assert context.agent_name == "root_agent"
    assert context.user_content in ("test", Content.user("test"))
    assert request.system_instruction == "Be brief."
    assert [c.text for c in request.contents] == ["test"]
    assert model.requests[0].contents == request.contents


def test_before_model_callback_function_call(make_runner: RunnerFactory) -> None:
    """ADK agents/test_llm_agent_callbacks.py::test_before_model_callback, the
    response holding a function call: the tool runs as if the model had asked for it"""
    model = ScriptedBackend(["done"])
    rounds: list[int] = []

    def simple_function(input_str: str) -> dict[str, str]:
        """Echo."""
        return {"result": input_str}

    def before(callback_context: Any, llm_request: GenerateContentRequest) -> Content | None:
        rounds.append(1)
        if len(rounds) > 1:
            return None
        call = FunctionCall(name="simple_function", args={"input_str": "from callback"})
        return Content(Role.MODEL, [Part(function_call=call)])

    events = run_root(make_runner, model, tools=[simple_function], before_model_callback=before)
    assert events == [
        ("root_agent", ("call", "simple_function", {"input_str": "from callback"})),
        ("root_agent", ("response", "simple_function", {"result": "from callback"})),
        ("root_agent", "done"),
    ]
    assert len(model.requests) == 1


# -- callback chains (test_model_callback_chain.py, test_base_agent.py, async tool callbacks) -


CHAINS = [
    pytest.param(
        [(None, "sync"), ("callback_2_response", "async"), ("callback_3_response", "sync"),
         (None, "async")],
        "callback_2_response",
        [1, 1, 0, 0],
        id="middle_async_callback_returns",
    ),
    pytest.param(
        [(None, "sync"), (None, "async"), (None, "sync"), (None, "async")],
        None,
        [1, 1, 1, 1],
        id="all_callbacks_return_none",
    ),
    pytest.param(
        [("callback_1_response", "sync"), ("callback_2_response", "async")],
        "callback_1_response",
        [1, 0],
        id="first_sync_callback_returns",
    ),
]  # fmt: skip


def chain(
    spec: list[tuple[Any, str]], wrap: Callable[[Any], Any] = lambda v: v
) -> tuple[list[Callable[..., Any]], list[int]]:
    """Callbacks that return ``wrap(value)`` (or None), counting their calls."""
    calls = [0] * len(spec)

    def make(i: int, value: Any, kind: str) -> Callable[..., Any]:
        def sync_cb(**kwargs: Any) -> Any:
            calls[i] += 1
            return None if value is None else wrap(value)

        async def async_cb(**kwargs: Any) -> Any:
            return sync_cb(**kwargs)

        return async_cb if kind == "async" else sync_cb

    return [make(i, v, k) for i, (v, k) in enumerate(spec)], calls


@pytest.mark.parametrize(("callbacks", "expected", "expected_calls"), CHAINS)
def test_before_model_callbacks_chain(
    make_runner: RunnerFactory, callbacks: Any, expected: Any, expected_calls: list[int]
) -> None:
    """ADK agents/test_model_callback_chain.py::test_before_model_callbacks_chain"""
    cbs, calls = chain(callbacks, Content.model)
    events = run_root(make_runner, ScriptedBackend(["model_response"]), before_model_callback=cbs)
    assert events == [("root_agent", expected or "model_response")]
    assert calls == expected_calls


@pytest.mark.parametrize(("callbacks", "expected", "expected_calls"), CHAINS)
def test_after_model_callbacks_chain(
    make_runner: RunnerFactory, callbacks: Any, expected: Any, expected_calls: list[int]
) -> None:
    """ADK agents/test_model_callback_chain.py::test_after_model_callbacks_chain"""
    cbs, calls = chain(callbacks, Content.model)
    events = run_root(make_runner, ScriptedBackend(["model_response"]), after_model_callback=cbs)
    assert events == [("root_agent", expected or "model_response")]
    assert calls == expected_calls


@pytest.mark.parametrize(("callbacks", "expected", "expected_calls"), CHAINS)
def test_before_agent_callbacks_chain(
    make_runner: RunnerFactory, callbacks: Any, expected: Any, expected_calls: list[int]
) -> None:
    """ADK agents/test_base_agent.py::test_before_agent_callbacks_chain"""
    cbs, calls = chain(callbacks, Content.model)
    model = ScriptedBackend(["Hello, world!"])
    events = run_root(make_runner, model, before_agent_callback=cbs)
    assert events == [("root_agent", expected or "Hello, world!")]
    assert calls == expected_calls
    assert len(model.requests) == (0 if expected else 1)


@pytest.mark.parametrize(("callbacks", "expected", "expected_calls"), CHAINS)
def test_after_agent_callbacks_chain(
    make_runner: RunnerFactory, callbacks: Any, expected: Any, expected_calls: list[int]
) -> None:
    """ADK agents/test_base_agent.py::test_after_agent_callbacks_chain"""
    cbs, calls = chain(callbacks, Content.model)
    events = run_root(make_runner, ScriptedBackend(["Hello, world!"]), after_agent_callback=cbs)
    appended = [("root_agent", expected)] if expected else []
    assert events == [("root_agent", "Hello, world!"), *appended]
    assert calls == expected_calls


# -- agent callbacks (test_base_agent.py) -----------------------------------------------------


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_run_async_before_agent_callback_noop(make_runner: RunnerFactory, is_async: bool) -> None:
    """ADK agents/test_base_agent.py::test_run_async_before_agent_callback_noop
    (and ::test_run_async_with_async_before_agent_callback_noop)"""
    from agent_nb import CallbackContext

    seen: list[Any] = []

    def before(callback_context: Any) -> None:
        seen.append(callback_context)

    async def async_before(callback_context: Any) -> None:
        seen.append(callback_context)

    model = ScriptedBackend(["Hello, world!"])
    events = run_root(
        make_runner, model, before_agent_callback=async_before if is_async else before
    )
    assert len(seen) == 1 and isinstance(seen[0], CallbackContext)
    assert seen[0].agent_name == "root_agent"
    assert len(model.requests) == 1  # the agent ran
    assert events == [("root_agent", "Hello, world!")]


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_run_async_before_agent_callback_bypass_agent(
    make_runner: RunnerFactory, is_async: bool
) -> None:
    """ADK agents/test_base_agent.py::test_run_async_before_agent_callback_bypass_agent
    (and ::test_run_async_with_async_before_agent_callback_bypass_agent)"""

    def before(callback_context: Any) -> Content:
        return Content.model("agent run is bypassed.")

    async def async_before(callback_context: Any) -> Content:
        return Content.model("agent run is bypassed.")

    model = ScriptedBackend(["Hello, world!"])
    events = run_root(
        make_runner, model, before_agent_callback=async_before if is_async else before
    )
    assert events == [("root_agent", "agent run is bypassed.")]
    assert model.requests == []  # run was never called


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_run_async_after_agent_callback_noop(make_runner: RunnerFactory, is_async: bool) -> None:
    """ADK agents/test_base_agent.py::test_run_async_after_agent_callback_noop
    (and ::test_run_async_with_async_after_agent_callback_noop)"""
    from agent_nb import CallbackContext

    seen: list[Any] = []

    def after(callback_context: Any) -> None:
        seen.append(callback_context)

    async def async_after(callback_context: Any) -> None:
        seen.append(callback_context)

    events = run_root(
        make_runner,
        ScriptedBackend(["Hello, world!"]),
        after_agent_callback=async_after if is_async else after,
    )
    assert len(seen) == 1 and isinstance(seen[0], CallbackContext)
    assert events == [("root_agent", "Hello, world!")]


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_run_async_after_agent_callback_append_reply(
    make_runner: RunnerFactory, is_async: bool
) -> None:
    """ADK agents/test_base_agent.py::test_run_async_after_agent_callback_append_reply
    (and ::test_run_async_with_async_after_agent_callback_append_reply)"""

    def after(callback_context: Any) -> Content:
        return Content.model("Agent reply from after agent callback.")

    async def async_after(callback_context: Any) -> Content:
        return after(callback_context)

    events = run_root(
        make_runner,
        ScriptedBackend(["Hello, world!"]),
        after_agent_callback=async_after if is_async else after,
    )
    assert events == [
        ("root_agent", "Hello, world!"),
        ("root_agent", "Agent reply from after agent callback."),
    ]


def test_workflow_agent_before_agent_callback_bypass_agent(make_runner: RunnerFactory) -> None:
    """ADK agents/test_base_agent.py::test_run_async_before_agent_callback_bypass_agent,
    on a SequentialAgent: its sub-agents never run"""
    model = ScriptedBackend(["never"])
    ran: list[str] = []
    tree = SequentialAgent(
        "seq",
        [CodeAgent("step", lambda ctx: ran.append("step")), Agent("writer")],
        before_agent_callback=lambda callback_context: "skipped",
    )
    session = make_runner(tree, model=model).get_or_create_session("s")
    reply = session.run("go")
    assert simplify(turn_events(session.history, reply.invocation_id)) == [("seq", "skipped")]
    assert ran == [] and model.requests == []


def test_workflow_agent_after_agent_callback_append_reply(make_runner: RunnerFactory) -> None:
    """ADK agents/test_base_agent.py::test_run_async_after_agent_callback_append_reply,
    on a SequentialAgent: the reply comes after every sub-agent's"""
    tree = SequentialAgent(
        "seq",
        [CodeAgent("one", lambda ctx: "one"), CodeAgent("two", lambda ctx: "two")],
        after_agent_callback=lambda callback_context: Content.model("after all"),
    )
    session = make_runner(tree).get_or_create_session("s")
    reply = session.run("go")
    assert simplify(turn_events(session.history, reply.invocation_id)) == [
        ("one", "one"),
        ("two", "two"),
        ("seq", "after all"),
    ]


def test_callback_context_state_write_is_recorded(make_runner: RunnerFactory) -> None:
    """ADK tools/test_agent_tool.py::change_state_callback on the root agent:
    ``callback_context.state`` writes land in an event's state_delta, and in the session"""

    def before(callback_context: Any) -> None:
        callback_context.state["visits"] = callback_context.state.get("visits", 0) + 1
        callback_context.state["temp:seen"] = True

    model = ScriptedBackend(["hi", "hi again"])
    agent = Agent("root_agent", instructions="seen={temp:seen}", before_agent_callback=before)
    session = make_runner(agent, model=model).get_or_create_session("s")
    session.run("one")
    session.run("two")
    assert session.state == {"visits": 2}
    assert model.requests[0].system_instruction == "seen=True"
    carried = [dict(e.state_delta) for e in session.history if e.state_delta]
    assert carried == [{"visits": 1}, {"visits": 2}]
    assert all(e.author == "root_agent" for e in session.history if e.state_delta)


# -- tool callbacks (test_tool_callbacks.py, test_async_tool_callbacks.py) --------------------


def simple_function(input_str: str) -> dict[str, str]:
    """Return the input."""
    return {"result": input_str}


def run_tool_agent(
    make_runner: RunnerFactory, args: dict[str, Any], **callbacks: Any
) -> list[tuple[str, Any]]:
    model = ScriptedBackend([ToolCallChunk("simple_function", args), "response1"])
    return run_root(make_runner, model, tools=[simple_function], **callbacks)


def test_before_tool_callback(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_tool_callbacks.py::test_before_tool_callback"""
    seen: list[tuple[str, dict[str, Any], Any]] = []

    def before(tool: Any, args: dict[str, Any], tool_context: ToolContext) -> dict[str, Any]:
        seen.append((tool.name, dict(args), tool_context))
        return {"test": "before_tool_callback"}

    assert run_tool_agent(make_runner, {}, before_tool_callback=before) == [
        ("root_agent", ("call", "simple_function", {})),
        ("root_agent", ("response", "simple_function", {"test": "before_tool_callback"})),
        ("root_agent", "response1"),
    ]
    [(name, args, context)] = seen
    assert (name, args) == ("simple_function", {})
    assert isinstance(context, ToolContext)


def test_before_tool_callback_noop(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_tool_callbacks.py::test_before_tool_callback_noop"""
    args = {"input_str": "simple_function_call"}
    assert run_tool_agent(make_runner, args, before_tool_callback=noop_callback) == [
        ("root_agent", ("call", "simple_function", args)),
        ("root_agent", ("response", "simple_function", {"result": "simple_function_call"})),
        ("root_agent", "response1"),
    ]


def test_before_tool_callback_modify_tool_request(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_tool_callbacks.py::test_before_tool_callback_modify_tool_request"""

    def before(tool: Any, args: dict[str, Any], tool_context: ToolContext) -> None:
        args["input_str"] = "modified_input"

    assert run_tool_agent(make_runner, {}, before_tool_callback=before) == [
        ("root_agent", ("call", "simple_function", {})),
        ("root_agent", ("response", "simple_function", {"result": "modified_input"})),
        ("root_agent", "response1"),
    ]


def test_after_tool_callback(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_tool_callbacks.py::test_after_tool_callback"""
    seen: list[dict[str, Any]] = []

    def after(
        tool: Any, args: dict[str, Any], tool_context: ToolContext, tool_response: dict[str, Any]
    ) -> dict[str, Any]:
        seen.append(dict(tool_response))
        return {"test": "after_tool_callback"}

    args = {"input_str": "simple_function_call"}
    assert run_tool_agent(make_runner, args, after_tool_callback=after) == [
        ("root_agent", ("call", "simple_function", args)),
        ("root_agent", ("response", "simple_function", {"test": "after_tool_callback"})),
        ("root_agent", "response1"),
    ]
    assert seen == [{"result": "simple_function_call"}]


def test_after_tool_callback_noop(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_tool_callbacks.py::test_after_tool_callback_noop"""
    args = {"input_str": "simple_function_call"}
    assert run_tool_agent(make_runner, args, after_tool_callback=noop_callback) == [
        ("root_agent", ("call", "simple_function", args)),
        ("root_agent", ("response", "simple_function", {"result": "simple_function_call"})),
        ("root_agent", "response1"),
    ]


def test_after_tool_callback_modify_tool_response(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_tool_callbacks.py::test_after_tool_callback_modify_tool_response"""

    def after(
        tool: Any, args: dict[str, Any], tool_context: ToolContext, tool_response: dict[str, Any]
    ) -> dict[str, Any]:
        tool_response["result"] = "modified_output"
        return tool_response

    args = {"input_str": "simple_function_call"}
    assert run_tool_agent(make_runner, args, after_tool_callback=after) == [
        ("root_agent", ("call", "simple_function", args)),
        ("root_agent", ("response", "simple_function", {"result": "modified_output"})),
        ("root_agent", "response1"),
    ]


def run_initial_tool(make_runner: RunnerFactory, **callbacks: Any) -> dict[str, Any]:
    """ADK's ``invoke_tool_with_callbacks``: a tool answering ``{"initial": "response"}``."""

    def simple_fn() -> dict[str, str]:
        """Answer the initial response."""
        return {"initial": "response"}

    model = ScriptedBackend([ToolCallChunk("simple_fn", {}), "done"])
    events = run_root(make_runner, model, tools=[simple_fn], **callbacks)
    [response] = [
        step[2] for _, step in events if isinstance(step, tuple) and step[0] == "response"
    ]
    return response  # type: ignore[no-any-return]


def test_async_before_tool_callback(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_async_tool_callbacks.py::test_async_before_tool_callback"""

    async def before(tool: Any, args: dict[str, Any], tool_context: ToolContext) -> dict[str, Any]:
        return {"test": "before_tool_callback"}

    assert run_initial_tool(make_runner, before_tool_callback=before) == {
        "test": "before_tool_callback"
    }


def test_async_after_tool_callback(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_async_tool_callbacks.py::test_async_after_tool_callback"""

    async def after(
        tool: Any, args: dict[str, Any], tool_context: ToolContext, tool_response: dict[str, Any]
    ) -> dict[str, Any]:
        return {"test": "after_tool_callback"}

    assert run_initial_tool(make_runner, after_tool_callback=after) == {
        "test": "after_tool_callback"
    }


@pytest.mark.parametrize(("callbacks", "expected", "expected_calls"), CHAINS)
def test_before_tool_callbacks_chain(
    make_runner: RunnerFactory, callbacks: Any, expected: Any, expected_calls: list[int]
) -> None:
    """ADK flows/llm_flows/test_async_tool_callbacks.py::test_before_tool_callbacks_chain"""
    cbs, calls = chain(callbacks, lambda text: {"test": text})
    response = run_initial_tool(make_runner, before_tool_callback=cbs)
    assert response == ({"test": expected} if expected else {"initial": "response"})
    assert calls == expected_calls


@pytest.mark.parametrize(("callbacks", "expected", "expected_calls"), CHAINS)
def test_after_tool_callbacks_chain(
    make_runner: RunnerFactory, callbacks: Any, expected: Any, expected_calls: list[int]
) -> None:
    """ADK flows/llm_flows/test_async_tool_callbacks.py::test_after_tool_callbacks_chain"""
    cbs, calls = chain(callbacks, lambda text: {"test": text})
    response = run_initial_tool(make_runner, after_tool_callback=cbs)
    assert response == ({"test": expected} if expected else {"initial": "response"})
    assert calls == expected_calls


def test_before_model_callback_state_write_is_seen_in_the_next_round(
    make_runner: RunnerFactory,
) -> None:
    """ADK agents/test_llm_agent_callbacks.py::test_before_model_callback, its
    ``callback_context.state`` writes: recorded, and seen by the agent's next round"""
    model = ScriptedBackend(["done"])
    seen: list[Any] = []

    def before(callback_context: Any, llm_request: GenerateContentRequest) -> Content | None:
        seen.append(callback_context.state.get("temp:asked"))
        if callback_context.state.get("temp:asked"):
            return None
        callback_context.state["temp:asked"] = True
        callback_context.state["asked"] = True
        call = FunctionCall(name="simple_function", args={"input_str": "x"})
        return Content(Role.MODEL, [Part(function_call=call)])

    agent = Agent("root_agent", tools=[simple_function], before_model_callback=before)
    session = make_runner(agent, model=model).get_or_create_session("s")
    session.run("test")
    assert seen == [None, True]
    assert session.state == {"asked": True}
    assert len(model.requests) == 1
