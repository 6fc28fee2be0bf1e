"""A step that only wrote state says nothing, and nothing shows for it (issue 39, 3.4).

A `ParallelAgent` whose branches have ``output_key`` ends with its merge: one event that
carries the merged state and no text. ``%agent history``, ``%agent export`` and the widget's
text fallback leave it out instead of showing an empty ``**par:**`` message. Driven through
a real IPython shell on the ScriptedBackend.
"""

from __future__ import annotations

import json

import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import Agent, ParallelAgent, SequentialAgent, TextMessage, get_runner
from agent_nb.backends import ScriptedBackend
from tests.fixtures_magics import run


@pytest.fixture
def merged(shell: InteractiveShell, backend: ScriptedBackend) -> str:
    backend.enqueue("North is up.", "South is down.", "Both regions moved.")
    par = ParallelAgent("par", [Agent("north", output_key="n"), Agent("south", output_key="s")])
    tree = SequentialAgent("pipe", [par, Agent("writer")])
    session = get_runner().get_or_create_session("regions", agent=tree)
    session.run("How did the regions do?")
    merge = [e for e in session.history if e.author == "par"]
    assert len(merge) == 1 and isinstance(merge[0], TextMessage)  # the event is recorded...
    assert merge[0].text == "" and set(merge[0].state_delta) == {"n", "s"}
    return session.id


def _texts(cap_data: dict[str, str]) -> str:
    return cap_data.get("text/markdown") or cap_data["text/plain"]


@pytest.mark.parametrize(
    "command", ["%agent history regions", "%agent history regions --all", "%agent export regions"]
)
def test_history_and_export_show_no_empty_message(
    shell: InteractiveShell, merged: str, command: str
) -> None:
    result, cap = run(shell, command)
    assert result.success, cap.stderr
    shown = _texts(cap.outputs[-1].data) if cap.outputs else cap.stdout
    assert "**par:**" not in shown  # ...but it says nothing
    for said in ("**north:**", "**south:**", "**writer:**", "Both regions moved."):
        assert said in shown, said


def test_the_json_export_keeps_the_merge_event(
    shell: InteractiveShell, merged: str, tmp_path: object
) -> None:
    """The JSON export is the record, not a transcript: the state event stays in it."""
    result, cap = run(shell, "%agent export regions --format json")
    assert result.success, cap.stderr
    shown = _texts(cap.outputs[-1].data) if cap.outputs else cap.stdout
    events = json.loads(shown[shown.index("{") :])["events"]
    assert [e["author"] for e in events].count("par") == 1


def test_the_widgets_text_fallback_shows_no_empty_message(
    shell: InteractiveShell, merged: str
) -> None:
    from agent_nb._jupyter.widget.chat_widget import ChatWidget

    widget = ChatWidget(session=merged, evict_on_close=False)
    try:
        data, _ = widget._repr_mimebundle_()
        bubbles = [(e["kind"], e.get("author")) for e in widget.transcript]
    finally:
        widget.close()
    assert ("model", "par") not in bubbles and ("model", "writer") in bubbles
    plain, page = data["text/plain"], data["text/html"]
    assert "north: North is up." in plain and "writer: Both regions moved." in plain
    assert "\npar:" not in plain and "<b>par:</b>" not in page
