"""An MCP server's life: started on first use, one line naming it when it cannot start,
an error result (and the turn going on) when it dies or hangs mid-call, and no process
left once the runner or the toolset is closed."""

from __future__ import annotations

import os
import pathlib
import signal
import sys
import threading
import time

import pytest

from agent_nb import Agent, FunctionResponse, McpToolset
from agent_nb._runtime.mcp import servers_of
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.errors import ToolServerError, ToolServerTimeoutError
from tests.fixtures_runtime import RunnerFactory
from tests.net import free_port
from tests.waiting import wait_until

from .conftest import ToolsetFactory, alive

# Starts, says so on stderr at once, and never answers the handshake.
SILENT = ["sh", "-c", "echo starting >&2; exec sleep 99"]


def server_pid(toolset: McpToolset) -> int:
    """The running server's pid, asked of the server itself (its ``pid`` tool)."""
    import asyncio

    pid = next(t for t in toolset.tools if t.name == "pid")
    return int(asyncio.run(pid.call({}, None))["result"])  # type: ignore[arg-type]


def test_a_server_killed_mid_call_fails_that_call_and_the_turn_goes_on(
    make_runner: RunnerFactory, demo_stdio: ToolsetFactory, tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch, no_pid_left: list[int],
) -> None:  # fmt: skip
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("DEMO_PID_FILE", str(pid_file))
    toolset = demo_stdio(env={"DEMO_PID_FILE": str(pid_file)})
    backend = ScriptedBackend()
    runner = make_runner(Agent("helper", tools=[toolset]), model=backend, approve_tools="all")
    backend.enqueue(ToolCallChunk("wait_to_be_killed", {}), "The server went away.")

    def kill_when_waiting() -> None:
        pid = int(wait_until(lambda: pid_file.exists() and pid_file.read_text(), timeout=120))
        no_pid_left.append(pid)
        os.kill(pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_when_waiting)
    killer.start()
    session = runner.get_or_create_session("s")
    reply = session.run("go")
    killer.join()
    assert reply.text == "The server went away."  # the turn went on
    [response] = [e for e in session.history if isinstance(e, FunctionResponse)]
    assert response.response == {
        "error": "ToolServerError: MCP server 'demo' stopped during the call to 'wait_to_be_killed'"
    }
    assert toolset.state == "stopped"
    backend.enqueue(ToolCallChunk("add", {"a": 1, "b": 1}), "2")  # the next turn restarts it
    assert session.run("again").text == "2"
    assert toolset.state == "running"
    assert [e.response for e in session.history if isinstance(e, FunctionResponse)][-1] == {
        "result": 2
    }


def test_a_call_that_never_answers_times_out_naming_the_server(
    make_runner: RunnerFactory, demo_stdio: ToolsetFactory
) -> None:
    short = demo_stdio(name="slow", timeout=1.5)
    backend = ScriptedBackend()
    runner = make_runner(Agent("helper", tools=[short]), model=backend, approve_tools="all")
    backend.enqueue(ToolCallChunk("hang", {}), ToolCallChunk("add", {"a": 1, "b": 2}), "ok")
    session = runner.get_or_create_session("s")
    assert session.run("go").text == "ok"
    got = [dict(e.response) for e in session.history if isinstance(e, FunctionResponse)]
    assert got == [
        {"error": "ToolServerTimeoutError: MCP server 'slow' did not answer 'hang' within 1.5 s"},
        {"result": 3},  # the server still answers other calls
    ]


def test_a_server_that_never_completes_the_handshake_times_out(
    make_runner: RunnerFactory, toolsets: ToolsetFactory
) -> None:
    silent = toolsets(command=SILENT[0], args=SILENT[1:], name="mute", start_timeout=2)
    backend = ScriptedBackend()
    runner = make_runner(Agent("helper", tools=[silent]), model=backend, approve_tools="all")
    session = runner.get_or_create_session("s")
    started = time.monotonic()
    with pytest.raises(ToolServerTimeoutError) as caught:
        session.run("go")
    assert time.monotonic() - started < 30  # bounded: the timeout, then the process ended
    message = str(caught.value)
    assert message.startswith("MCP server 'mute' did not finish starting within 2 s (")
    assert message.endswith("; it said: starting")  # its last line on stderr
    assert "\n" not in message
    assert session.history == []  # nothing recorded: fix the server and run it again
    assert silent.state == "failed" and silent.error == message


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"command": "no-such-mcp-server-here"},
            "MCP server 'ghost' could not start: no program 'no-such-mcp-server-here' was "
            "found (install it, or give its full path)",
        ),
        (
            {"command": sys.executable, "args": ["-c", "import sys; sys.exit('bad config')"]},
            "MCP server 'ghost' exited before completing the MCP handshake (",
        ),
        (
            {"command": sys.executable, "args": ["-c", "print('hello, not json'); input()"]},
            "MCP server 'ghost' ",
        ),
    ],
    ids=["missing-command", "exits-at-once", "not-mcp"],
)
def test_a_server_that_cannot_start_fails_in_one_line_naming_it(
    toolsets: ToolsetFactory, kwargs: dict[str, object], expected: str
) -> None:
    toolset = toolsets(name="ghost", **kwargs)
    with pytest.raises(ToolServerError) as caught:
        toolset.start()
    message = str(caught.value)
    assert message.startswith(expected)
    assert "\n" not in message and caught.value.server == "ghost"
    if "exits" in expected:
        assert message.endswith("; it said: bad config")


