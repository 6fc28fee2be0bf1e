"""``%agent mcp add|list|remove``, ``%%agent --tools`` and ``AgentMagics.mcp_servers`` in a
real IPython shell, against the demo server (the SDK's `MCPServer`) over stdio."""

from __future__ import annotations

import shlex
import sys

import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import FunctionCall, FunctionResponse, get_runner
from agent_nb._runtime.mcp import servers_of
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from tests.fixtures_magics import magics, run, usage_error

from .conftest import DEMO

DEMO_LINE = f"{shlex.quote(sys.executable)} {shlex.quote(str(DEMO))}"


@pytest.mark.slow  # starts the demo server: a process that imports the MCP SDK
def test_add_starts_the_server_and_says_it_runs_with_the_kernels_rights(
    shell: InteractiveShell,
) -> None:
    result, cap = run(shell, f"%agent mcp add calc -- {DEMO_LINE}")
    assert result.success, cap.stderr
    said = cap.stdout.strip()
    assert said.startswith("added MCP server 'calc' (stdio: ")
    assert "with 9 tools: add, stats, pid, picture, note, fail, hang, wait_to_be_killed" in said
    assert "It runs with this kernel's rights" in said
    assert said.endswith("Use it with %%agent --tools calc")
    assert servers_of(get_runner()).get("calc").state == "running"
    result, cap = run(shell, "%agent mcp list")
    lines = cap.stdout.splitlines()
    assert lines[0].startswith("calc  [running]  stdio: ")
    assert lines[1] == "    read-only tools: add, stats, pid, picture, hang, header"
    assert lines[2] == "    other tools (they ask before acting): note, fail, wait_to_be_killed"
    result, cap = run(shell, "%agent mcp remove calc")
    assert cap.stdout.strip() == "removed MCP server 'calc' (closed)"
    result, cap = run(shell, "%agent mcp list")
    assert cap.stdout.startswith("no MCP servers; add one with %agent mcp add NAME")


def test_a_server_that_cannot_start_fails_add_in_one_line(shell: InteractiveShell) -> None:
    result, cap = run(shell, "%agent mcp add ghost -- no-such-mcp-server-here --flag")
    usage_error(result, cap, "MCP server 'ghost' could not start: no program")
    result, cap = run(shell, "%agent mcp add web http://127.0.0.1:9/mcp")
    usage_error(result, cap, "MCP server 'web' could not be reached at http://127.0.0.1:9/mcp")
    assert servers_of(get_runner()).names() == []  # nothing kept
    for line, fragment in [
        ("%agent mcp", "%agent mcp needs a command"),
        ("%agent mcp start x", "unknown %agent mcp command 'start'"),
        ("%agent mcp add", "needs a server name first"),
        ("%agent mcp add x", "needs a URL, or '--' and a command"),
        ("%agent mcp add x --", "needs a command after '--'"),
        ("%agent mcp add x --header a=b -- cmd", "unexpected '--header'; allowed: ['--env',"),
        ("%agent mcp add x --timeout soon -- cmd", "--timeout takes seconds (> 0)"),
        ("%agent mcp add x ftp://h/mcp", "url must be an http:// or https:// URL"),
        ("%agent mcp remove nobody", "no MCP server named 'nobody'"),
    ]:
        result, cap = run(shell, line)
        usage_error(result, cap, fragment)


