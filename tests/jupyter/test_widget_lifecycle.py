"""ChatWidget lifecycle, Python side: views, the grace period, ownership, kernel settings.

The widget runs on a real runner and real comms (`RecordingComm`, as
tests/test_widget.py); view messages go in the way a kernel delivers them.
"""

from __future__ import annotations

import time
from typing import Any

import comm
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.display import display
from IPython.utils.capture import capture_output

from agent_nb import AgentRunner, GenerationConfig, get_runner
from agent_nb._jupyter.magics.agent_magics import CELLS_HOLDER
from agent_nb._jupyter.widget import outputs
from agent_nb._jupyter.widget.chat_widget import CLOSE_GRACE_S, WIDGET_VIEW, ChatWidget
from agent_nb.backends import ScriptedBackend
from agent_nb.errors import SessionClosedError
from agent_nb.stores import SQLiteStore
from tests.fixtures_magics import run
from tests.fixtures_runtime import RunnerFactory
from tests.jupyter.test_widget import RecordingComm, comm_of, send_and_wait, wait_for

GRACE = 0.3


@pytest.fixture(autouse=True)
def recording_comms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    monkeypatch.setattr(ChatWidget, "close_grace_s", GRACE)


def view(w: ChatWidget, event: str, view_id: str = "v1", page: str = "p1", **extra: Any) -> None:
    live = extra.pop("live", [view_id] if event == "attached" else [])
    comm_of(w).from_frontend(
        {"type": "view", "event": event, "page_id": page, "view_id": view_id, "live": live}
    )


def live_ids(runner: AgentRunner) -> list[str]:
    return [s.id for s in runner.sessions() if not s.closed and not s.evicting]


def test_the_default_grace_period_is_short() -> None:
    assert 1 <= CLOSE_GRACE_S <= 10


def test_a_destroyed_last_view_closes_after_the_grace_period(runner: AgentRunner) -> None:
    w = ChatWidget("gone", runner=runner)
    send_and_wait(w, "hi")
    view(w, "attached")
    started = time.monotonic()
    view(w, "destroyed")
    assert not w.closed and "gone" in live_ids(runner)  # not at once
    wait_for(lambda: w.closed and w.closed_note, timeout=3)  # the note comes last
    assert time.monotonic() - started >= GRACE * 0.9
    assert "gone" not in live_ids(runner)
    assert "was freed" in w.closed_note
    # A closed shell: the model stays, emptied, so that a view coming back (an
    # undo of the deleted cell) says the widget closed instead of "model not found".
    assert w.comm is not None and w.transcript == [] and not w.busy
    comm_of(w).from_frontend({"type": "send", "text": "anyone?"})  # a shell runs nothing
    assert w.session_id == "gone" and "gone" not in live_ids(runner)
    w.close()  # closing again closes the comm, and nothing more
    assert w.closed and w.comm is None


