"""``%%agent`` end to end: a real ipykernel driven by nbclient, as a notebook runs.

nbclient 0.10/0.11 does not put the cell's id in the execute request;
JupyterLab does (``metadata.cellId``), and that is what re-run detection reads.
`LabLikeClient` sends it the way JupyterLab does, so the kernel side is tested
exactly as in the browser.
"""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbformat.v4 import new_code_cell, new_notebook

from tests.html_safety import assert_inert, render_all, render_marked
from tests.waiting import async_wait_until

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(600)]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

XSS = (
    "<script>alert(1)</script> <img src=x onerror=alert(1)> <svg onload=alert(1)> "
    "[x](javascript:alert(1)) and code:\n```html\n<b>shown as code</b>\n```"
)


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
        f"set_runner(AgentRunner(model=ScriptedBackend({replies!r}, token_delay={token_delay})))",
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


@pytest.mark.mlx
def test_cells_share_a_session_and_rerun_rewinds(embedded_model_dir: pathlib.Path) -> None:
    asyncio.run(_cells_share_a_session_and_rerun_rewinds(embedded_model_dir))


async def _cells_share_a_session_and_rerun_rewinds(embedded_model_dir: pathlib.Path) -> None:
    async with kernel_on_model(embedded_model_dir) as kernel:
        first = new_code_cell("%%agent --max-tokens 8\nSay hello to Ada.")
        second = new_code_cell("%%agent --max-tokens 8\nNow say goodbye.")
        await run_cell(kernel, first)
        await run_cell(kernel, second)
        for cell in (first, second):
            (output,) = displays(cell)  # one display handle, updated in place
            # The turn's kernel watch was this output while it streamed: no widget
            # left in the saved notebook.
            assert set(output["data"]) == {"text/markdown", "text/plain"}
            assert output["data"]["text/plain"].strip()  # the model said something
        assert await user_turns(kernel) == ["Say hello to Ada.", "Now say goodbye."]
        await run_cell(kernel, first)  # re-run the first cell
        note, _reply = displays(first)  # the note is Markdown: the command as code, no stream
        assert note["data"]["text/markdown"] == (
            "↺ re-run: this cell's turn and 1 later turn moved to branch 2; "
            "`%agent switch default 2` brings them back"
        )
        assert "%agent switch default 2 brings them back" in note["data"]["text/plain"]
        assert stdout(first) == ""
        assert await user_turns(kernel) == ["Say hello to Ada."]
        sessions = await run(kernel, "%agent sessions")
        (table,) = displays(sessions)
        assert "<td>default</td><td>1</td>" in table["data"]["text/html"]
        # Nothing was lost: the replaced turns come back with a switch.
        await run(kernel, "%agent switch default 2")
        assert await user_turns(kernel) == ["Say hello to Ada.", "Now say goodbye."]
        await run(kernel, "%agent switch default 1")
        assert await user_turns(kernel) == ["Say hello to Ada."]


def test_interrupt_mid_stream_keeps_a_usable_session() -> None:
    asyncio.run(_interrupt_mid_stream_keeps_a_usable_session())


async def _interrupt_mid_stream_keeps_a_usable_session() -> None:
    async with started_kernel() as kernel:
        words = " ".join(f"w{i}" for i in range(400))
        await use_scripted_model(kernel, [words, "after"], token_delay=0.02)
        cell = new_code_cell("%%agent -o partial\ncount slowly")
        task = asyncio.ensure_future(run_cell(kernel, cell))

        def streaming() -> bool:  # the reply is visibly streaming
            shown = displays(cell)
            return bool(shown) and "w3" in streamed(kernel, shown[-1])

        await async_wait_until(streaming, timeout=30, interval=0.05, what="streamed output")
        await kernel.km.interrupt_kernel()
        # The cell fails (so "Run all" stops there) with one plain note: no
        # "UsageError:" label (nobody made a mistake), no traceback.
        with pytest.raises(CellExecutionError) as failed:
            await asyncio.wait_for(task, 60)
        assert failed.value.ename == "TurnInterruptedError"
        (output,) = displays(cell)
        assert output["data"]["text/markdown"].endswith("*(interrupted)*")
        (error,) = [o for o in cell.outputs if o["output_type"] == "error"]
        assert error["traceback"] == [
            "■ interrupted; the partial reply is kept in session 'default', which is ready"
        ]
        assert not [o for o in cell.outputs if o.get("name") == "stderr"]
        check = await run(kernel, "print(partial.interrupted, len(partial.text.split()) < 400)")
        assert stdout(check).split() == ["True", "True"]
        again = await run(kernel, "%%agent\nare you there?")
        assert displays(again)[0]["data"]["text/plain"] == "after"
        assert await user_turns(kernel) == ["count slowly", "are you there?"]


