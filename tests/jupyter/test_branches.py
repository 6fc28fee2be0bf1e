"""Re-running a cell never destroys a turn: the new-user scenario through a
real IPython shell (cells with ids, a `ChatWidget` on the same session), and
what the branch commands, the export and memory do with it."""

from __future__ import annotations

import json
import time
import tracemalloc

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import CapturedIO

from agent_nb import get_runner
from agent_nb.backends import ScriptedBackend
from tests.fixtures_magics import run, turns


def _widget_turn(session_id: str, text: str) -> None:
    """A turn sent from a ChatWidget, as a click on Send does."""
    from agent_nb._jupyter.widget.chat_widget import ChatWidget

    widget = ChatWidget(session=session_id, evict_on_close=False)
    try:
        widget.send_message(text)
        session = get_runner().get_or_create_session(session_id)
        deadline = time.monotonic() + 10
        while (session.busy or not widget.transcript or widget.busy) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.01)
        assert text in turns(session_id)
    finally:
        widget.close()


def _shown(cap: CapturedIO) -> str:
    data: dict[str, str] = cap.outputs[-1].data
    return data["text/plain"]


def test_rerun_moves_turns_to_a_branch_that_switch_brings_back(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    run(shell, "%%agent demo\nhello", cell_id="first")
    _widget_turn("demo", "tell me a short story")
    run(shell, "%%agent demo\nthe museum", cell_id="museum")
    result, cap = run(shell, "%%agent demo\nhello again", cell_id="first")
    assert result.success
    assert cap.outputs[0].data["text/plain"] == (
        "↺ re-run: this cell's turn and 2 later turns (1 from the chat widget) moved to "
        "branch 2; %agent switch demo 2 brings them back"
    )
    assert turns("demo") == ["hello again"]
    # Every turn of every branch is still there.
    _, cap = run(shell, "%agent history demo --all")
    every = _shown(cap)
    for text in ("hello", "tell me a short story", "the museum", "hello again"):
        assert f"\n{text}\n" in every, text
    _, cap = run(shell, "%agent branches demo")
    assert "**branch 1** (active): 1 turn" in _shown(cap)
    assert "**branch 2**: 3 turns, 3 not on the active one (from the start" in _shown(cap)
    # Export: the active path, and the other branch listed.
    _, cap = run(shell, "%agent export demo --format json")
    exported = json.loads(_shown(cap))
    assert next(e["text"] for e in exported["events"] if e["kind"] == "text") == "hello again"
    assert [b["number"] for b in exported["branches"]] == [1, 2]
    assert len(exported["branches"][1]["events"]) == 3 * 3  # user, model, turn end per turn
    _, cap = run(shell, "%agent export demo")
    assert "Branches" in _shown(cap) and "%agent switch demo 2" in _shown(cap)
    # Switch back: the story is the active path and the model's next turn sees it.
    _, cap = run(shell, "%agent switch demo 2")
    assert cap.stdout.strip() == "session 'demo' is on branch 2 (3 turns); branch 1 is kept"
    run(shell, "%%agent demo\nwhat was the story about?", cell_id="later")
    seen = [c.text for c in backend.requests[-1].contents]
    assert "tell me a short story" in seen and "hello again" not in seen
    # Bad input: a clear error, nothing changes.
    result, cap = run(shell, "%agent switch demo 7")
    assert "branches 1 to 2, not 7" in cap.stderr
    result, cap = run(shell, "%agent switch demo two")
    assert "BRANCH is a branch number from 1 to 2" in cap.stderr
    assert get_runner().get_or_create_session("demo").branch == 2


def test_shared_state_written_on_a_replaced_branch_stays_and_the_note_says_so(
    shell: InteractiveShell,
) -> None:
    run(shell, "%%agent s\none", cell_id="A")
    session = get_runner().get_or_create_session("s")
    session.run("remember", state_delta={"user:lang": "fr", "mine": 1})
    _, cap = run(shell, "%%agent s\none again", cell_id="A")
    assert "their user:/app: state changes stay" in cap.outputs[0].data["text/plain"]
    state = session.state
    assert state["user:lang"] == "fr" and "mine" not in state
    session.switch_branch(2)
    assert session.state["mine"] == 1


def test_ten_reruns_keep_events_only(shell: InteractiveShell) -> None:
    """Ten re-runs of a cell cost what ten appended turns cost (their events),
    measured side by side (branches keep events only; the KV cache is one per
    session, trimmed on a rewind or switch)."""

    def grow(session_id: str, cell: str | None) -> int:
        run(shell, f"%%agent {session_id}\nwarm up", cell_id=f"warm-{session_id}")
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(10):
            run(shell, f"%%agent {session_id}\nquestion {i % 2}", cell_id=cell)
        grown = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        return grown

    appended = grow("appended", None)  # no cell id: every run appends
    rerun = grow("rerun", "same-cell")
    session = get_runner().get_or_create_session("rerun")
    assert len(session.branches()) == 10 and len(session.tree()) == 11
    assert rerun <= appended * 1.25 + 64_000, (rerun, appended)
