"""`McpToolset` against real servers: the demo server (the SDK's `MCPServer`) over stdio
and over streamable HTTP, and the reference filesystem server from npm.

The model is the `ScriptedBackend`: it asks for the tool calls a test enqueues, so
what is checked is the toolset (listing, schemas, results, labels), not a model.
"""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

from agent_nb import Agent, FunctionCall, FunctionResponse, McpToolset
from agent_nb._runtime.replay import agent_is_pure
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.errors import ToolServerError
from tests.fixtures_runtime import RunnerFactory

from .conftest import ToolsetFactory


def run_calls(
    make_runner: RunnerFactory, toolset: McpToolset, *calls: ToolCallChunk, **agent: Any
) -> list[Any]:
    """One turn that makes ``calls`` then answers "done": its recorded events."""
    backend = ScriptedBackend()
    runner = make_runner(
        Agent("helper", tools=[toolset], **agent), model=backend, approve_tools="all"
    )
    backend.enqueue(*calls, "done")
    session = runner.get_or_create_session("s")
    reply = session.run("go")
    assert reply.text == "done"
    return list(session.history)


def responses(events: list[Any]) -> dict[str, dict[str, Any]]:
    return {e.name: dict(e.response) for e in events if isinstance(e, FunctionResponse)}


def test_each_tool_keeps_its_schema_and_its_read_only_hint(demo_stdio: ToolsetFactory) -> None:
    toolset = demo_stdio()
    assert toolset.state == "not started" and not toolset.listed
    tools = {t.name: t for t in toolset.start()}
    assert toolset.state == "running" and toolset.listed
    add = tools["add"]
    assert add.spec.description == "Add two whole numbers."
    assert add.spec.parameters["required"] == ["a", "b"]
    assert {k: v["type"] for k, v in add.spec.parameters["properties"].items()} == {
        "a": "integer",
        "b": "integer",
    }
    # readOnlyHint: pure (replay may answer its agent) and runs without asking
    assert (add.pure, add.confirm, add.server) == (True, False, "demo")
    note = tools["note"]
    assert (note.pure, note.confirm) == (False, True)  # acts: needs approval, never replayed


def test_a_turn_calls_the_servers_tools_and_names_the_server(
    make_runner: RunnerFactory, demo_stdio: ToolsetFactory
) -> None:
    events = run_calls(make_runner, demo_stdio(), ToolCallChunk("add", {"a": 2, "b": 40}))
    calls = [e for e in events if isinstance(e, FunctionCall)]
    assert [(c.name, c.server, dict(c.args)) for c in calls] == [("add", "demo", {"a": 2, "b": 40})]
    assert responses(events) == {"add": {"result": 42}}


def test_the_trace_names_the_server_beside_the_tool(
    make_runner: RunnerFactory, demo_stdio: ToolsetFactory
) -> None:
    def local(x: int) -> int:
        return x

    backend = ScriptedBackend()
    runner = make_runner(Agent("helper", tools=[local, demo_stdio()]), model=backend)
    backend.enqueue(ToolCallChunk("add", {"a": 1, "b": 1}), ToolCallChunk("local", {"x": 1}), "ok")
    session = runner.get_or_create_session("s")
    session.run("go")
    trace = session.trace()
    assert trace is not None
    assert "    called add (demo), local" in trace.lines()
    stored = [e for e in session.history if type(e).__name__ == "TurnComplete"][-1].trace
    assert stored is not None and stored["steps"][0]["tools"] == ["add (demo)", "local"]


def test_results_text_structured_image_and_errors(
    make_runner: RunnerFactory, demo_stdio: ToolsetFactory
) -> None:
    events = run_calls(
        make_runner,
        demo_stdio(),
        ToolCallChunk("stats", {"values": [1, 2, 3]}),
        ToolCallChunk("picture", {}),
        ToolCallChunk("fail", {"message": "no such table"}),
        ToolCallChunk("add", {"a": "two", "b": 1}),
    )
    got = responses(events)
    assert got["stats"] == {"count": 3, "mean": 2.0}  # structured content stays JSON
    # text stays text; the image is named (type, size), not dropped nor inlined
    assert got["picture"] == {"result": "a red dot:\n\n[image image/png, 70 B]"}
    assert "no such table" in got["fail"]["error"]  # the server's error is the tool's error
    assert "valid integer" in got["add"]["error"]


def test_tool_filter_keeps_the_named_tools_and_rejects_unknown_ones(
    demo_stdio: ToolsetFactory,
) -> None:
    assert [t.name for t in demo_stdio(tool_filter=["add", "pid"]).start()] == ["add", "pid"]
    assert [t.name for t in demo_stdio(tool_filter=lambda n: n.startswith("s")).start()] == [
        "stats"
    ]
    with pytest.raises(ToolServerError, match=r"MCP server 'demo' has no tool 'sub'; it offers"):
        demo_stdio(tool_filter=["add", "sub"]).start()


