"""Real kernels for tests: an ipykernel driven by nbclient, as a notebook runs.

nbclient 0.10/0.11 does not put the cell's id in the execute request;
JupyterLab does (``metadata.cellId``), and that is what re-run detection reads.
`LabLikeClient` sends it the way JupyterLab does, so the kernel side is tested
exactly as in the browser.

A kernel start costs seconds, so tests that need a kernel but not a fresh one
share one: `SharedKernel` (the ``shared_kernel`` fixture, `tests.fixtures_notebooks`).
Each such test gets an empty notebook, brings its own runner (`use_scripted_model`
shuts the previous one down) and sets no ``%config``; a test that needs a fresh
kernel (nothing loaded yet, its own ``ipython_config.py``, ``%config`` values, no
earlier error) starts its own with `started_kernel`.
"""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import threading
from collections.abc import AsyncIterator, Coroutine
from typing import Any, TypeVar

from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

__all__ = [
    "WIDGET_VIEW",
    "LabLikeClient",
    "SharedKernel",
    "displays",
    "kernel_on_model",
    "run",
    "run_cell",
    "started_kernel",
    "stdout",
    "streamed",
    "use_scripted_model",
    "user_turns",
]

T = TypeVar("T")

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


class LabLikeClient(AsyncKernelClient):
    """Puts ``cellId`` in the execute request metadata, as JupyterLab does."""

    cell_id: str | None = None

    def execute(  # type: ignore[override]
        self,
        code: str,
        silent: bool = False,
        store_history: bool = True,
        user_expressions: dict[str, Any] | None = None,
        allow_stdin: bool | None = None,
        stop_on_error: bool = True,
    ) -> str:
        content = {
            "code": code,
            "silent": silent,
            "store_history": store_history,
            "user_expressions": user_expressions or {},
            "allow_stdin": self.allow_stdin if allow_stdin is None else allow_stdin,
            "stop_on_error": stop_on_error,
        }
        metadata = {"cellId": self.cell_id} if self.cell_id else {}
        msg = self.session.msg("execute_request", content, metadata=metadata)
        self.shell_channel.send(msg)
        msg_id: str = msg["header"]["msg_id"]
        return msg_id


def _notebook(*sources: str) -> Any:
    return new_notebook(cells=[new_code_cell(s) for s in sources])


@contextlib.asynccontextmanager
async def started_kernel() -> AsyncIterator[NotebookClient]:
    km = AsyncKernelManager(kernel_name="python3")
    km.client_factory = LabLikeClient
    client = NotebookClient(_notebook(), km=km, timeout=300, startup_timeout=120)

    def send_cell_id(cell: Any, **_: Any) -> None:
        client.kc.cell_id = cell.get("id")

    client.on_cell_execute = send_cell_id
    async with client.async_setup_kernel():
        yield client


@contextlib.asynccontextmanager
async def kernel_on_model(model_dir: pathlib.Path) -> AsyncIterator[NotebookClient]:
    """A started kernel with the extension loaded and ``model_dir`` as its model."""
    async with started_kernel() as kernel:
        await run(kernel, "%load_ext agent_nb")
        await run(kernel, f"%config AgentMagics.default_model = 'mlx:{model_dir}'")
        yield kernel


async def run_cell(client: NotebookClient, cell: Any) -> Any:
    """Execute a cell of the client's notebook (added to it first if new)."""
    cells = client.nb.cells
    index = next((i for i, c in enumerate(cells) if c is cell), None)
    if index is None:
        cells.append(cell)
        index = len(cells) - 1
    await client.async_execute_cell(cell, index)
    return cells[index]


async def run(client: NotebookClient, source: str) -> Any:
    return await run_cell(client, new_code_cell(source))


async def use_scripted_model(
    client: NotebookClient, replies: list[str], token_delay: float = 0.0
) -> None:
    """Load the extension on a kernel runner whose model is a ScriptedBackend."""
    await run(client, "%load_ext agent_nb")
    await run(
        client,
        "from agent_nb import AgentRunner, set_runner\n"
        "from agent_nb.backends import ScriptedBackend\n"
        f"_previous = set_runner(AgentRunner(model=ScriptedBackend({replies!r}, "
        f"token_delay={token_delay})))\n"
        "if _previous is not None:\n"
        "    _previous.shutdown()  # an earlier test's runner, in a shared kernel",
    )


def _shown(cell: Any) -> list[dict[str, Any]]:
    return [o for o in cell.outputs if o["output_type"] in ("display_data", "execute_result")]


def displays(cell: Any) -> list[dict[str, Any]]:
    """The cell's displays. While a turn streams the reply's output is a widget
    that watches the kernel (`turn_status`; the client says it is a front end),
    replaced in the same output by the final text."""
    return _shown(cell)


def streamed(client: NotebookClient, output: dict[str, Any]) -> str:
    """The reply text an output shows: while the turn streams the output is the
    turn's widget (`turn_status`), whose text arrives as its synced state."""
    view = output["data"].get(WIDGET_VIEW)
    if view is None:
        return str(output["data"].get("text/plain", ""))
    state = client.widget_state.get(view["model_id"], {})
    return str(state.get("markdown") or state.get("plain") or "")


def stdout(cell: Any) -> str:
    return "".join(o["text"] for o in cell.outputs if o.get("name") == "stdout")


async def user_turns(client: NotebookClient, session: str = "default") -> list[str]:
    probe = await run(
        client,
        "from agent_nb import get_runner, TextMessage\n"
        f"print([e.text for e in get_runner().get_or_create_session({session!r}).history\n"
        "       if isinstance(e, TextMessage) and e.author == 'user'])",
    )
    return eval(stdout(probe))  # a printed list of str, from our own probe


class SharedKernel:
    """One started kernel that the tests which need no fresh one share.

    Its event loop runs on a thread of its own: each test runs its scenario there
    (`call`), whatever loops the test's own thread starts or keeps running (a
    browser test's Playwright keeps one on the main thread until the session ends).
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="shared kernel loop", daemon=True
        )
        self._thread.start()
        self._exit = contextlib.AsyncExitStack()
        self.client: NotebookClient = self.call(self._exit.enter_async_context(started_kernel()))

    def call(self, scenario: Coroutine[Any, Any, T], timeout: float = 600) -> T:
        """Run ``scenario`` on the kernel's loop and return what it returns."""
        return asyncio.run_coroutine_threadsafe(scenario, self.loop).result(timeout)

    def fresh_notebook(self) -> NotebookClient:
        """The client, with an empty notebook and no hook an earlier test set."""
        self.client.nb = _notebook()
        self.client.on_cell_executed = None
        return self.client

    def close(self) -> None:
        try:
            self.call(self._exit.aclose(), timeout=120)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(30)
            self.loop.close()
