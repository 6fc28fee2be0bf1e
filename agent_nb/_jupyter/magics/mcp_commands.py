"""``%agent mcp add|list|remove``: the kernel's MCP servers, by name.

::

    %agent mcp add files -- npx -y @modelcontextprotocol/server-filesystem ./course
    %agent mcp add search http://127.0.0.1:8000/mcp --header "Authorization=Bearer x"
    %agent mcp list
    %agent mcp remove files

``add`` starts the server at once, so a missing command, a URL that does not
answer or a refused handshake fails the cell in one line naming the server,
and nothing is kept. It says, every time, that the server runs with the
kernel's rights. Only a person typing here (or ``ipython_config.py``) adds a
server: nothing a model writes reaches this parser. The servers belong to the
kernel's runner (`servers_of`) and are closed with it.
"""

from __future__ import annotations

from collections.abc import Callable

from IPython.core.error import UsageError

from ..._runtime.face import DEFAULT_START_TIMEOUT, DEFAULT_TIMEOUT, McpServers, McpToolset

__all__ = ["MCP_HELP", "RIGHTS_NOTE", "mcp_command"]

MCP_HELP = (
    "%agent mcp add NAME [--env KEY=VALUE]... [--timeout S] [--start-timeout S] -- "
    "COMMAND ARGS... | "
    "%agent mcp add NAME URL [--header KEY=VALUE]... [--timeout S] [--start-timeout S] | "
    "%agent mcp list | %agent mcp remove NAME"
)

RIGHTS_NOTE = (
    "It runs with this kernel's rights: it can read, change and send whatever this "
    "kernel can. Add only servers you trust."
)


def mcp_command(
    argv: list[str], servers: McpServers, *, timeout: Callable[[], float] = lambda: DEFAULT_TIMEOUT
) -> None:
    """Run ``%agent mcp ARGV`` on ``servers``; ``timeout`` is the kernel's default."""
    if not argv:
        raise UsageError(f"%agent mcp needs a command: {MCP_HELP}")
    command, rest = argv[0], argv[1:]
    if command == "add":
        _add(rest, servers, timeout())
    elif command == "list":
        if rest:
            raise UsageError(f"%agent mcp list takes no arguments, got {rest}")
        print("\n".join(server_lines(servers)))
    elif command == "remove":
        if len(rest) != 1:
            raise UsageError(f"%agent mcp remove takes one server name, got {rest}")
        toolset = servers.get(rest[0])
        servers.remove(rest[0])
        print(f"removed MCP server {toolset.name!r} ({toolset.state})")
    else:
        raise UsageError(f"unknown %agent mcp command {command!r}; {MCP_HELP}")


def _add(argv: list[str], servers: McpServers, default_timeout: float) -> None:
    if not argv or argv[0].startswith("-"):
        raise UsageError(f"%agent mcp add needs a server name first; {MCP_HELP}")
    name, rest = argv[0], argv[1:]
    command: list[str] = []
    if "--" in rest:
        at = rest.index("--")
        rest, command = rest[:at], rest[at + 1 :]
        if not command:
            raise UsageError(f"%agent mcp add {name} -- needs a command after '--'")
    url = None
    if not command:
        if not rest or rest[0].startswith("-"):
            raise UsageError(
                f"%agent mcp add {name} needs a URL, or '--' and a command; {MCP_HELP}"
            )
        url, rest = rest[0], rest[1:]
    options = _options(
        rest, allowed={"--timeout", "--start-timeout", "--header" if url else "--env"}
    )
    # --start-timeout bounds the start alone (handshake and tool list): the
    # "did not finish starting" error tells the reader to raise it.
    seconds = float(options.pop("--timeout", [str(default_timeout)])[-1])
    start = float(options.pop("--start-timeout", [str(DEFAULT_START_TIMEOUT)])[-1])
    pairs = _pairs(options.get("--header" if url else "--env", []))
    if url is not None:
        toolset = McpToolset(
            url=url, headers=pairs or None, name=name, timeout=seconds, start_timeout=start
        )
    else:
        toolset = McpToolset(
            command=command[0], args=command[1:], env=pairs or None, name=name,
            timeout=seconds, start_timeout=start,
        )  # fmt: skip
    kept = servers.add(toolset)  # starts it: a server that cannot start fails here
    tools = ", ".join(t.name for t in kept.tools) or "none"
    print(
        f"added MCP server {name!r} ({kept.transport}: {kept.where}) with "
        f"{len(kept.tools)} tools: {tools}. {RIGHTS_NOTE} Use it with %%agent --tools {name}"
    )


def _options(argv: list[str], *, allowed: set[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    it = iter(argv)
    for word in it:
        if word not in allowed:
            raise UsageError(f"%agent mcp add: unexpected {word!r}; allowed: {sorted(allowed)}")
        value = next(it, None)
        if value is None:
            raise UsageError(f"%agent mcp add: {word} needs a value")
        found.setdefault(word, []).append(value)
    for flag in ("--timeout", "--start-timeout"):
        if flag not in found:
            continue
        try:
            seconds = float(found[flag][-1])
        except ValueError:
            seconds = -1.0
        if not seconds > 0:
            raise UsageError(f"{flag} takes seconds (> 0), got {found[flag][-1]!r}")
    return found


def _pairs(values: list[str]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key:
            raise UsageError(f"expected KEY=VALUE, got {value!r}")
        pairs[key] = rest
    return pairs


def server_lines(servers: McpServers) -> list[str]:
    """``%agent mcp list``: each server, its state and its tools (read-only ones marked)."""
    toolsets = list(servers)
    if not toolsets:
        return ["no MCP servers; add one with " + MCP_HELP.split(" | ")[0]]
    lines = []
    for toolset in toolsets:
        lines.append(f"{toolset.name}  [{toolset.state}]  {toolset.transport}: {toolset.where}")
        if toolset.error:
            lines.append(f"    {toolset.error}")
        if toolset.listed:
            reading = [t.name for t in toolset.tools if t.pure]
            acting = [t.name for t in toolset.tools if not t.pure]
            lines.append(f"    read-only tools: {', '.join(reading) or 'none'}")
            lines.append(f"    other tools (they ask before acting): {', '.join(acting) or 'none'}")
        elif toolset.state == "not started":
            lines.append("    starts on first use (%%agent --tools " + toolset.name + ")")
    return lines
