"""ADK's contents tests (``flows/llm_flows/test_contents.py``, ``test_contents_other_agent.py``,
``test_contents_branch.py``), re-expressed through a real `AgentRunner` on the scripted model:
what each agent's model is shown, read from ``backend.requests``.

Another agent's event comes as a USER content in ADK's wording
(``_present_other_agent_message``): ``"For context:"``, then ``"[agent] said: TEXT"``,
``"[agent] called tool `NAME` with parameters: ARGS"`` or
``"[agent] `NAME` tool returned result: RESULT"``. An agent in a parallel branch sees the
events whose branch is its own or an ancestor of it, never a sibling's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from agent_nb import (
    Agent,
    BaseAgent,
    CodeAgent,
    Content,
    FunctionCall,
    FunctionResponse,
    GenerateContentRequest,
    ParallelAgent,
    Part,
    Role,
    SequentialAgent,
    TextMessage,
    ToolContext,
)
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from tests.fixtures_runtime import RunnerFactory
from tests.runtime.adk_support import context_parts, parts_texts, request_texts


def said(author: str, text: str, delay: float = 0.0) -> CodeAgent:
    async def speak(ctx: ToolContext) -> str:
        await asyncio.sleep(delay)
        return text

    return CodeAgent(author, speak)


def pause(name: str, seconds: float) -> CodeAgent:
    async def wait(ctx: ToolContext) -> None:
        await asyncio.sleep(seconds)

    return CodeAgent(name, wait)


def shown(request: GenerateContentRequest) -> list[tuple[str, list[str | None]]]:
    return [(c.role.value, parts_texts(c)) for c in request.contents]


def context(*lines: str) -> tuple[str, list[str | None]]:
    return ("user", ["For context:", *lines])


def user(text: str) -> tuple[str, list[str | None]]:
    return ("user", [text])


def model_said(text: str) -> tuple[str, list[str | None]]:
    return ("model", [text])


# -- include_contents (test_contents.py) ------------------------------------------------------


def test_include_contents_default_full_history(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents.py::test_include_contents_default_full_history"""
    model = ScriptedBackend(["First response", "Second response", "Third response"])
    agent = Agent("test_agent", include_contents="default")
    session = make_runner(agent, model=model).get_or_create_session("s")
    for text in ("First message", "Second message", "Third message"):
        session.run(text)
    assert shown(model.requests[2]) == [
        user("First message"),
        model_said("First response"),
        user("Second message"),
        model_said("Second response"),
        user("Third message"),
    ]