def test_xss_reply_is_inert_in_the_output_bundle() -> None:
    asyncio.run(_xss_reply_is_inert_in_the_output_bundle())


async def _xss_reply_is_inert_in_the_output_bundle() -> None:
    async with started_kernel() as kernel:
        await use_scripted_model(kernel, [XSS])
        cell = await run(kernel, "%%agent\nshow me")
        bundles = [o["data"] for o in displays(cell)]
        assert bundles and all(set(b) == {"text/markdown", "text/plain"} for b in bundles)
        markdown = [b["text/markdown"] for b in bundles]
        for source, marked_html in zip(markdown, render_marked(markdown), strict=True):
            for rendered in [*render_all(source).values(), marked_html]:
                assert_inert(rendered, XSS)
        assert "<b>shown as code</b>" in markdown[-1]  # code stays readable


def test_notebook_help_explain_code_and_cells() -> None:
    asyncio.run(_notebook_help_explain_code_and_cells())


async def _notebook_help_explain_code_and_cells() -> None:
    async with started_kernel() as kernel:
        replies: dict[int, dict[str, Any]] = {}

        def keep_reply(cell: Any, cell_index: int, execute_reply: Any) -> None:
            replies[cell_index] = execute_reply["content"]

        kernel.on_cell_executed = keep_reply
        await run(kernel, "%load_ext agent_nb")
        # A fresh kernel has nothing to explain: a plain note, the cell succeeds.
        fresh = await run(kernel, "%agent explain")
        assert stdout(fresh).startswith("no error to explain yet")
        failing = new_code_cell(
            "total = 10\nshare = total / 0", metadata={"tags": ["raises-exception"]}
        )
        await run_cell(kernel, failing)
        number = failing.execution_count
        cell = await run(kernel, "%agent explain -m scripted")
        assert stdout(cell).startswith(
            f"explaining ZeroDivisionError: division by zero in In [{number}]"
        )
        echoed = displays(cell)[-1]["data"]["text/plain"]  # the scripted model echoes the prompt
        assert "ZeroDivisionError: division by zero" in echoed
        assert "```python\ntotal = 10\nshare = total / 0\n```" in echoed
        assert f"  In [{number}], line 2, in <module>\n    share = total / 0" in echoed
        for internal in ("interactiveshell", "IPython", "ipykernel", "site-packages", "run_code"):
            assert internal not in echoed
        # --code: exactly the first block goes into the reply's set_next_input payload.
        block = "import math\nprint(math.tau)"
        await use_scripted_model(kernel, [f"Here:\n```python\n{block}\n```\n```\nother\n```",
                                          "Only words."])  # fmt: skip
        with_code = await run(kernel, "%%agent --code\nprint tau")
        payloads = replies[kernel.nb.cells.index(with_code)]["payload"]
        assert payloads == [{"source": "set_next_input", "text": block, "replace": False}]
        assert stdout(with_code).strip() == (
            "--code: the reply's first code block is in a new cell below (not run)"
        )
        without = await run(kernel, "%%agent --code\nanother")
        assert replies[kernel.nb.cells.index(without)]["payload"] == []
        assert stdout(without).strip() == "--code: no cell was added: it has no fenced code block"
        # --cells 2: exactly the last two cells' code, labelled with their counts.
        first = await run(kernel, "a = 40")
        second = await run(kernel, "b = 2\nprint(a + b)")
        asked = await run(kernel, "%%agent --cells 2 --outputs\nwhat did I do?")
        context = displays(asked)[-1]["data"]["text/plain"].removeprefix("You said: ")
        assert context == (
            "Context: the code and outputs of the last 2 cells I ran in this notebook.\n\n"
            f"In [{first.execution_count}]:\n```python\na = 40\n```\n\n"
            f"In [{second.execution_count}]:\n```python\nb = 2\nprint(a + b)\n```\n\n"
            f"Out[{second.execution_count}]:\n```text\n42\n```\n\n"
            "what did I do?"
        )