def test_two_servers_with_one_tool_name_need_a_prefix(
    make_runner: RunnerFactory, demo_stdio: ToolsetFactory
) -> None:
    one, two = demo_stdio(name="one", tool_filter=["add"]), demo_stdio(name="two")
    backend = ScriptedBackend()
    runner = make_runner(Agent("helper", tools=[one, two]), model=backend)
    with pytest.raises(ToolServerError, match=r"two tools named 'add' \(MCP server 'one' and"):
        runner.get_or_create_session("s").run("go")
    assert runner.get_or_create_session("s").history == []  # nothing recorded: run it again
    prefixed = demo_stdio(name="two", tool_name_prefix="two_", tool_filter=["add"])
    events = run_calls(
        make_runner, prefixed, ToolCallChunk("two_add", {"a": 1, "b": 2})
    )  # the server is called with its own name
    assert responses(events) == {"two_add": {"result": 3}}


def test_tool_choice_required_and_by_name_with_mcp_tools(
    make_runner: RunnerFactory, demo_stdio: ToolsetFactory
) -> None:
    events = run_calls(
        make_runner, demo_stdio(), ToolCallChunk("add", {"a": 1, "b": 2}), tool_choice="add"
    )
    assert responses(events) == {"add": {"result": 3}}
    backend = ScriptedBackend()
    runner = make_runner(Agent("x", tools=[demo_stdio()], tool_choice="nope"), model=backend)
    with pytest.raises(ToolServerError, match=r"tool_choice='nope' names no tool it has"):
        runner.get_or_create_session("s").run("go")


def test_replay_counts_read_only_servers_as_pure_and_others_not(
    demo_stdio: ToolsetFactory,
) -> None:
    reading = Agent("r", tools=[demo_stdio(tool_filter=["add", "stats"])])
    acting = Agent("w", tools=[demo_stdio(tool_filter=["add", "note"])])
    assert not agent_is_pure(reading)  # not listed yet: what its tools do is unknown
    reading.toolsets[0].start()
    acting.toolsets[0].start()
    assert agent_is_pure(reading)
    assert not agent_is_pure(acting)


def test_streamable_http_with_headers(
    make_runner: RunnerFactory, toolsets: ToolsetFactory, demo_http_url: str
) -> None:
    toolset = toolsets(url=demo_http_url, headers={"X-Course": "stats-101"}, name="web")
    assert toolset.transport == "http"
    events = run_calls(
        make_runner,
        toolset,
        ToolCallChunk("add", {"a": 20, "b": 22}),
        ToolCallChunk("header", {"name": "x-course"}),
    )
    assert responses(events) == {"add": {"result": 42}, "header": {"result": "stats-101"}}
    assert {e.server for e in events if isinstance(e, FunctionCall)} == {"web"}


def test_the_npm_filesystem_server_reads_without_asking(
    make_runner: RunnerFactory, toolsets: ToolsetFactory, filesystem_server: pathlib.Path,
    tmp_path: pathlib.Path,
) -> None:  # fmt: skip
    (tmp_path / "syllabus.md").write_text("Week 1: means and medians\n")
    toolset = toolsets(command=str(filesystem_server), args=[str(tmp_path)], name="course")
    tools = {t.name: t for t in toolset.start()}
    # the reference server marks its readers read-only and its writers not
    assert tools["read_text_file"].pure and not tools["read_text_file"].confirm
    assert tools["list_directory"].pure
    assert tools["write_file"].confirm and not tools["write_file"].pure
    events = run_calls(
        make_runner,
        toolset,
        ToolCallChunk("list_directory", {"path": str(tmp_path)}),
        ToolCallChunk("read_text_file", {"path": str(tmp_path / "syllabus.md")}),
    )
    got = responses(events)
    assert got["list_directory"] == {"content": "[FILE] syllabus.md"}
    assert got["read_text_file"] == {"content": "Week 1: means and medians\n"}


def test_bad_arguments_say_what_is_allowed() -> None:
    with pytest.raises(ValueError, match=r"either command= .* or url="):
        McpToolset()
    with pytest.raises(ValueError, match="either command="):
        McpToolset(command="x", url="http://127.0.0.1:1/mcp")
    with pytest.raises(ValueError, match="url must be an http:// or https:// URL"):
        McpToolset(url="ftp://127.0.0.1/mcp")
    with pytest.raises(TypeError, match="args must be a list of strings"):
        McpToolset(command="npx", args="-y server")
    with pytest.raises(ValueError, match="headers= goes with url="):
        McpToolset(command="npx", headers={"a": "b"})
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        McpToolset(command="npx", timeout=0)
    with pytest.raises(ValueError, match="a server name is 1 to 64"):
        McpToolset(command="npx", name="two words")
    with pytest.raises(TypeError, match="tool_filter must be a list of tool names"):
        McpToolset(command="npx", tool_filter="add")


def test_default_names_come_from_the_command_or_url() -> None:
    npx = McpToolset(command="npx", args=["-y", "@modelcontextprotocol/server-filesystem", "."])
    assert npx.name == "server-filesystem"
    assert McpToolset(command="python", args=["-u", "tools/course.py"]).name == "course"
    assert McpToolset(command="/opt/bin/search-server").name == "search-server"
    assert McpToolset(url="http://127.0.0.1:8000/mcp").name == "127.0.0.1-8000"
