"""``%%agent`` in a real IPython shell, on the ScriptedBackend.

Cells run through ``shell.run_cell`` (with a ``cell_id`` where a notebook
front end would send one), so option parsing, ``pre_run_cell`` and the
UsageError display are IPython's own. Fixtures: `tests.fixtures_magics`.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import numpy as np
import pandas as pd
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from agent_nb import AgentRunner, Reply, TextMessage, TurnComplete, get_runner, set_runner
from agent_nb._core.render import safe_markdown
from agent_nb._jupyter.magics.agent_magics import AgentMagics
from agent_nb._jupyter.prompts.data_summary import summarize
from agent_nb.backends import ScriptedBackend
from agent_nb.errors import TurnInterruptedError
from tests.fixtures_magics import final_bundle, magics, run, turns, usage_error
from tests.html_safety import assert_inert, render_all
from tests.interrupts import interrupt_main_when
from tests.waiting import wait_until

# -- extension lifecycle and help ------------------------------------------------


def test_load_registers_and_unload_removes_cleanly(shell: InteractiveShell) -> None:
    assert shell.find_cell_magic("agent") is not None
    assert shell.find_line_magic("agent") is not None
    assert magics(shell) in shell.configurables
    callbacks = {e: len(shell.events.callbacks[e]) for e in ("pre_run_cell", "post_run_cell")}
    shell.extension_manager.unload_extension("agent_nb")
    assert shell.find_cell_magic("agent") is None and shell.find_line_magic("agent") is None
    assert "AgentMagics" not in shell.magics_manager.registry
    assert not any(isinstance(c, AgentMagics) for c in shell.configurables)
    for event, count in callbacks.items():
        assert len(shell.events.callbacks[event]) == count - 1
    result, cap = run(shell, "%%agent\nhello")
    assert isinstance(result.error_in_exec, UsageError) and "not found" in cap.stderr
    shell.extension_manager.load_extension("agent_nb")  # and it comes back
    assert shell.find_cell_magic("agent") is not None


def test_cell_help_lists_every_option(shell: InteractiveShell) -> None:
    with capture_output() as cap:
        shell.run_cell("%%agent?")
    for option in ("--new", "--once", "--model", "--system", "--temperature", "--max-tokens",
                   "--output", "--data", "--data-mode", "--format", "--code", "--cells",
                   "--outputs",
                   "{name}", "{In[3]}", "{Out[3]}", "%agent explain", "%%agent"):  # fmt: skip
        assert option in cap.stdout, option
    with capture_output() as cap:
        shell.run_cell("%agent?")
    for command in ("sessions", "history", "state", "delete", "clear", "model", "export",
                    "widget", "memory", "explain"):  # fmt: skip
        assert command in cap.stdout


# -- streaming and rendering -----------------------------------------------------


def test_a_long_prompt_shows_reading_progress_until_the_first_token(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    backend.enqueue("the summary")
    backend.prefill_chunk = 5
    backend.token_delay = 0.05
    magics(shell).stream_interval = 0.01
    shell.user_ns["big"] = "lorem ipsum " * 10
    result, cap = run(shell, "%%agent --max-tokens 30\nSummarise: {big}")
    assert result.success
    shown = [o.data["text/plain"] for o in cap.outputs]
    total = backend.count_tokens(backend.requests[-1])
    reading = [t for t in shown if t.startswith("◷ reading the prompt: ")]
    assert reading and reading[-1].endswith(f" / {total} tokens")
    first_text = next(i for i, t in enumerate(shown) if t.startswith("the"))
    assert all(shown.index(t) < first_text for t in reading)  # gone at the first token
    assert final_bundle(cap)["text/plain"] == "the summary"


def test_an_empty_reply_says_so_in_the_cell(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    backend.enqueue("")
    result, cap = run(shell, "%%agent\nsummarise nothing")
    assert result.success
    note = "(the model returned an empty reply; finish reason: stop)"
    assert final_bundle(cap)["text/plain"] == note
    assert final_bundle(cap)["text/markdown"].endswith(f"*{note}*")


def test_a_looping_reply_stops_with_a_note(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    loop = "She loves to play with her favorite toys and loves to explore her own room. "
    backend.enqueue(loop * 12, loop * 12)
    result, cap = run(shell, "%%agent -o story\na story")
    assert result.success and shell.user_ns["story"].finish_reason == "repetition"
    plain = final_bundle(cap)["text/plain"]
    assert plain.count("favorite toys") == 1 and "kept repeating itself" in plain
    shell.run_line_magic("config", "AgentMagics.repetition_stop = 0")
    run(shell, "%%agent -o story\nagain")
    assert shell.user_ns["story"].finish_reason == "stop"
    assert backend.requests[-1].config.repetition_stop == 0


def test_max_tokens_beyond_the_window_is_one_line(shell: InteractiveShell) -> None:
    set_runner(AgentRunner(model=ScriptedBackend(context_window=64)))
    result, cap = run(shell, "%%agent --max-tokens 100\nhello")
    usage_error(
        result,
        cap,
        "--max-tokens must be between 1 and the model's context window (64 tokens for "
        "scripted), got 100; nothing was sent or recorded",
    )
    assert get_runner().get_or_create_session("default").history == []
    assert cap.stdout == ""  # refused with the options: no "…" above the error
    # too few gets the same range as too many (round 5: it said only ">= 1")
    result, cap = run(shell, "%%agent --max-tokens 0\nhello")
    usage_error(
        result,
        cap,
        "--max-tokens must be between 1 and the model's context window (64 tokens for "
        "scripted), got 0; nothing was sent or recorded",
    )


def test_streams_through_one_display_handle_throttled(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    words = " ".join(f"w{i}" for i in range(40))
    backend.enqueue(words)
    backend.token_delay = 0.01
    magics(shell).stream_interval = 0.1
    started = time.monotonic()
    result, cap = run(shell, "%%agent\ncount for me", cell_id="c1")
    elapsed = time.monotonic() - started
    assert result.success
    ids = {o.transient.get("display_id") for o in cap.outputs}
    assert len(ids) == 1 and None not in ids
    assert [o.update for o in cap.outputs] == [False] + [True] * (len(cap.outputs) - 1)
    assert 3 <= len(cap.outputs) <= elapsed / 0.1 + 3  # throttled, yet really streaming
    assert final_bundle(cap) == {"text/markdown": words, "text/plain": words}


def test_xss_payloads_render_inert(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    payload = (
        "<script>alert(1)</script> <img src=x onerror=alert(1)> <svg onload=alert(1)> "
        "[x](javascript:alert(1))\n```html\n<b>code stays</b>\n```"
    )
    backend.enqueue(payload)
    _, cap = run(shell, "%%agent\nattack")
    for output in cap.outputs:
        assert set(output.data) <= {"text/markdown", "text/plain"}
        for rendered in render_all(output.data["text/markdown"]).values():
            assert_inert(rendered, payload)
    assert final_bundle(cap)["text/markdown"] == safe_markdown(payload)
    assert "<b>code stays</b>" in final_bundle(cap)["text/markdown"]


def test_terminal_shell_prints_plain_streamed_text(
    shell: InteractiveShell, backend: ScriptedBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    backend.enqueue("plain <b>text</b> here")
    result = shell.run_cell("%%agent\nhi")
    assert result.success
    assert capsys.readouterr().out == "plain <b>text</b> here\n"


def test_format_text_and_code(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    backend.enqueue("Sure:\n```python\nprint(1 < 2)\n```\nbye", "just words")
    _, cap = run(shell, "%%agent --format code\ncode please")
    assert final_bundle(cap)["text/markdown"] == "```python\nprint(1 < 2)\n```"
    _, cap = run(shell, "%%agent --format text\nwords please")
    assert final_bundle(cap) == {"text/plain": "just words"}


# -- options ---------------------------------------------------------------------


def test_options_reach_the_request(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    backend.enqueue("one two three four five six seven")
    line = '%%agent notes -s "Be terse, please." -t 0.7 --max-tokens 3 -o out'
    result, _ = run(shell, f"{line}\nhi")
    assert result.success
    request = backend.requests[-1]
    assert request.system_instruction == "Be terse, please."
    assert (request.config.temperature, request.config.max_tokens) == (0.7, 3)
    reply = shell.user_ns["out"]
    assert isinstance(reply, Reply) and reply.text == "one two three"
    assert reply.finish_reason == "length" and reply.session_id == "notes"


def test_configured_defaults_apply(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    shell.run_cell("%config AgentMagics.default_session = 'lab'")
    shell.run_cell("%config AgentMagics.system_prompt = 'You answer in French.'")
    shell.run_cell("%config AgentMagics.max_tokens = 2")
    backend.enqueue("un deux trois")
    run(shell, "%%agent\nbonjour")
    assert turns("lab") == ["bonjour"]
    assert backend.requests[-1].system_instruction == "You answer in French."
    assert backend.requests[-1].config.max_tokens == 2
    run(shell, "%config AgentMagics.on_rerun = 'sometimes'")  # %config logs the TraitError
    assert magics(shell).on_rerun == "rewind"


def test_ipython_config_file_settings_are_read(backend: ScriptedBackend) -> None:
    from traitlets.config import Config

    sh = InteractiveShell.instance()
    saved = sh.config
    config = Config()
    config.AgentMagics.default_session = "from_config"
    config.AgentMagics.on_rerun = "append"
    sh.config = config
    try:
        sh.extension_manager.load_extension("agent_nb")
        assert magics(sh).default_session == "from_config"
        assert magics(sh).on_rerun == "append"
    finally:
        sh.extension_manager.unload_extension("agent_nb")
        sh.config = saved


def test_once_uses_no_named_session(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    backend.enqueue("single")
    result, cap = run(shell, "%%agent --once -o r\nquick question")
    assert result.success and final_bundle(cap)["text/plain"] == "single"
    assert get_runner().sessions() == [] and shell.user_ns["r"].text == "single"


def test_new_starts_afresh(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    run(shell, "%%agent s1\nfirst")
    result, cap = run(shell, "%%agent s1 --new\nsecond")
    assert result.success and "new session 's1'" in cap.stdout
    assert turns("s1") == ["second"]


def test_per_turn_model(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    _, cap = run(shell, "%%agent -m scripted\nping")
    assert final_bundle(cap)["text/plain"] == "You said: ping"
    assert backend.requests == []  # the default model was not used


# -- interpolation and --data ---------------------------------------------------


def test_interpolation(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    shell.user_ns.update(topic="owls", info={"n": 3}, pi=3.14159)
    run(shell, "%%agent\nTell me about {topic} ({info[n]}, {pi:.2f}, {topic!r}) as {{json}}")
    assert turns() == ["Tell me about owls (3, 3.14, 'owls') as {json}"]


@pytest.mark.parametrize(
    "body",
    [
        "What does d = {'a': 1} do?",
        'Is {"k": {"j": [1, 2]}} valid JSON?',
        "A set {1, 2}, an empty {} and { spaced }",
        "def f():\n    return {**kw, 'x': [i for i in range(3)]}",
        "Format strings: {0} {} {:>8}",
        "Doubled {{ braces }} stay",
    ],
)
def test_other_braces_stay_as_typed(
    shell: InteractiveShell, backend: ScriptedBackend, body: str
) -> None:
    result, cap = run(shell, f"%%agent\n{body}")
    assert result.error_in_exec is None, cap.stderr
    assert turns() == [body]


def test_interpolation_says_what_it_substituted(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns.update(total=15.3, pi=3.14159)
    result, cap = run(shell, "%%agent\nThe total is {total}, pi about {pi:.2f}; {total} again")
    assert result.success and turns() == ["The total is 15.3, pi about 3.14; 15.3 again"]
    assert cap.stdout.splitlines()[0] == "interpolated: {total}, {pi:.2f}"
    result, cap = run(shell, "%%agent\nno braces here")
    assert "interpolated" not in cap.stdout


def test_a_cell_is_scanned_for_markdown_code_once(
    shell: InteractiveShell, backend: ScriptedBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Interpolation and the stale mark's references are one scan of the cell's
    Markdown (issue 49: each scanned it again before the first token)."""
    from agent_nb._jupyter.prompts import interpolate

    scanned: list[str] = []
    real = interpolate.code_ranges

    def counted(text: str) -> list[tuple[int, int]]:
        scanned.append(text)
        return real(text)

    monkeypatch.setattr(interpolate, "code_ranges", counted)
    shell.user_ns["total"] = 15.3
    result, cap = run(shell, "%%agent\nThe total is {total}\n\n```\n{not_me}\n```")
    assert result.success, cap.stderr
    assert len(scanned) == 1
    assert turns() == ["The total is 15.3\n\n```\n{not_me}\n```"]