def test_an_unreachable_url_fails_in_one_line(toolsets: ToolsetFactory) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with pytest.raises(ToolServerError) as caught:
        toolsets(url=url, name="web").start()
    assert str(caught.value).startswith(f"MCP server 'web' could not be reached at {url}: ")
    assert "\n" not in str(caught.value)


def test_runner_shutdown_ends_the_servers_its_turns_used(
    demo_stdio: ToolsetFactory, no_pid_left: list[int]
) -> None:
    from agent_nb import AgentRunner

    used, added = demo_stdio(name="used"), demo_stdio(name="added")
    backend = ScriptedBackend()
    runner = AgentRunner(Agent("helper", tools=[used]), model=backend)
    try:
        backend.enqueue("hi")
        runner.get_or_create_session("s").run("go")  # lists `used`: starts it
        servers_of(runner).add(added)
        pids = [server_pid(used), server_pid(added)]
        no_pid_left.extend(pids)
        assert all(alive(p) for p in pids)
    finally:
        runner.shutdown()
    assert (used.state, added.state) == ("closed", "closed")
    assert not any(alive(p) for p in pids)  # the close waited for them


def test_the_named_servers_of_a_runner(
    make_runner: RunnerFactory, demo_stdio: ToolsetFactory
) -> None:
    runner = make_runner()
    servers = servers_of(runner)
    assert servers_of(runner) is servers and len(servers) == 0
    first = servers.add(demo_stdio(name="calc", tool_filter=["add"]))
    assert servers.names() == ["calc"] and first.state == "running"
    # the same server again (a re-run cell) keeps the running one
    assert servers.add(demo_stdio(name="calc", tool_filter=["add"])) is first
    # another command under the name replaces it, and the old one is closed
    second = servers.add(demo_stdio(name="calc", tool_filter=["add", "pid"]))
    assert second is not first and first.state == "closed"
    assert servers.pick(["calc"]) == [second]
    with pytest.raises(ToolServerError, match=r"no MCP server named 'web'; added: calc"):
        servers.pick(["calc", "web"])
    # a server that cannot start is not kept
    with pytest.raises(ToolServerError, match="MCP server 'bad' could not start"):
        servers.add(McpToolset(command="no-such-mcp-server-here", name="bad"))
    assert "bad" not in servers
    servers.remove("calc")
    assert second.state == "closed" and servers.names() == []
    with pytest.raises(ToolServerError, match=r"no MCP server named 'calc'; none is added yet"):
        servers.remove("calc")


def test_a_turn_request_names_a_server_and_the_runner_looks_it_up(
    make_runner: RunnerFactory, demo_stdio: ToolsetFactory
) -> None:
    """``%%agent --tools calc`` sends the name; the runner resolves it at the door,
    and an unknown name is refused before the session exists."""
    from agent_nb._runtime.front_door import TurnRequest

    backend = ScriptedBackend()
    runner = make_runner(model=backend, approve_tools="all")
    servers_of(runner).add(demo_stdio(name="calc", tool_filter=["add"]))
    with pytest.raises(ToolServerError, match=r"no MCP server named 'web'; added: calc"):
        runner.start_turn(TurnRequest("add 2 and 3", "t", tools=("calc", "web")))
    assert "t" not in {info.id for info in runner.sessions()}
    backend.enqueue(ToolCallChunk("add", {"a": 2, "b": 3}), "5")
    reply = runner.start_turn(TurnRequest("add 2 and 3", "t", tools=("calc",))).result()
    assert reply.text == "5"
    history = runner.get_or_create_session("t").history
    assert [e.response for e in history if isinstance(e, FunctionResponse)] == [{"result": 5}]
