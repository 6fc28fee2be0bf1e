"""An MCP server written with the SDK's own server class, for the tests.

``python demo_server.py`` serves over stdio; ``python demo_server.py --http
PORT`` over streamable HTTP on 127.0.0.1:PORT (path ``/mcp``). Its tools
cover what the client must handle: a read-only tool and one that acts, text,
structured content, an image, a tool error, a call that never answers, and a
call that waits to be killed (it writes its pid to ``$DEMO_PID_FILE`` first).
"""

from __future__ import annotations

import os
import pathlib
import sys

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel

server = MCPServer("demo", log_level="WARNING")
READ_ONLY = ToolAnnotations(readOnlyHint=True)


class Stats(BaseModel):
    count: int
    mean: float


@server.tool(annotations=READ_ONLY)
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


@server.tool(annotations=READ_ONLY)
def stats(values: list[float]) -> Stats:
    """Count and mean of some numbers."""
    return Stats(count=len(values), mean=sum(values) / len(values))


@server.tool(annotations=READ_ONLY)
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool(annotations=READ_ONLY)
def picture() -> list[TextContent | ImageContent]:
    """A caption and a tiny PNG."""
    png = (
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9a"
        "wAAAABJRU5ErkJggg=="
    )
    return [
        TextContent(type="text", text="a red dot:"),
        ImageContent(type="image", data=png, mime_type="image/png"),
    ]


@server.tool()
def note(path: str, text: str) -> str:
    """Write a note to a file (a tool that acts)."""
    pathlib.Path(path).write_text(text)
    return f"wrote {len(text)} characters"


@server.tool()
def fail(message: str) -> str:
    """Always fails, saying ``message``."""
    raise ToolError(message)


@server.tool(annotations=READ_ONLY)
async def hang() -> str:
    """Never answers."""
    await anyio.sleep(3600)
    return "late"


@server.tool()
async def wait_to_be_killed() -> str:
    """Writes its pid to $DEMO_PID_FILE, then waits."""
    pathlib.Path(os.environ["DEMO_PID_FILE"]).write_text(str(os.getpid()))
    await anyio.sleep(3600)
    return "not killed"


@server.tool(annotations=READ_ONLY)
def header(name: str, ctx: Context) -> str:
    """One HTTP request header the server received (empty over stdio)."""
    request = ctx.request_context.request
    return "" if request is None else str(request.headers.get(name, ""))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
