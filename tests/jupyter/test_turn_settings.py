"""One rule for a turn's settings, in cells and widgets alike (the runtime's
`turn_settings`, resolved at the front door from what the surface asked for and the
kernel's settings snapshot, `agent_nb._jupyter.turn_settings.kernel_settings`).

An explicit cell or widget option wins, then the agent's own
`GenerationConfig`, then the kernel's ``%config AgentMagics`` defaults. The
scripted backend keeps every request, so each test reads the settings the
model was actually called with.
"""

from __future__ import annotations

from collections.abc import Callable

import comm
import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import Agent, AgentRunner, GenerationConfig, LoopAgent, TurnComplete, get_runner
from agent_nb._jupyter.turn_settings import kernel_settings
from agent_nb._jupyter.widget.chat_widget import ChatWidget
from agent_nb._runtime.turn_settings import TurnAsk, turn_options
from agent_nb.backends import ScriptedBackend
from tests.fixtures_magics import run
from tests.jupyter.test_widget import RecordingComm, send_and_wait

LOOP = "The same sentence comes back again and again. "  # longer than MIN_SPAN


@pytest.fixture(autouse=True)
def recording_comms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(comm, "create_comm", RecordingComm)


def four() -> Agent:
    return Agent(name="four", config=GenerationConfig(max_tokens=4))


def cell_turn(shell: InteractiveShell, session_id: str, flags: str = "") -> None:
    result, cap = run(shell, f"%%agent {session_id} {flags}\ncount to ten")
    assert result.success, cap.stderr


def widget_turn(shell: InteractiveShell, session_id: str, flags: str = "") -> None:
    assert not flags
    widget = ChatWidget(get_runner().get_or_create_session(session_id))
    send_and_wait(widget, "count to ten")
    widget.close()


Surface = Callable[[InteractiveShell, str], None]
SURFACES = pytest.mark.parametrize("turn", [cell_turn, widget_turn], ids=["cell", "widget"])


def finish(session_id: str) -> TurnComplete:
    done = [e for e in get_runner().get_or_create_session(session_id).history
            if isinstance(e, TurnComplete)]  # fmt: skip
    return done[-1]


def test_a_widget_turn_honours_the_kernels_repetition_stop(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    backend.enqueue(LOOP * 8, LOOP * 8)
    widget_turn(shell, "stops")
    assert backend.requests[-1].config.repetition_stop == 3
    assert finish("stops").finish_reason == "repetition"
    run(shell, "%config AgentMagics.repetition_stop = 0")
    widget_turn(shell, "goes-on")
    assert backend.requests[-1].config.repetition_stop == 0
    assert finish("goes-on").finish_reason == "stop"


@SURFACES
def test_the_agents_own_max_tokens_applies(
    shell: InteractiveShell, backend: ScriptedBackend, turn: Surface
) -> None:
    run(shell, "%config AgentMagics.max_tokens = 9\n%config AgentMagics.temperature = 0.5")
    get_runner().get_or_create_session("s", agent=four())
    backend.enqueue("one two three four five six seven eight nine ten")
    turn(shell, "s")
    config = backend.requests[-1].config
    assert config.max_tokens == 4
    assert config.temperature == 0.5  # field by field: the agent set only max_tokens
    reply = get_runner().get_or_create_session("s").history[1]
    assert reply.text.split() == ["one", "two", "three", "four"]  # type: ignore[attr-defined]
    assert finish("s").max_tokens == 4


@SURFACES
def test_inside_a_loop_agent_each_agent_keeps_its_own_config(
    shell: InteractiveShell, backend: ScriptedBackend, turn: Surface
) -> None:
    run(shell, "%config AgentMagics.max_tokens = 9")
    loop = LoopAgent(name="loop", sub_agents=[four(), Agent(name="other")], max_iterations=1)
    get_runner().get_or_create_session("looped", agent=loop)
    backend.enqueue("a b c d e f g h i j k l", "a b c d e f g h i j k l")
    turn(shell, "looped")
    assert [r.config.max_tokens for r in backend.requests] == [4, 9]


def test_an_explicit_cell_option_beats_the_agents_config(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    get_runner().get_or_create_session("s", agent=four())
    cell_turn(shell, "s", "--max-tokens 7 -t 0.3")
    config = backend.requests[-1].config
    assert (config.max_tokens, config.temperature) == (7, 0.3)
    cell_turn(shell, "s", "--once --max-tokens 6")  # a temporary session: the same rule
    assert backend.requests[-1].config.max_tokens == 6


def test_the_widgets_config_beats_the_agents_and_the_kernels(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    run(shell, "%config AgentMagics.temperature = 0.5")
    session = get_runner().get_or_create_session("s", agent=four())
    widget = ChatWidget(session, config=GenerationConfig(max_tokens=7, top_p=0.9))
    send_and_wait(widget, "hi")
    config = backend.requests[-1].config
    assert (config.max_tokens, config.top_p) == (7, 0.9)
    assert config.temperature == 0.5  # the widget's config left it at the default: not set
    widget.close()


@SURFACES
def test_the_kernel_default_applies_when_neither_sets_it(
    shell: InteractiveShell, backend: ScriptedBackend, turn: Surface
) -> None:
    get_runner().get_or_create_session("plain", agent=Agent(name="plain"))
    turn(shell, "plain")
    assert backend.requests[-1].config.max_tokens == 512  # AgentMagics.max_tokens' default
    run(shell, "%config AgentMagics.max_tokens = 9")
    turn(shell, "plain")
    assert backend.requests[-1].config.max_tokens == 9


def test_a_data_cell_keeps_the_agents_config(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns["df"] = pd.DataFrame({"region": ["North", "South"], "revenue": [1.0, 2.0]})
    get_runner().get_or_create_session("s", agent=four())
    cell_turn(shell, "s", "--data df --data-wording model")
    assert backend.requests[-1].config.max_tokens == 4


def test_without_the_extension_the_agents_settings_apply(runner: AgentRunner) -> None:
    assert _not_loaded()  # a plain shell (or none): nothing gives kernel defaults
    assert kernel_settings() is None
    assert turn_options(kernel_settings(), TurnAsk()).defaults == {}
    session = runner.get_or_create_session("bare", agent=four())
    widget = ChatWidget(session, runner=runner)
    send_and_wait(widget, "hi")
    backend = runner.backend
    assert isinstance(backend, ScriptedBackend)
    assert backend.requests[-1].config == GenerationConfig(max_tokens=4)
    widget.close()


def _not_loaded() -> bool:
    from IPython import get_ipython

    shell = get_ipython()
    return shell is None or "AgentMagics" not in shell.magics_manager.registry


def test_bad_explicit_values_fail_before_the_turn() -> None:
    with pytest.raises(ValueError, match="max_tokens must be a whole number >= 1"):
        turn_options(None, TurnAsk(max_tokens=0))
