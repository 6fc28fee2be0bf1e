"""Replay and stale marks as a notebook sees them: a real IPython shell, the
scripted model under a replay identity (agent_nb._runtime.replay, _jupyter.staleness)."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import CapturedIO

from agent_nb import get_runner
from agent_nb._jupyter.staleness import STALE_MARKS
from agent_nb.backends import ScriptedBackend
from tests.fixtures_magics import final_bundle, magics

CHANGED = "changed since this answer — re-run the cell"


@pytest.fixture(autouse=True)
def replay_on(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    monkeypatch.setenv("AGENT_NB_REPLAY", "1")
    monkeypatch.setenv("AGENT_NB_REPLAY_FILE", str(tmp_path / "replay.sqlite"))


@pytest.fixture
def backend() -> ScriptedBackend:
    return ScriptedBackend(replay_identity="notebook")


def run(sh: InteractiveShell, source: str, cell_id: str | None = None) -> tuple[Any, CapturedIO]:
    """A cell as a notebook front end runs it: numbered, in the input history."""
    from IPython.utils.capture import capture_output

    with capture_output() as cap:
        result = sh.run_cell(source, store_history=True, cell_id=cell_id)
    return result, cap


def _display_id(cap: CapturedIO) -> str:
    ids = [o.transient.get("display_id") for o in cap.outputs if o.transient]
    assert ids, "the turn's output has a display id"
    return str(ids[0])


def _marks(cap: CapturedIO, display_id: str) -> list[str]:
    """The texts the cell's output was rewritten to during ``cap``'s cell."""
    return [
        o.data.get("text/plain", "")
        for o in cap.outputs
        if o.update and (o.transient or {}).get("display_id") == display_id
    ]


# -- replay ------------------------------------------------------------------------


def test_a_rerun_cell_replays_and_says_how_to_ask_again(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    backend.enqueue("Paris is the capital.")
    _, first = run(shell, "%%agent\nWhat is the capital of France?", cell_id="c1")
    _, second = run(shell, "%%agent\nWhat is the capital of France?", cell_id="c1")
    text = final_bundle(second)["text/markdown"]
    assert "Paris is the capital." in text
    assert "↻ replayed" in text and "`%%agent --fresh`" in text
    assert "↻" not in final_bundle(first)["text/markdown"]
    assert len(backend.requests) == 1  # the re-run did not reach the model
    history = get_runner().get_or_create_session("default").history
    assert [getattr(e, "text", None) for e in history].count("Paris is the capital.") == 1


def test_fresh_and_the_switch_ask_the_model(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    backend.enqueue("One.", "Two.", "Three.")
    run(shell, "%%agent\nhello", cell_id="c1")
    _, cap = run(shell, "%%agent --fresh\nhello", cell_id="c1")
    assert "Two." in final_bundle(cap)["text/markdown"]
    assert "↻" not in final_bundle(cap)["text/markdown"]
    run(shell, "%config AgentMagics.replay = False")
    _, cap = run(shell, "%%agent\nhello", cell_id="c1")
    assert "Three." in final_bundle(cap)["text/markdown"]
    assert magics(shell).replay is False


def test_sessions_shows_the_replay_cache(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    backend.enqueue("Hi.")
    run(shell, "%%agent\nhello", cell_id="c1")
    run(shell, "%%agent\nhello", cell_id="c1")
    _, cap = run(shell, "%agent sessions")
    assert "replay cache: 1 answer," in cap.stdout and "1 replayed in this kernel" in cap.stdout


# -- stale marks --------------------------------------------------------------------


def test_data_changes_mark_the_answer_and_a_rerun_clears_it(shell: InteractiveShell) -> None:
    run(
        shell,
        "import pandas as pd\ndf = pd.DataFrame({'year': [2019, 2021, 2022], 'x': [1, 2, 3]})",
    )
    _, cap = run(shell, "%%agent --data df --data-mode summary\nSummarise.", cell_id="ask")
    display_id = _display_id(cap)
    _, cap = run(shell, "y = 1")  # nothing the answer read
    assert _marks(cap, display_id) == []
    _, cap = run(shell, "df = df[df.year > 2020]")
    (marked,) = _marks(cap, display_id)
    assert f"⚠ `df` {CHANGED}" in marked
    _, cap = run(shell, "z = 2")  # still stale: not written again
    assert _marks(cap, display_id) == []
    _, cap = run(shell, "%%agent --data df --data-mode summary\nSummarise.", cell_id="ask")
    new_id = _display_id(cap)
    _, cap = run(shell, "w = 3")
    assert _marks(cap, new_id) == [] and magics(shell).staleness.stale() == {}


def test_the_data_agent_answer_is_marked_and_unmarked(shell: InteractiveShell) -> None:
    run(shell, "import pandas as pd\nsales = pd.DataFrame({'region': ['N', 'S'], 'total': [5, 7]})")
    _, cap = run(shell, "%%agent --data sales\nWhich region sold most?", cell_id="ask")
    display_id = _display_id(cap)
    _, cap = run(shell, "sales.loc[0, 'total'] = 50")
    (marked,) = _marks(cap, display_id)
    assert f"`sales` {CHANGED}" in marked
    _, cap = run(shell, "sales.loc[0, 'total'] = 5")  # back as it was: the mark goes
    (cleared,) = _marks(cap, display_id)
    assert CHANGED not in cleared


def test_an_interpolated_variable_marks_the_answer(shell: InteractiveShell) -> None:
    run(shell, "n = 3")
    _, cap = run(shell, "%%agent\nWhat is {n} squared?", cell_id="ask")
    display_id = _display_id(cap)
    _, cap = run(shell, "n = 3")  # the same value again: not a change
    assert _marks(cap, display_id) == []
    _, cap = run(shell, "n = 4")
    (marked,) = _marks(cap, display_id)
    assert f"⚠ `n` {CHANGED}" in marked


def test_cells_sent_as_context_mark_the_answer_when_rerun_with_other_code(
    shell: InteractiveShell,
) -> None:
    run(shell, "total = 1 + 1", cell_id="code")
    count = shell.execution_count - 1
    _, cap = run(shell, "%%agent --cells 1\nWhat did I compute?", cell_id="ask")
    display_id = _display_id(cap)
    _, cap = run(shell, "total = 1 + 1", cell_id="code")  # the same code again
    assert _marks(cap, display_id) == []
    _, cap = run(shell, "total = 2 + 2", cell_id="code")
    (marked,) = _marks(cap, display_id)
    assert f"⚠ `In[{count}]` {CHANGED}" in marked


def test_an_in_reference_marks_the_answer(shell: InteractiveShell) -> None:
    run(shell, "def f(x):\n    return x + 1", cell_id="code")
    count = shell.execution_count - 1
    _, cap = run(shell, f"%%agent\nExplain {{In[{count}]}}", cell_id="ask")
    display_id = _display_id(cap)
    _, cap = run(shell, "def f(x):\n    return x * 2", cell_id="code")
    (marked,) = _marks(cap, display_id)
    assert f"`In[{count}]` {CHANGED}" in marked


def test_marks_reach_the_widget_and_never_run_anything(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    from agent_nb import ChatWidget

    run(shell, "n = 3")
    run(shell, "%%agent\nWhat is {n} squared?", cell_id="ask")
    widget = ChatWidget("default")
    try:
        turn: Any = next(e for e in widget.transcript if e["kind"] == "turn")
        assert turn["stale"] is None
        asked = len(backend.requests)
        run(shell, "n = 5")
        turn = next(e for e in widget.transcript if e["kind"] == "turn")
        assert turn["stale"] == f"⚠ `n` {CHANGED}"
        assert STALE_MARKS.of_session("default") == {turn["invocation_id"]: turn["stale"]}
        assert len(backend.requests) == asked  # a mark runs nothing
        run(shell, "n = 3")
        turn = next(e for e in widget.transcript if e["kind"] == "turn")
        assert turn["stale"] is None
    finally:
        widget.close()
