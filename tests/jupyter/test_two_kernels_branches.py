"""Two kernels on one SQLite store agree about branches.

Kernel A is a real IPython shell with the magics; kernel B is a second
`AgentRunner` on the same file (its own store connection and turn-lease
holder, as another kernel process has; tests/runtime/test_shared_store.py
runs real processes). Read commands reload when the stored revision moved,
and A's re-run note counts what actually moved, B's turns included.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import CapturedIO

from agent_nb import AgentRunner, set_runner
from agent_nb.backends import ScriptedBackend
from tests.fixtures_magics import run


def _shown(cap: CapturedIO) -> str:
    data: dict[str, str] = cap.outputs[-1].data
    return data["text/plain"]


@pytest.fixture
def kernels(
    shell: InteractiveShell, backend: ScriptedBackend, tmp_path: Path
) -> Iterator[tuple[AgentRunner, AgentRunner]]:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    a = AgentRunner(model=backend, store=url)
    b = AgentRunner(model=ScriptedBackend(), store=url)
    previous = set_runner(a)
    yield a, b
    b.shutdown()
    set_runner(previous)
    a.shutdown()


def test_read_commands_reload_and_the_rerun_note_counts_the_other_kernels_turns(
    shell: InteractiveShell, kernels: tuple[AgentRunner, AgentRunner]
) -> None:
    a, b = kernels
    assert run(shell, "%%agent demo\nhello from A", cell_id="first")[0].success
    in_b = b.get_or_create_session("demo")
    in_b.run("B's first")
    in_b.run("B's second")

    # A reads what B wrote, without running a turn.
    _, cap = run(shell, "%agent history demo")
    assert "B's second" in _shown(cap)
    _, cap = run(shell, "%agent branches demo")
    assert "**branch 1** (active): 3 turns" in _shown(cap)
    _, cap = run(shell, "%agent sessions")
    assert "demo" in _shown(cap) and a.get_or_create_session("demo").turns == 3

    # A re-runs its first cell: B's turns move with it, and the note says whose.
    result, cap = run(shell, "%%agent demo\nhello again from A", cell_id="first")
    assert result.success
    assert (
        cap.outputs[0]
        .data["text/plain"]
        .startswith(
            "↺ re-run: this cell's turn and 2 later turns (2 from another kernel) moved to branch 2"
        )
    )
    _, cap = run(shell, "%agent branches demo")
    assert "**branch 2**: 3 turns, 3 not on the active one" in _shown(cap)

    # B sees A's rewind at once: its read commands reload too.
    set_runner(b)
    try:
        _, cap = run(shell, "%agent branches demo")
        assert "**branch 1** (active): 1 turn\n" in _shown(cap) + "\n"
        assert "**branch 2**: 3 turns" in _shown(cap)
        _, cap = run(shell, "%agent history demo")
        assert (
            "hello again from A" in _shown(cap)
            and "B's second" not in _shown(cap).split("Branches")[0]
        )
        assert in_b.branch == 1 and len(in_b.branches()) == 2
    finally:
        set_runner(a)


def test_refresh_is_one_cheap_read_when_nothing_moved(
    kernels: tuple[AgentRunner, AgentRunner],
) -> None:
    a, b = kernels
    mine, theirs = a.get_or_create_session("s"), b.get_or_create_session("s")
    mine.run("one")
    assert not mine.refresh()  # its own turn: nothing to reload
    assert theirs.refresh() and theirs.turns == 1
    resets: list[object] = []
    theirs.subscribe(lambda e: None, resets.append)
    mine.rewind(mine.invocations()[0])
    assert theirs.refresh() and resets == [None]  # listeners (a widget) redraw
    assert theirs.turns == 0 and len(theirs.branches()) == 2
    assert not theirs.refresh()


def test_a_widget_view_catching_up_on_focus_shows_the_other_kernels_turns(
    shell: InteractiveShell, kernels: tuple[AgentRunner, AgentRunner]
) -> None:
    from agent_nb._jupyter.widget.chat_widget import ChatWidget

    a, b = kernels
    a.get_or_create_session("chat").run("from A")
    widget = ChatWidget(session="chat", runner=a, evict_on_close=False)
    try:
        b.get_or_create_session("chat").run("from B")
        texts = [e["text"] for e in widget.transcript if e["kind"] == "user"]
        assert texts == ["from A"]
        widget._on_frontend_msg(widget, {"type": "catch_up"}, [])  # what focus sends
        texts = [e["text"] for e in widget.transcript if e["kind"] == "user"]
        assert texts == ["from A", "from B"]
    finally:
        widget.close()


@pytest.mark.kernel
@pytest.mark.timeout(600)
def test_two_real_kernels_read_each_others_rewind(tmp_path: Path) -> None:
    """Issue 39, 3.1, with two real kernels (nbclient): after kernel A re-runs a cell,
    kernel B's ``%agent branches`` and ``%agent history`` read the store, with no turn of
    B's own in between, whether B had the session open or never read it before."""
    import asyncio

    from nbformat.v4 import new_code_cell

    from tests.jupyter.test_magics_kernel import displays, run_cell, started_kernel
    from tests.jupyter.test_magics_kernel import run as run_in

    setup = (
        f"%config AgentMagics.store = 'sqlite:///{tmp_path / 'shared.db'}'\n"
        "%config AgentMagics.default_model = 'scripted'"
    )

    def text(cell: Any) -> str:
        return "\n".join(o["data"]["text/plain"] for o in displays(cell))

    async def scenario() -> None:
        async with started_kernel() as a, started_kernel() as b:
            for kernel in (a, b):
                await run_in(kernel, "%load_ext agent_nb")
                await run_in(kernel, setup)
            first = new_code_cell("%%agent demo\nfirst from A")
            await run_cell(a, first)
            await run_cell(a, new_code_cell("%%agent other\nnever read by B"))
            shown = text(await run_in(b, "%agent branches demo"))  # B opens it
            assert "**branch 1** (active): 1 turn" in shown and "branch 2" not in shown
            await run_cell(a, first)  # the re-run: a rewind, then the new turn
            await run_cell(a, new_code_cell("%%agent other\nagain"))
            shown = text(await run_in(b, "%agent branches demo"))
            assert "**branch 2**: 1 turn, 1 not on the active one" in shown
            history = text(await run_in(b, "%agent history demo"))
            assert "**branch 2**" in history and "You said: first from A" in history
            other = text(await run_in(b, "%agent history other"))  # first read in B
            assert "never read by B" in other

    asyncio.run(scenario())