@pytest.mark.parametrize(
    "body",
    [
        # Markdown code is never interpolated, defined names or not.
        'Why does this print wrong? `print(f"Total: {total}")`',
        'Why?\n```python\nprint(f"Total: {total}")\nprint({undefined_name})\n```\nThanks',
        "Indented code:\n\n    print({total}, {undefined_name})\n",
        "Long fence\n~~~~\n{total} {nope}\n~~~~",
        "``a `{total}` b``",
        # Outside code, anything that is not a clean variable reference stays as typed.
        "print(f'{d[\"a\"]}')",
        "{x: x**2 for x in range(3)}",
    ],
)
def test_code_and_non_references_stay_as_typed(
    shell: InteractiveShell, backend: ScriptedBackend, body: str
) -> None:
    shell.user_ns.update(total=15.3, x=5, d={"a": 1})
    result, cap = run(shell, f"%%agent\n{body}")
    assert result.error_in_exec is None, cap.stderr
    assert turns() == [body.strip()] and "interpolated" not in cap.stdout


def test_a_reference_outside_code_is_still_filled_next_to_code(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns.update(total=15.3)
    run(shell, "%%agent\nI expected {total} from `print({total})`")
    assert turns() == ["I expected 15.3 from `print({total})`"]
    result, cap = run(shell, "%%agent\n`{total}` but {nothing_here}")
    usage_error(result, cap, "unknown variable 'nothing_here' in {nothing_here}")


def test_raw_sends_the_cell_as_typed(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    shell.user_ns["topic"] = "owls"
    run(shell, "%%agent --raw\nprint(f'{topic} and {undefined_name}')")
    assert turns() == ["print(f'{topic} and {undefined_name}')"]


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("about {nothing_here}", "unknown variable 'nothing_here' in {nothing_here}"),
        ("about {nothing_here.attr}", "unknown variable 'nothing_here'"),
        ("{topic.nope}", "cannot interpolate {topic.nope}: AttributeError"),
        ("{topic:d}", "cannot interpolate {topic:d}: ValueError"),
        ("{topic[9]}", "cannot interpolate {topic[9]}: IndexError"),
        ("   ", "the cell is empty"),
    ],
)
def test_bad_interpolation_sends_nothing(
    shell: InteractiveShell, backend: ScriptedBackend, body: str, fragment: str
) -> None:
    shell.user_ns["topic"] = "owls"
    run(shell, "%%agent\nkeep me")
    result, cap = run(shell, f"%%agent\n{body}")
    line = usage_error(result, cap, fragment)
    assert "--raw" in line or "empty" in line
    assert len(backend.requests) == 1 and turns() == ["keep me"]