@pytest.mark.slow  # starts the demo server: a process that imports the MCP SDK
def test_a_cell_uses_the_servers_named_by_tools(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    result, cap = run(shell, f"%agent mcp add calc --timeout 20 -- {DEMO_LINE}")
    assert result.success, cap.stderr
    backend.enqueue(ToolCallChunk("add", {"a": 19, "b": 23}), "It is 42.")
    result, cap = run(shell, "%%agent --tools calc\nWhat is 19 + 23?")
    assert result.success, cap.stderr
    history = get_runner().get_or_create_session("default").history
    [call] = [e for e in history if isinstance(e, FunctionCall)]
    assert (call.name, call.server) == ("add", "calc")
    [response] = [e for e in history if isinstance(e, FunctionResponse)]
    assert response.response == {"result": 42}
    # without --tools the cell's agent has no tools: the session's own agent is unchanged
    assert get_runner().get_or_create_session("default").agent.tools == ()
    # --tool-choice forces the first call (under the grammar on a local model), then
    # the model answers freely: a small model that would not call a tool gets one.
    backend.enqueue(ToolCallChunk("add", {"a": 1, "b": 2}), "It is 3.")
    result, cap = run(shell, "%%agent --tools calc --tool-choice add\nOne plus two?")
    assert result.success, cap.stderr
    assert [r.tool_choice for r in backend.requests[-2:]] == ["add", "auto"]
    result, cap = run(shell, "%%agent --tools calc --tool-choice sometimes\nhi")
    usage_error(result, cap, "tool_choice must be")
    result, cap = run(shell, "%%agent --tools calc,web\nhi")
    usage_error(result, cap, "no MCP server named 'web'; added: calc")
    result, cap = run(shell, "%%agent --tools calc,\nhi")
    usage_error(result, cap, "--tools takes server names separated by commas")


@pytest.mark.slow  # starts the demo server: a process that imports the MCP SDK
def test_mcp_servers_from_the_config_start_on_first_use(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    config = {
        "mcpServers": {
            "calc": {"command": sys.executable, "args": [str(DEMO)], "env": {"X": "1"}},
            "off": {"command": "nothing", "disabled": True},
        }
    }
    result, cap = run(shell, f"%config AgentMagics.mcp_servers = {config!r}")
    assert result.success, cap.stderr
    servers = servers_of(get_runner())
    assert servers.names() == ["calc"] and servers.get("calc").state == "not started"
    result, cap = run(shell, "%agent mcp list")
    assert "starts on first use (%%agent --tools calc)" in cap.stdout
    backend.enqueue(ToolCallChunk("stats", {"values": [2, 4]}), "Mean 3.")
    result, cap = run(shell, "%%agent --tools calc\nmean of 2 and 4?")
    assert result.success, cap.stderr
    assert servers.get("calc").state == "running"
    responses = [
        e.response
        for e in get_runner().get_or_create_session("default").history
        if isinstance(e, FunctionResponse)
    ]
    assert responses == [{"count": 2, "mean": 3.0}]
    bad = {"calc": {"comand": "x"}}
    result, cap = run(shell, f"%config AgentMagics.mcp_servers = {bad!r}")
    assert not result.success
    assert "unknown keys ['comand']" in cap.stderr
    assert magics(shell).mcp_servers == config  # the refused value changed nothing


# A server that starts and never finishes its handshake (its one line on stderr is kept).
SILENT_LINE = "sh -c 'echo starting >&2; exec sleep 99'"


def test_the_start_timeout_is_set_from_the_notebook(shell: InteractiveShell) -> None:
    """The "did not finish starting" error says "raise start_timeout": both ways of
    adding a server from a notebook take it (round 5, fault 2)."""
    result, cap = run(shell, f"%agent mcp add mute --start-timeout 1.5 -- {SILENT_LINE}")
    usage_error(result, cap, "MCP server 'mute' did not finish starting within 1.5 s")
    result, cap = run(shell, "%agent mcp add x --start-timeout never -- cmd")
    usage_error(result, cap, "--start-timeout takes seconds (> 0), got 'never'")
    config = {"mute": {"command": "sh", "args": ["-c", "exec sleep 99"], "start_timeout": 1.5}}
    result, cap = run(shell, f"%config AgentMagics.mcp_servers = {config!r}")
    assert result.success, cap.stderr
    result, cap = run(shell, "%%agent --tools mute\nhi")
    assert not result.success
    assert "MCP server 'mute' did not finish starting within 1.5 s" in cap.stderr
    bad = {"mute": {"command": "sh", "start_timeout": 0}}
    result, cap = run(shell, f"%config AgentMagics.mcp_servers = {bad!r}")
    assert "start_timeout must be a positive number of seconds, got 0" in cap.stderr