def test_include_contents_none_current_turn_only(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents.py::test_include_contents_none_current_turn_only"""
    model = ScriptedBackend(["First response", "Second response", "Third response"])
    agent = Agent("test_agent", include_contents="none")
    session = make_runner(agent, model=model).get_or_create_session("s")
    for text in ("First message", "Second message", "Current turn message"):
        session.run(text)
    assert shown(model.requests[0]) == [user("First message")]
    assert shown(model.requests[2]) == [user("Current turn message")]


def test_include_contents_none_keeps_the_current_turns_tool_rounds(
    make_runner: RunnerFactory,
) -> None:
    """ADK flows/llm_flows/test_contents.py::test_include_contents_none_current_turn_only:
    the current turn's own tool call and result stay in view"""

    def lookup(city: str) -> str:
        """Look a city up."""
        return "sunny"

    model = ScriptedBackend(["earlier", ToolCallChunk("lookup", {"city": "Oslo"}), "Sunny."])
    agent = Agent("test_agent", include_contents="none", tools=[lookup])
    session = make_runner(agent, model=model).get_or_create_session("s")
    session.run("First message")
    session.run("Weather in Oslo?")
    last = model.requests[-1]
    assert [c.role for c in last.contents] == [Role.USER, Role.MODEL, Role.USER]
    assert last.contents[0].text == "Weather in Oslo?"
    assert last.contents[1].parts[0].function_call is not None
    assert last.contents[2].parts[0].function_response is not None
    assert "First message" not in request_texts(last) and "earlier" not in request_texts(last)


def test_include_contents_none_multi_agent_current_turn(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents.py::test_include_contents_none_multi_agent_current_turn"""
    model = ScriptedBackend(
        [
            "Other agent response",
            "Current agent first response",
            "Another agent responds",
            "Current agent in turn",
        ]
    )
    current = Agent("current_agent", include_contents="none")
    first = SequentialAgent("first_turn", [Agent("other_agent"), current])
    second = SequentialAgent("second_turn", [Agent("another_agent"), current])
    session = make_runner(first, model=model).get_or_create_session("s")
    session.run("First user message")
    session.run("Current turn request", agent=second)
    # The current turn starts from the most recent other agent's message.
    assert shown(model.requests[1]) == [context("[other_agent] said: Other agent response")]
    assert shown(model.requests[3]) == [context("[another_agent] said: Another agent responds")]


def test_include_contents_none_multi_branch_current_turn(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents.py::test_include_contents_none_multi_branch_current_turn"""
    model = ScriptedBackend(["current answer"])
    parent = SequentialAgent(
        "parent_agent",
        [said("sibling_agent", "Sibling agent response", delay=0.1),
         Agent("current_agent", include_contents="none")],
    )  # fmt: skip
    uncle = SequentialAgent("uncle_agent", [said("cousin_agent", "Cousin agent response")])
    tree = ParallelAgent("root", [parent, uncle])
    session = make_runner(tree, model=model).get_or_create_session("s")
    session.run("First user message")
    assert shown(model.requests[0]) == [context("[sibling_agent] said: Sibling agent response")]


# -- other agents' events (test_contents_other_agent.py) --------------------------------------


def test_other_agent_message_appears_as_user_context(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_other_agent.py::test_other_agent_message_appears_as_user_context"""  # noqa: E501
    model = ScriptedBackend(["ok"])
    tree = SequentialAgent(
        "pipe", [said("other_agent", "Hello from other agent"), Agent("current_agent")]
    )
    make_runner(tree, model=model).get_or_create_session("s").run("test")
    assert shown(model.requests[0]) == [
        user("test"),
        context("[other_agent] said: Hello from other agent"),
    ]


def run_searcher(make_runner: RunnerFactory) -> GenerateContentRequest:
    """other_agent calls ``search_tool`` and answers; current_agent's request is returned."""

    def search_tool(query: str) -> dict[str, list[str]]:
        """Search."""
        return {"results": ["item1", "item2"]}

    model = ScriptedBackend(
        [ToolCallChunk("search_tool", {"query": "test query"}), "Found two.", "Summary."]
    )
    tree = SequentialAgent(
        "pipe", [Agent("other_agent", tools=[search_tool]), Agent("current_agent")]
    )
    make_runner(tree, model=model).get_or_create_session("s").run("test")
    assert len(model.requests) == 3
    return model.requests[2]


def test_other_agent_function_calls(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_other_agent.py::test_other_agent_function_calls"""
    request = run_searcher(make_runner)
    assert context_parts(request)[0] == [
        "For context:",
        "[other_agent] called tool `search_tool` with parameters: {'query': 'test query'}",
    ]
    # Shown as text only: the current agent's model never sees a foreign call as its own.
    assert all(
        p.function_call is None and p.function_response is None
        for c in request.contents
        for p in c.parts
    )


def test_other_agent_function_responses(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_other_agent.py::test_other_agent_function_responses"""
    request = run_searcher(make_runner)
    assert context_parts(request)[1] == [
        "For context:",
        "[other_agent] `search_tool` tool returned result: {'results': ['item1', 'item2']}",
    ]


def test_other_agent_function_call_response(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_other_agent.py::test_other_agent_function_call_response"""
    request = run_searcher(make_runner)
    assert shown(request) == [
        user("test"),
        context("[other_agent] called tool `search_tool` with parameters: {'query': 'test query'}"),
        context("[other_agent] `search_tool` tool returned result: {'results': ['item1', 'item2']}"),  # noqa: E501
        context("[other_agent] said: Found two."),
    ]  # fmt: skip


class _Calculator(BaseAgent):
    """ADK's two events of ``test_other_agent_function_call_response``: one model response
    with a text and a call, then the tool's response."""

    async def run(self, ctx: Any) -> AsyncIterator[Any]:
        yield ctx.event(TextMessage, text="Let me calculate this")
        yield ctx.event(FunctionCall, name="calc_tool", args={"query": "6x7"}, call_id="func_123")
        yield ctx.event(
            FunctionResponse, name="calc_tool", response={"result": 42}, call_id="func_123"
        )


def test_other_agent_text_and_call_of_one_response_are_one_content(
    make_runner: RunnerFactory,
) -> None:
    """ADK flows/llm_flows/test_contents_other_agent.py::test_other_agent_function_call_response
    (and test_current_agent_messages_not_converted's layout): "For context:" and each of the
    other agent's parts of one response are the parts of ONE user content"""
    model = ScriptedBackend(["ok"])
    tree = SequentialAgent("pipe", [_Calculator("other_agent"), Agent("current_agent")])
    make_runner(tree, model=model).get_or_create_session("s").run("test")
    assert shown(model.requests[0]) == [
        user("test"),
        context(
            "[other_agent] said: Let me calculate this",
            "[other_agent] called tool `calc_tool` with parameters: {'query': '6x7'}",
        ),
        context("[other_agent] `calc_tool` tool returned result: {'result': 42}"),
    ]


def test_other_agents_model_text_and_call_are_one_content(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_other_agent.py::test_other_agent_function_call_response,
    with a model agent whose response holds a text and a call (a before_model_callback answers
    for its model, as ADK's ``LlmResponse`` with two parts)"""

    def search_tool(query: str) -> dict[str, str]:
        """Search."""
        return {"found": query}

    def respond(callback_context: Any, llm_request: Any) -> Any:
        if any(c.parts[0].function_response for c in llm_request.contents):
            return "Found it."
        call = FunctionCall(name="search_tool", args={"query": "q"})
        return Content(Role.MODEL, (Part(text="Searching now"), Part(function_call=call)))

    model = ScriptedBackend(["ok"])
    other = Agent("other_agent", tools=[search_tool], before_model_callback=respond)
    tree = SequentialAgent("pipe", [other, Agent("current_agent")])
    make_runner(tree, model=model).get_or_create_session("s").run("test")
    assert shown(model.requests[0]) == [
        user("test"),
        context(
            "[other_agent] said: Searching now",
            "[other_agent] called tool `search_tool` with parameters: {'query': 'q'}",
        ),
        context("[other_agent] `search_tool` tool returned result: {'found': 'q'}"),
        context("[other_agent] said: Found it."),
    ]


def test_other_agent_empty_content(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_other_agent.py::test_other_agent_empty_content: a step
    that only wrote state is left out"""

    def only_state(ctx: ToolContext) -> None:
        ctx.state["note"] = "written"

    model = ScriptedBackend(["ok", "ok"])
    tree = SequentialAgent(
        "pipe", [CodeAgent("other_agent1", only_state), said("other_agent2", ""), Agent("current")]
    )
    session = make_runner(tree, model=model).get_or_create_session("s")
    session.run("Hello")
    session.run("World")
    assert shown(model.requests[0]) == [user("Hello")]
    assert shown(model.requests[1]) == [user("Hello"), model_said("ok"), user("World")]


def test_multiple_agents_in_conversation(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_other_agent.py::test_multiple_agents_in_conversation"""
    model = ScriptedBackend(["ok"])
    tree = SequentialAgent(
        "pipe",
        [said("agent1", "Hi from agent1"), said("agent2", "Hi from agent2"),
         Agent("current_agent")],
    )  # fmt: skip
    make_runner(tree, model=model).get_or_create_session("s").run("Hello everyone")
    assert shown(model.requests[0]) == [
        user("Hello everyone"),
        context("[agent1] said: Hi from agent1"),
        context("[agent2] said: Hi from agent2"),
    ]


def test_current_agent_messages_not_converted(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_other_agent.py::test_current_agent_messages_not_converted"""  # noqa: E501
    model = ScriptedBackend(["My own message", "again"])
    current = Agent("current_agent")
    session = make_runner(current, model=model).get_or_create_session("s")
    session.run("first")
    tree = SequentialAgent("pipe", [said("other_agent", "Other agent message"), current])
    session.run("second", agent=tree)
    assert shown(model.requests[1]) == [
        user("first"),
        model_said("My own message"),
        user("second"),
        context("[other_agent] said: Other agent message"),
    ]


def test_user_messages_preserved(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_other_agent.py::test_user_messages_preserved"""
    model = ScriptedBackend(["ok"])
    make_runner(Agent("current_agent"), model=model).get_or_create_session("s").run("User message")
    assert shown(model.requests[0]) == [user("User message")]


# -- branches (test_contents_branch.py) -------------------------------------------------------


def test_branch_filtering_child_sees_parent(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_branch.py::test_branch_filtering_child_sees_parent
    (``par.kid`` is a string prefix of ``par.kid_x`` but not its ancestor: left out)"""
    model = ScriptedBackend(["Child agent response"])
    kid_x = SequentialAgent(
        "kid_x", [said("child_note", "Child note", delay=0.1), Agent("child_agent")]
    )
    par = ParallelAgent("par", [kid_x, said("kid", "Excluded response")])
    tree = SequentialAgent("pipe", [said("parent_agent", "Parent agent response"), par])
    make_runner(tree, model=model).get_or_create_session("s").run("User message")
    assert shown(model.requests[0]) == [
        user("User message"),
        context("[parent_agent] said: Parent agent response"),
        context("[child_note] said: Child note"),
    ]


def test_branch_filtering_excludes_sibling_agents(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_branch.py::test_branch_filtering_excludes_sibling_agents:
    two model agents in sibling branches, each after its branch's own message; neither model
    ever sees the other branch's text (the echoing model would repeat it)"""
    model = ScriptedBackend()  # echoes: replies depend only on what each branch sees

    def branch(tag: str) -> SequentialAgent:
        return SequentialAgent(
            f"branch_{tag}",
            [said(f"mark_{tag}", f"secret {tag.upper()}"), pause(f"wait_{tag}", 0.1),
             Agent(f"ask_{tag}"), Agent(f"again_{tag}")],
        )  # fmt: skip

    tree = SequentialAgent(
        "pipe",
        [said("intro", "shared intro"), ParallelAgent("par", [branch("a"), branch("b")])],
    )
    session = make_runner(tree, model=model).get_or_create_session("s")
    session.run("User message")
    assert len(model.requests) == 4
    seen_a = [r for r in model.requests if "secret A" in request_texts(r)]
    seen_b = [r for r in model.requests if "secret B" in request_texts(r)]
    assert len(seen_a) == len(seen_b) == 2
    for request in seen_a:
        assert "secret B" not in request_texts(request)
        assert "[ask_b]" not in request_texts(request)
    for request in seen_b:
        assert "secret A" not in request_texts(request)
        assert "[ask_a]" not in request_texts(request)
    for request in model.requests:  # the shared history is in every branch's view
        assert shown(request)[:2] == [user("User message"), context("[intro] said: shared intro")]
    # Each branch's second agent sees its first agent's reply as another agent's message.
    texts = {e.author: e.text for e in session.history if hasattr(e, "text")}
    for tag in ("a", "b"):
        request = next(r for r in model.requests if f"[ask_{tag}] said:" in request_texts(r))
        assert texts[f"ask_{tag}"] in request_texts(request)


def test_branch_filtering_no_branch_allows_all(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_branch.py::test_branch_filtering_no_branch_allows_all:
    after the parallel part, an agent outside every branch sees all branches' events"""
    model = ScriptedBackend(["Summary."])
    par = ParallelAgent("par", [said("agent1", "Agent with branch", delay=0.05),
                                said("agent2", "Other branch")])  # fmt: skip
    tree = SequentialAgent("pipe", [par, Agent("current_agent")])
    make_runner(tree, model=model).get_or_create_session("s").run("No branch message")
    assert shown(model.requests[0]) == [
        user("No branch message"),
        context("[agent2] said: Other branch"),
        context("[agent1] said: Agent with branch"),
    ]


def test_branch_filtering_grandchild_sees_grandparent(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_branch.py::test_branch_filtering_grandchild_sees_grandparent"""  # noqa: E501
    model = ScriptedBackend(["Grandchild response"])
    inner = ParallelAgent(
        "inner",
        [SequentialAgent("g", [pause("wait", 0.1), Agent("grandchild_agent")]),
         said("sibling_agent", "Sibling response")],
    )  # fmt: skip
    p = SequentialAgent("p", [said("parent_agent", "Parent response"), inner])
    tree = SequentialAgent(
        "root", [said("grandparent_agent", "Grandparent response"), ParallelAgent("outer", [p])]
    )
    make_runner(tree, model=model).get_or_create_session("s").run("go")
    assert shown(model.requests[0]) == [
        user("go"),
        context("[grandparent_agent] said: Grandparent response"),
        context("[parent_agent] said: Parent response"),
    ]


def test_branch_filtering_parent_sees_child_after_the_join(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_contents_branch.py::test_branch_filtering_parent_cannot_see_child,
    with ADK's join (agents/test_sequence_of_parallel_agents.py): an agent of branch ``outer.p``
    that runs after the nested parallel ``inner`` has ended sees ``outer.p.inner.child_agent``'s
    events (ADK's parent at the forked token, which cannot see them, never runs after the join)"""
    model = ScriptedBackend(["Parent response"])
    p = SequentialAgent(
        "p", [ParallelAgent("inner", [said("child_agent", "Child response")]),
              Agent("parent_agent")]
    )  # fmt: skip
    tree = ParallelAgent("outer", [p])
    session = make_runner(tree, model=model).get_or_create_session("s")
    session.run("User message")
    assert shown(model.requests[0]) == [
        user("User message"),
        context("[child_agent] said: Child response"),
    ]
    branches: dict[str, Any] = {e.author: e.branch for e in session.history}
    assert branches["child_agent"] == "outer.p.inner.child_agent"
    assert branches["parent_agent"] == "outer.p"
