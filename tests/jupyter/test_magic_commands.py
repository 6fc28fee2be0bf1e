"""The ``%agent`` line commands in a real IPython shell, on the ScriptedBackend."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import markdown_it
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import Agent, AgentRunner, SessionInfo, TextMessage, get_runner, set_runner
from agent_nb._core.codec import event_from_dict
from agent_nb._jupyter.magics.commands import sessions_html
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from tests.fixtures_magics import final_bundle, magics, run, usage_error
from tests.fixtures_postgres import PASSWORD, TempPostgres
from tests.fixtures_runtime import RunnerFactory
from tests.html_safety import assert_inert, render_all

# -- %agent commands -------------------------------------------------------------


def test_sessions_table(shell: InteractiveShell) -> None:
    _, cap = run(shell, "%agent sessions")
    assert "No sessions yet" in cap.stdout
    run(shell, "%%agent alpha\nhi")
    run(shell, "%%agent beta\nhi")
    _, cap = run(shell, "%agent sessions")
    table = final_bundle(cap)["text/html"]
    assert table.count("<tr>") == 3 and "alpha" in table and "beta" in table
    assert "KV bytes" in table and "last used" in table


def test_sessions_html_escapes_everything() -> None:
    info = SessionInfo(id="<img src=x onerror=alert(1)>", user_id="u", turns=1, tokens=2,
                       history_bytes=3, kv_bytes=4, last_used=time.time())  # fmt: skip
    table = sessions_html([info], ["<script>x</script>"])
    assert "<img" not in table and "<script" not in table and "&lt;img" in table


def test_history_state_delete_clear(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    backend.enqueue("<b>bold</b> answer")
    run(shell, "%%agent talk\nquestion")
    _, cap = run(shell, "%agent history talk")
    bundle = final_bundle(cap)
    assert "**user:**" in bundle["text/plain"] and "<b>bold</b> answer" in bundle["text/plain"]
    for rendered in render_all(bundle["text/markdown"]).values():
        assert_inert(rendered)
    result, _ = run(shell, "%agent state talk")
    assert result.result == {}
    result, cap = run(shell, "%agent history nobody")
    usage_error(result, cap, "no session 'nobody'; sessions: 'talk'")
    assert "nobody" not in {i.id for i in get_runner().sessions()}  # never created
    _, cap = run(shell, "%agent delete talk")
    assert "deleted session 'talk'" in cap.stdout
    assert get_runner().stored_session_ids() == []
    run(shell, "%%agent a\nx")
    run(shell, "%%agent b\nx")
    _, cap = run(shell, "%agent clear")
    assert "deleted 2 sessions" in cap.stdout and get_runner().sessions() == []
    result, cap = run(shell, "%agent delete")
    usage_error(result, cap, "usage: %agent delete ID")


def test_model_command(shell: InteractiveShell) -> None:
    _, cap = run(shell, "%agent model")
    assert cap.stdout.strip() == "model: scripted"
    result, cap = run(shell, "%agent model nosuch:thing")
    usage_error(result, cap, "Unknown model spec")
    assert get_runner().model != "nosuch:thing"
    _, cap = run(shell, "%agent model scripted")
    assert get_runner().model == "scripted"


def test_export_markdown_and_json(
    shell: InteractiveShell, backend: ScriptedBackend, tmp_path: Any
) -> None:
    backend.enqueue("the answer")
    run(shell, "%%agent ex\nthe question")
    _, cap = run(shell, f"%agent export ex --to {tmp_path / 'ex.md'}")
    assert "exported session 'ex' (3 events)" in cap.stdout
    text = (tmp_path / "ex.md").read_text()
    assert text.startswith("# Session ex") and "the question" in text and "the answer" in text
    run(shell, f"%agent export ex --format json --to {tmp_path / 'ex.json'}")
    payload = json.loads((tmp_path / "ex.json").read_text())
    events = [event_from_dict(e) for e in payload["events"]]
    assert events == get_runner().get_or_create_session("ex").history
    _, cap = run(shell, "%agent export ex --format json")
    assert json.loads(final_bundle(cap)["text/plain"])["session_id"] == "ex"
    result, cap = run(shell, "%agent export ex --format pdf")
    usage_error(result, cap, "invalid choice")
    result, cap = run(shell, f"%agent export ex --to {tmp_path / 'no' / 'dir.md'}")
    usage_error(result, cap, "cannot write")


def test_interrupted_mark_is_never_inside_an_open_code_block(
    shell: InteractiveShell, backend: ScriptedBackend, tmp_path: Any
) -> None:
    backend.enqueue("Here you go:\n```python\n" + "print(i)\n" * 40)
    backend.token_delay = 0.02
    session = get_runner().get_or_create_session("cut")
    stream = session.run_async("a loop please")
    time.sleep(0.3)  # a few lines into the code block, far from its end
    stream.cancel()
    while session.busy:
        time.sleep(0.02)
    (cut,) = [e for e in session.history if isinstance(e, TextMessage) and e.interrupted]
    assert "print(i)" in cut.text and not cut.text.rstrip().endswith("```")
    _, cap = run(shell, "%agent history cut")
    run(shell, f"%agent export cut --to {tmp_path / 'cut.md'}")
    for markdown in (final_bundle(cap)["text/markdown"], (tmp_path / "cut.md").read_text()):
        html = markdown_it.MarkdownIt("commonmark").render(markdown)
        assert "<em>(interrupted)</em>" in html, html
        code = re.findall(r"<code[^>]*>(.*?)</code>", html, re.S)
        assert code and "print(i)" in code[0] and not any("interrupted" in c for c in code)


def test_widget_command(shell: InteractiveShell) -> None:
    from agent_nb._jupyter.widget.chat_widget import ChatWidget

    run(shell, "%%agent chat\nhello")
    result, _ = run(shell, "%agent widget chat")
    widget = result.result
    assert isinstance(widget, ChatWidget) and widget.session.id == "chat"
    widget.close()  # the cells' session outlives the view
    assert [i.id for i in get_runner().sessions()] == ["chat"]
    assert len(get_runner().get_or_create_session("chat").history) == 3
    result, cap = run(shell, "%agent widget bad/id")
    usage_error(result, cap, "invalid session id")


def test_memory_and_unknown_command(shell: InteractiveShell) -> None:
    run(shell, "%%agent\nhi")
    _, cap = run(shell, "%agent memory")
    figures = json.loads(final_bundle(cap)["text/plain"])
    assert "default" in figures["sessions"] and "kv_bytes_total" in figures
    result, cap = run(shell, "%agent frobnicate")
    usage_error(result, cap, "unknown %agent command 'frobnicate'")
    result, cap = run(shell, "%agent")
    usage_error(result, cap, "needs a command")


def test_store_setting_installs_a_persistent_runner(
    shell: InteractiveShell, backend: ScriptedBackend, tmp_path: Any, make_runner: RunnerFactory
) -> None:
    path = tmp_path / "sessions.db"
    run(shell, "%config AgentMagics.store = 'redis://x'")  # %config logs the TraitError
    assert magics(shell).store == ""
    shell.run_cell(f"%config AgentMagics.store = 'sqlite:///{path}'")
    runner = get_runner()
    assert type(runner.store).__name__ == "SQLiteStore"
    runner.model = backend
    run(shell, "%%agent kept\nremember me")
    later = make_runner(model=backend, store=f"sqlite:///{path}")
    history = later.get_or_create_session("kept").history
    texts = [e.text for e in history if isinstance(e, TextMessage)]
    assert texts == ["remember me", "You said: remember me"]


def test_a_postgres_store_setting_with_a_user_id(
    shell: InteractiveShell,
    backend: ScriptedBackend,
    postgres: TempPostgres,
    make_runner: RunnerFactory,
    caplog: Any,
) -> None:
    url = postgres.fresh_url()
    bad = url.replace(PASSWORD, "not-the-password")
    result = shell.run_cell(f"%config AgentMagics.store = {bad!r}")
    message = str(result.error_in_exec)  # the cell fails: Run All stops here
    assert type(result.error_in_exec).__name__ == "UsageError"
    assert "refused the login" in message and message.endswith("stays 'memory'.")
    assert "not-the-password" not in message
    assert magics(shell).store == ""
    shell.run_cell("%config AgentMagics.user_id = 'ana'")
    shell.run_cell(f"%config AgentMagics.store = {url!r}")
    runner = get_runner()
    assert type(runner.store).__name__ == "DatabaseStore" and runner.user_id == "ana"
    runner.model = backend
    run(shell, "%%agent class\nhello from ana")
    later = make_runner(model=backend, store=url, user_id="ana")
    texts = [
        e.text for e in later.get_or_create_session("class").history if isinstance(e, TextMessage)
    ]
    assert texts == ["hello from ana", "You said: hello from ana"]


def test_setting_a_store_moves_the_live_sessions(
    shell: InteractiveShell, backend: ScriptedBackend, tmp_path: Any
) -> None:
    run(shell, "%%agent pre\nfirst", cell_id="cell-a")
    get_runner().get_or_create_session("pre").run("second", state_delta={"n": 1, "user:lang": "nb"})
    run(shell, "%%agent before\nhello")
    path = tmp_path / "moved.db"
    shell.run_cell(f"%config AgentMagics.store = 'sqlite:///{path}'")
    runner = get_runner()
    assert type(runner.store).__name__ == "SQLiteStore" and runner.model is backend
    _, cap = run(shell, "%agent sessions")
    listing = final_bundle(cap)["text/plain"]
    assert "pre" in listing and "before" in listing, listing
    pre = runner.get_or_create_session("pre")
    texts = [e.text for e in pre.history if isinstance(e, TextMessage)]
    assert texts == ["first", "You said: first", "second", "You said: second"]
    assert pre.state == {"n": 1, "user:lang": "nb"}
    # Re-running the first cell still rewinds its own turn in the moved session.
    run(shell, "%%agent pre\nfirst again", cell_id="cell-a")
    assert [e.text for e in pre.history if isinstance(e, TextMessage)][:2] == [
        "first again",
        "You said: first again",
    ]
    # And the file holds them: a later kernel sees them.
    later = AgentRunner(model=backend, store=f"sqlite:///{path}")
    try:
        assert sorted(later.stored_session_ids()) == ["before", "pre"]
    finally:
        later.shutdown()


def test_a_store_that_cannot_take_the_sessions_is_refused(
    shell: InteractiveShell,
    backend: ScriptedBackend,
    tmp_path: Any,
    caplog: Any,
) -> None:
    path = tmp_path / "taken.db"
    earlier = AgentRunner(model=backend, store=f"sqlite:///{path}")
    earlier.get_or_create_session("pre").run("from an earlier kernel")
    earlier.shutdown()
    run(shell, "%%agent pre\nmine")
    runner = get_runner()
    result = shell.run_cell(f"%config AgentMagics.store = 'sqlite:///{path}'")
    message = str(result.error_in_exec)  # the cell fails: Run All stops here
    assert type(result.error_in_exec).__name__ == "UsageError"
    assert "already holds session(s) 'pre'" in message
    assert "\n" not in message
    assert magics(shell).store == "" and get_runner() is runner
    history = runner.get_or_create_session("pre").history
    assert [e.text for e in history if isinstance(e, TextMessage)] == ["mine", "You said: mine"]


def test_tool_rounds_show_in_the_cell(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    set_runner(AgentRunner(Agent(tools=[add]), model=backend))
    backend.enqueue(ToolCallChunk("add", {"a": 1, "b": 2}), "The sum is 3.")
    result, cap = run(shell, "%%agent -o r\nwhat is 1 + 2?")
    assert result.success and shell.user_ns["r"].text == "The sum is 3."
    markdown = final_bundle(cap)["text/markdown"]
    assert markdown.index("add") < markdown.index("result") < markdown.index("The sum is 3.")
    _, cap = run(shell, "%agent history")
    assert "→ `add(a=1, b=2)`" in final_bundle(cap)["text/plain"]  # as approval shows it
