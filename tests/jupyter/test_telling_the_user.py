"""The cell, the widget and the API say what is happening.

A real IPython shell on the ScriptedBackend: waiting behind another
session's turn, replies cut off by their token limit, and model specs that
name nothing.
"""

from __future__ import annotations

import os
import threading

import comm
import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import AgentRunner, GenerationConfig, TurnComplete, get_runner
from agent_nb._core.codec import event_from_dict, event_to_dict
from agent_nb._jupyter.widget.chat_widget import ChatWidget
from agent_nb.backends import ScriptedBackend
from agent_nb.errors import ModelNotFoundError
from tests.fixtures_magics import final_bundle, run, usage_error
from tests.jupyter.test_widget import RecordingComm, comm_of
from tests.waiting import wait_until


@pytest.fixture
def backend() -> ScriptedBackend:
    return ScriptedBackend(one_turn_at_a_time=True)


def test_a_cell_behind_another_sessions_turn_says_it_is_waiting(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    backend.enqueue(" ".join(["word"] * 40))
    backend.token_delay = 0.02
    other = get_runner().get_or_create_session("widget-chat")
    stream = other.run_async("a long one")
    while not backend.requests:
        threading.Event().wait(0.005)
    result, cap = run(shell, "%%agent mine\nhello")
    assert result.success
    shown = [o.data["text/plain"] for o in cap.outputs]
    waiting = "◷ waiting for session 'widget-chat' to finish its turn on the model"
    assert waiting in shown, shown
    assert stream.result(timeout=5).text.startswith("word")  # it was really ahead
    assert shown.index(waiting) < shown.index("You said: hello")
    assert final_bundle(cap)["text/plain"] == "You said: hello"


def test_no_waiting_note_when_nothing_is_ahead(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    backend.token_delay = 0.02
    _, cap = run(shell, "%%agent mine\nhello")
    assert not any("waiting" in o.data["text/plain"] for o in cap.outputs)


def test_a_cut_off_reply_is_marked_with_its_limit(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    backend.enqueue("one two three four five six")
    result, cap = run(shell, "%%agent --max-tokens 3 -o r\ncount")
    assert result.success
    note = (
        "(cut off at the 3-token limit; raise --max-tokens / GenerationConfig.max_tokens for more)"
    )
    assert final_bundle(cap)["text/plain"] == f"one two three\n{note}"
    assert final_bundle(cap)["text/markdown"].endswith(f"*{note}*")
    reply = shell.user_ns["r"]
    assert reply.finish_reason == "length" and reply.truncated_at == 3
    (done,) = [e for e in reply.events if isinstance(e, TurnComplete)]
    assert done.max_tokens == 3
    assert event_from_dict(event_to_dict(done)) == done  # stored as it is
    assert note in reply._repr_markdown_()
    # A reply that ends on its own carries no limit and no note.
    _, cap = run(shell, "%%agent --max-tokens 30 -o r\nagain")
    assert "cut off" not in final_bundle(cap)["text/plain"]
    assert shell.user_ns["r"].truncated_at is None


def test_a_cut_off_reply_is_marked_in_the_terminal(
    shell: InteractiveShell, backend: ScriptedBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    backend.enqueue("one two three four")
    assert shell.run_cell("%%agent --max-tokens 2\nhi").success
    assert capsys.readouterr().out == (
        "one two\n(cut off at the 2-token limit; raise --max-tokens / "
        "GenerationConfig.max_tokens for more)\n"
    )


def test_direct_access_marks_the_limit_too(backend: ScriptedBackend) -> None:
    from agent_nb import Content, GenerateContentRequest, Role

    runner = AgentRunner(model=backend)
    try:
        backend.enqueue("a b c d")
        request = GenerateContentRequest(
            [Content(Role.USER, "go")], config=GenerationConfig(max_tokens=2)
        )
        reply = runner.generate_content_async(request).result(timeout=5)
        assert reply.finish_reason == "length" and reply.truncated_at == 2
    finally:
        runner.shutdown()


def test_a_bare_mlx_name_says_what_exists_not_what_is_in_this_folder(
    shell: InteractiveShell, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(str(tmp_path))
    for name in ("secret-notes.txt", "data.csv"):
        with open(name, "w") as f:
            f.write("x")
    result, cap = run(shell, "%%agent -m mlx:doesnotexist\nhi")
    line = usage_error(result, cap, "no mlx model named 'doesnotexist'")
    assert "'mlx:smollm2-135m'" in line and "mlx:/path/to/mlx-model-dir" in line
    assert not any(name in line for name in os.listdir("."))


@pytest.mark.parametrize("spec", ["nonsense", "mlx:", "openai:", "gpt-4o", "scripted:x"])
def test_an_unknown_spec_fails_at_construction(spec: str) -> None:
    with pytest.raises(ModelNotFoundError, match=f"Unknown model spec {spec!r}. Use one of: "):
        AgentRunner(model=spec)
    with pytest.raises(TypeError, match="spec string or a Backend"):
        AgentRunner(model=3)  # type: ignore[arg-type]


def test_a_widget_behind_a_cells_turn_says_what_it_waits_for(
    shell: InteractiveShell, backend: ScriptedBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cell starts a turn and returns (plain code); the widget's message, sent
    meanwhile, waits for it and says so in the cell's words, until it starts."""
    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    backend.enqueue(" ".join(["word"] * 40), "mine")
    backend.token_delay = 0.02
    cell = (
        "from agent_nb import get_runner\n"
        "ahead = get_runner().get_or_create_session('notes').run_async('go')"
    )
    result, _ = run(shell, cell)
    assert result.success
    wait_until(lambda: backend.requests)
    widget = ChatWidget("chat")
    try:
        c = comm_of(widget)
        c.from_frontend({"type": "send", "text": "hello"})
        wait_until(lambda: c.custom("turn_complete"))
        waits = [m["note"] for m in c.custom("waiting")]
        assert waits == ["waiting for session 'notes' to finish its turn on the model", ""]
        kinds = [m["type"] for m in c.custom()]
        assert len(kinds) - 1 - kinds[::-1].index("waiting") < kinds.index("delta")
        assert shell.user_ns["ahead"].result(timeout=5).text.startswith("word")
        assert widget.transcript[-2]["text"] == "mine"
    finally:
        widget.close()