def test_data_attaches_bounded_summaries(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    frame = pd.DataFrame({"price": np.arange(1000) * 1.5, "city": ["Oslo", "Rome"] * 500})
    shell.user_ns.update(df=frame, arr=np.linspace(0, 1, 10_000), blob=list(range(100_000)))
    magics(shell).data_budget = 600
    run(shell, "%%agent --data df arr blob --data-mode summary\nWhat is in these?")
    text = backend.requests[-1].contents[-1].text
    assert text.startswith("What is in these?\n\nData `df` (pandas.DataFrame):")
    assert "shape: 1000 rows x 2 columns" in text and "price: float64" in text
    assert "describe():" in text and "Data `arr` (numpy.ndarray)" in text and "mean=0.5" in text
    assert "Data `blob` (list)" in text
    assert len(text) < 600 * 4 + 100  # the budget, in characters


def test_data_unknown_variable(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    result, cap = run(shell, "%%agent --data missing_df\nsummarise")
    usage_error(result, cap, "missing_df")
    assert backend.requests == []


def test_summaries_fit_their_budget() -> None:
    wide = pd.DataFrame(np.random.default_rng(0).random((500, 80)))
    for obj in (wide, wide[0], np.zeros((300, 300)), "x" * 50_000, {"k": list(range(5000))}):
        for budget in (50, 200, 1000):
            assert len(summarize("v", obj, budget)) <= budget * 4
    assert "(first 20 of 80 shown)" in summarize("wide", wide, 2000)


@pytest.mark.slow  # a fresh interpreter
def test_summarize_imports_nothing() -> None:
    import subprocess

    code = ("import sys; from agent_nb._jupyter.prompts.data_summary import summarize;"
            "summarize('x', [1]*9);"
            "assert 'pandas' not in sys.modules and 'numpy' not in sys.modules")  # fmt: skip
    subprocess.run([sys.executable, "-c", code], check=True)


# -- re-running cells -----------------------------------------------------------


def test_rerun_rewinds_the_cell_and_later_turns(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    run(shell, "%%agent\nfirst", cell_id="A")
    run(shell, "%%agent\nsecond", cell_id="B")
    run(shell, "%%agent\nthird", cell_id="C")
    result, cap = run(shell, "%%agent\nfirst, edited", cell_id="A")
    assert result.success
    assert cap.outputs[0].data["text/plain"] == (
        "↺ re-run: this cell's turn and 2 later turns moved to branch 2; "
        "%agent switch default 2 brings them back"
    )
    assert (
        cap.outputs[0]
        .data["text/markdown"]
        .endswith("; `%agent switch default 2` brings them back")
    )
    assert turns() == ["first, edited"]
    # the model saw only the rewound history
    assert [c.text for c in backend.requests[-1].contents] == ["first, edited"]
    result, cap = run(shell, "%%agent\nsecond again", cell_id="B")  # B's turn is on branch 2
    assert cap.stdout == "" and turns() == ["first, edited", "second again"]
    # Nothing was lost: branch 2 holds the replaced turns, and switching is a switch too.
    run(shell, "%agent switch default 2")
    assert turns() == ["first", "second", "third"]
    run(shell, "%agent switch default 1")
    assert turns() == ["first, edited", "second again"]


def test_append_mode_and_no_cell_id_keep_everything(shell: InteractiveShell) -> None:
    run(shell, "%%agent\none")
    run(shell, "%%agent\none")  # terminal: no cell id
    shell.run_cell("%config AgentMagics.on_rerun = 'append'")
    run(shell, "%%agent\ntwo", cell_id="X")
    run(shell, "%%agent\ntwo", cell_id="X")
    assert turns() == ["one", "one", "two", "two"]


def test_rerun_on_another_session_leaves_the_old_one(shell: InteractiveShell) -> None:
    run(shell, "%%agent alpha\nhello", cell_id="A")
    run(shell, "%%agent beta\nhello", cell_id="A")
    assert turns("alpha") == ["hello"] and turns("beta") == ["hello"]


def test_calls_outside_a_cell_are_no_cells_turn(shell: InteractiveShell) -> None:
    run(shell, "x = 1", cell_id="plain")  # a cell that sends nothing
    shell.run_cell_magic("agent", "", "from a button callback")
    run(shell, "%%agent\nfrom the cell", cell_id="plain")
    assert turns() == ["from a button callback", "from the cell"]


def test_two_calls_in_one_cell_execution_append(shell: InteractiveShell) -> None:
    source = "for q in ('q1', 'q2'):\n    get_ipython().run_cell_magic('agent', '', q)"
    run(shell, source, cell_id="loop")
    run(shell, source, cell_id="loop")
    assert turns() == ["q1", "q2"]


# -- interrupt, failure, busy ----------------------------------------------------


def test_kernel_interrupt_cancels_and_session_stays_usable(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    backend.enqueue(" ".join(f"w{i}" for i in range(300)), "after")
    backend.token_delay = 0.05  # 15 s to run to the end: only the interrupt ends it
    session = get_runner().get_or_create_session("default")
    tokens: list[str] = []

    def on_event(event: object) -> None:
        if isinstance(event, TextMessage) and event.is_partial:
            tokens.append(event.text)

    session.subscribe(on_event)
    # The kernel interrupt comes while the cell shows the streaming turn, after two tokens.
    ready = interrupt_main_when(
        lambda: len(tokens) >= 2, "show_turn", lambda: os.kill(os.getpid(), signal.SIGINT)
    )
    with ready:
        result, cap = run(shell, "%%agent -o partial\ncount", cell_id="I")
    # A plain note that still fails the cell ("Run all" stops): no UsageError label.
    assert isinstance(result.error_in_exec, TurnInterruptedError)
    assert "UsageError" not in cap.stdout + cap.stderr
    note = "■ interrupted; the partial reply is kept in session 'default', which is ready"
    assert cap.stdout.strip().splitlines()[-1] == note
    bundle = final_bundle(cap)
    assert bundle["text/markdown"].startswith("w0 w1")
    assert bundle["text/markdown"].endswith("*(interrupted)*")
    assert shell.user_ns["partial"].interrupted
    history = get_runner().get_or_create_session("default").history
    assert isinstance(history[-1], TurnComplete) and history[-1].interrupted
    assert history[-2].interrupted and history[-2].text in bundle["text/plain"]
    backend.token_delay = 0
    result, cap = run(shell, "%%agent\nagain", cell_id="J")
    assert result.success and final_bundle(cap)["text/plain"] == "after"


def test_backend_failure_is_one_line(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    backend.enqueue(RuntimeError("model fell over"))
    result, cap = run(shell, "%%agent\nhi")
    usage_error(result, cap, "BackendError")
    assert isinstance(get_runner().get_or_create_session("default").history[-1], TurnComplete)


def test_busy_session_is_refused(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    backend.enqueue(" ".join(["x"] * 100))
    backend.token_delay = 0.01
    session = get_runner().get_or_create_session("default")
    stream = session.run_async("widget turn")
    try:
        for line in ("", "--new"):
            result, cap = run(shell, f"%%agent {line}\nfrom a cell")
            usage_error(result, cap, "already running")
        assert session.busy  # --new did not cancel the other turn
    finally:
        stream.cancel()
    wait_until(lambda: not session.busy, what="the cancelled widget turn to end")
    assert turns() == ["widget turn"]


TEMPERATURE = "temperature must be a finite number between 0 (inclusive) and 2.0"


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("--bogus", "unrecognized arguments: --bogus"),
        ("bad/id", "invalid session id 'bad/id'"),
        ("-m nosuch:model", "Unknown model spec 'nosuch:model'"),
        ("-t -1", TEMPERATURE + ", got -1.0"),
        ("-t nan", TEMPERATURE + ", got nan"),
        ("-t inf", TEMPERATURE + ", got inf"),
        ("-t 60", TEMPERATURE + ", got 60.0"),
        ("-t warm", "invalid float value"),
        ("--max-tokens 0", "--max-tokens must be at least 1 (the context window of scripted"),
        ("-o 2bad", "-o needs a Python variable name"),
        ("--format html", "invalid choice"),
        ('-s "unclosed', "cannot parse"),
        ("--cells 0", "--cells needs a number of cells of at least 1, got 0"),
        ("--cells two", "argument --cells: invalid int value: 'two'"),
        ("--outputs", "--outputs goes with --cells N"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(
    shell: InteractiveShell, backend: ScriptedBackend, line: str, fragment: str
) -> None:
    run(shell, "%%agent\nkeep me")
    result, cap = run(shell, f"%%agent {line}\nhello")
    usage_error(result, cap, fragment)
    assert len(backend.requests) == 1 and turns() == ["keep me"]
    assert cap.outputs == []


@pytest.mark.parametrize(
    ("setting", "fragment"),
    [
        ("temperature = float('nan')", "AgentMagics.temperature must be a finite number between 0"),
        ("temperature = float('inf')", "AgentMagics.temperature must be a finite number between 0"),
        ("stream_interval = float('nan')", "AgentMagics.stream_interval must be a finite"),
        (
            "temperature = 2.5",
            "AgentMagics.temperature must be a finite number between 0 "
            "(inclusive) and 2.0, got 2.5",
        ),
        ("repetition_stop = 1", "AgentMagics.repetition_stop must be 0 (off) or at least 2"),
        ("repetition_stop = -1", "AgentMagics.repetition_stop (0 turns it off) must be a whole"),
    ],
)
def test_non_finite_settings_are_refused(
    shell: InteractiveShell, caplog: pytest.LogCaptureFixture, setting: str, fragment: str
) -> None:
    before = magics(shell).temperature, magics(shell).stream_interval, magics(shell).repetition_stop
    with pytest.raises(UsageError) as refused:  # the cell fails, so Run All stops there
        shell.run_line_magic("config", f"AgentMagics.{setting}")
    assert fragment in str(refused.value)
    name = setting.split()[0]
    kept = getattr(magics(shell), name)
    assert str(refused.value).endswith(f"AgentMagics.{name} stays {kept!r}.")
    m = magics(shell)
    assert (m.temperature, m.stream_interval, m.repetition_stop) == before