def test_only_the_latest_closed_shells_keep_their_model(
    runner: AgentRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(outputs, "KEEP_CLOSED", 2)
    made = [ChatWidget(f"shell-{i}", runner=runner) for i in range(4)]
    for w in made:
        view(w, "attached")
        view(w, "destroyed")
    wait_for(lambda: all(w.closed for w in made), timeout=3)
    # The grace timers fire in any order: two of the four keep their model.
    wait_for(lambda: sum(w.comm is not None for w in made) == 2, timeout=3)


def test_closing_replaces_each_output_with_the_note_and_the_transcript(
    runner: AgentRunner,
) -> None:
    InteractiveShell.instance()  # the shell whose displays capture_output records
    w = ChatWidget("shown", runner=runner)
    send_and_wait(w, "<b>hi</b>")
    with capture_output() as cap:
        display(w)  # what `w` as a cell's last line does too (_ipython_display_)
        display(w)
        w.close()
    shown = [o for o in cap.outputs if not o.update]
    assert [WIDGET_VIEW in o.data for o in shown] == [True, True]
    ids = [o.transient["display_id"] for o in shown]
    assert len(set(ids)) == 2
    updates = [o for o in cap.outputs if o.update]
    assert sorted(o.transient["display_id"] for o in updates) == sorted(ids)
    for update in updates:
        assert WIDGET_VIEW not in update.data
        assert update.data["text/plain"].startswith("This chat widget was closed")
        assert "You said: <b>hi</b>" in update.data["text/plain"]
        page = update.data["text/html"]
        assert "run ChatWidget(&#x27;shown&#x27;) in a cell" in page or "ChatWidget()" in page
        assert "&lt;b&gt;hi&lt;/b&gt;" in page and "<b>hi</b>" not in page
    # Shown after its close, it is only that text: no view of a model that is gone.
    data, _ = w._repr_mimebundle_()
    assert WIDGET_VIEW not in data and data == updates[0].data
    with capture_output() as again:
        display(w)
    assert [o.data for o in again.outputs] == [updates[0].data]
    assert not again.outputs[0].transient  # nothing left to replace later


def test_a_view_attaching_during_the_grace_period_cancels_the_close(runner: AgentRunner) -> None:
    w = ChatWidget("moved", runner=runner)
    view(w, "attached", "v1")
    view(w, "destroyed", "v1")
    view(w, "attached", "v2")  # a moved cell, an undo: a new view within the grace period
    time.sleep(GRACE * 3)
    assert not w.closed and "moved" in live_ids(runner)
    w.close()


def test_configuration_changes_never_close(runner: AgentRunner) -> None:
    w = ChatWidget("kept", runner=runner)
    view(w, "attached", "v1")
    view(w, "page_gone", "")  # reload / browser tab closed
    view(w, "attached", "v2", page="p2")
    view(w, "detached", "v2", page="p2")  # the notebook's tab closed, the kernel runs on
    view(w, "attached", "v3", page="p2")
    view(w, "attached", "v4", page="p2", live=["v3", "v4"])  # a second view
    view(w, "destroyed", "v4", page="p2", live=["v3"])
    time.sleep(GRACE * 3)
    assert not w.closed
    # The page's live list corrects views whose own messages were lost.
    view(w, "destroyed", "v3", page="p2", live=[])
    wait_for(lambda: w.closed, timeout=3)


def test_a_reload_that_brings_no_view_back_closes_after_the_grace_period(
    runner: AgentRunner,
) -> None:
    """An unsaved notebook reloaded: the new page restores the model (``connected``)
    but its cell is empty, so no view ever attaches again."""
    w = ChatWidget("orphan", runner=runner)
    send_and_wait(w, "hi")
    view(w, "attached", "v1")
    view(w, "page_gone", "")
    time.sleep(GRACE * 2)
    assert not w.closed  # the page alone going away is a configuration change
    view(w, "connected", "", page="p2")
    wait_for(lambda: w.closed, timeout=3)
    assert "orphan" not in live_ids(runner)


def test_a_reload_whose_view_comes_back_keeps_the_widget(runner: AgentRunner) -> None:
    saved = ChatWidget("saved", runner=runner)
    view(saved, "attached", "v1")
    view(saved, "page_gone", "")
    view(saved, "connected", "", page="p2")
    view(saved, "attached", "v2", page="p2")  # the saved output re-renders it
    # Not displayed yet (``chat = ChatWidget()``, shown in a later cell): kept.
    later = ChatWidget("later", runner=runner)
    view(later, "connected", "", page="p2")
    time.sleep(GRACE * 3)
    assert not saved.closed and not later.closed
    saved.close()
    later.close()


def test_a_stale_view_of_a_closed_notebook_is_corrected_by_the_next_message(
    runner: AgentRunner,
) -> None:
    w = ChatWidget("stale", runner=runner)
    view(w, "attached", "old")  # its notebook closed; its "detached" never arrived
    view(w, "attached", "new", live=["new"])  # the reopened notebook's view
    view(w, "destroyed", "new", live=[])
    wait_for(lambda: w.closed, timeout=3)


def test_a_session_made_elsewhere_is_only_detached(runner: AgentRunner) -> None:
    runner.get_or_create_session("theirs").run("from code")
    w = ChatWidget("theirs", runner=runner)
    assert w.owned_sessions == []
    w.close()
    assert "theirs" in live_ids(runner)
    assert "lives on" in w.closed_note and "ChatWidget('theirs')" in w.closed_note


def test_cells_holding_a_widget_session_keep_it(runner: AgentRunner) -> None:
    w = ChatWidget("mixed", runner=runner, evict_on_close=True)
    runner.hold_session("mixed", CELLS_HOLDER)
    assert set(runner.session_holders("mixed")) == {CELLS_HOLDER, w._holder}
    w.close()
    assert "mixed" in live_ids(runner)
    assert runner.session_holders("mixed") == (CELLS_HOLDER,)
    assert "used by %%agent cells" in w.closed_note


def test_the_last_widget_on_an_owned_session_closes_it(runner: AgentRunner) -> None:
    first = ChatWidget("rerun", runner=runner)  # a new id: owned
    second = ChatWidget("rerun", runner=runner)  # the cell re-run: the same session
    first.close()
    assert "rerun" in live_ids(runner) and not second.session.closed
    second.close()
    wait_for(lambda: "rerun" not in live_ids(runner))


def test_evict_on_close_false_never_closes_and_true_takes_a_session_over(
    runner: AgentRunner,
) -> None:
    keep = ChatWidget(runner=runner, evict_on_close=False)
    sid = keep.session_id
    keep.close()
    assert sid in live_ids(runner)
    runner.get_or_create_session("given")
    given = ChatWidget("given", runner=runner, evict_on_close=True)
    given.close()
    assert "given" not in live_ids(runner)
    with pytest.raises(TypeError, match="evict_on_close must be None"):
        ChatWidget(runner=runner, evict_on_close="yes")  # type: ignore[arg-type]


def test_new_chat_discards_an_empty_owned_session_and_keeps_one_with_turns(
    runner: AgentRunner,
) -> None:
    w = ChatWidget(runner=runner)
    empty = w.session_id
    w.new_chat()
    assert empty not in live_ids(runner)
    talked = w.session_id
    send_and_wait(w, "keep me")
    w.new_chat()
    assert talked in live_ids(runner)  # one click never loses a conversation ...
    assert [s.id for s in w.owned_sessions] == [talked, w.session_id]
    w.close()  # ... the widget going away closes what it made
    wait_for(lambda: talked not in live_ids(runner) and w.session_id not in live_ids(runner))


def test_closing_cancels_the_turn_it_started_on_a_shared_session(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    scripted.token_delay = 0.02
    scripted.enqueue(" ".join(["word"] * 200))
    session = runner.get_or_create_session("shared-busy")
    w = ChatWidget(session, runner=runner)
    w.send_message("long")
    wait_for(lambda: session.busy)
    w.close()
    wait_for(lambda: not session.busy, timeout=2)
    assert not session.closed and session.history[-1].interrupted


def test_with_sqlite_a_close_evicts_from_memory_only(
    make_runner: RunnerFactory, tmp_path: Any
) -> None:
    runner = make_runner(store=SQLiteStore(tmp_path / "s.db"))
    w = ChatWidget("durable", runner=runner)
    send_and_wait(w, "on disk")
    session = w.session
    w.close()
    wait_for(lambda: "durable" not in live_ids(runner))
    with pytest.raises(SessionClosedError):
        session.run("no")
    assert "the store keeps it" in w.closed_note
    again = runner.get_or_create_session("durable")
    assert [e.text for e in again.history if hasattr(e, "text")][:2] == [
        "on disk",
        "You said: on disk",
    ]


def test_widget_turns_take_the_kernel_settings(shell: InteractiveShell) -> None:
    run(
        shell, "%config AgentMagics.max_tokens = 3\n%config AgentMagics.system_prompt = 'Be terse.'"
    )
    backend = get_runner().backend
    assert isinstance(backend, ScriptedBackend)
    backend.enqueue("one two three four five")
    w = ChatWidget("cfg")
    send_and_wait(w, "count")
    assert w.session.history[1].text.split() == ["one", "two", "three"]
    request = backend.requests[-1]
    assert request.config.max_tokens == 3 and "Be terse." in str(request.system_instruction)
    backend.enqueue("one two three four five")
    mine = ChatWidget("cfg-own", config=GenerationConfig(max_tokens=5), model="scripted")
    send_and_wait(mine, "count")
    assert mine.session.history[1].text.split() == ["one", "two", "three", "four", "five"]
    assert mine.model_label == "scripted"
    for widget in (w, mine):
        widget.close()
