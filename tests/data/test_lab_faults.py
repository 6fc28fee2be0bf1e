"""The data faults found in JupyterLab (issue 37, must have 8), each through the real
IPython shell and the real magic on a scripted model; and --data with --schema,
--choice and reply.answer."""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import CapturedIO

from agent_nb import AgentRunner
from agent_nb.backends import ScriptedBackend
from agent_nb.data.answer import ask
from tests.data.tables import table
from tests.fixtures_magics import magics
from tests.jupyter import test_widget as widget_tests
from tests.jupyter.test_widget import WidgetFactory, send_and_wait, wait_for

recording_comms = widget_tests.recording_comms
open_widget = widget_tests.open_widget
CHANGED = "changed since this answer"


def run(sh: InteractiveShell, source: str, cell_id: str | None = None) -> tuple[Any, CapturedIO]:
    from IPython.utils.capture import capture_output

    with capture_output() as cap:
        result = sh.run_cell(source, store_history=True, cell_id=cell_id)
    return result, cap


def _marks(cap: CapturedIO) -> list[str]:
    return [o.data.get("text/plain", "") for o in cap.outputs if o.update]


def test_a_column_given_as_df_col_is_answered_and_watched(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    run(
        shell,
        "import pandas as pd\ndf = pd.DataFrame({'revenue': [1.0, 2.0, 6.0], 'x': [1, 2, 3]})",
    )
    backend.enqueue("The mean revenue is 3.")
    result, cap = run(shell, "%%agent --data 'df[\"revenue\"]' -o r\nWhat is the average?", "a")
    assert result.error_in_exec is None, cap.stderr
    assert shell.user_ns["r"].answer == 3 and "names nothing" not in cap.stdout
    _, cap = run(shell, "df.loc[0, 'revenue'] = 100.0")
    assert any(CHANGED in m for m in _marks(cap)), "a change of the column marks the answer"


def test_a_tz_change_of_a_datetime_index_marks_the_answer(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    run(shell, "import pandas as pd\nidx = pd.date_range('2024-01-01', periods=30, freq='D', "
               "tz='UTC')\nts = pd.DataFrame({'v': range(30)}, index=idx)")  # fmt: skip
    backend.enqueue("It rose.")
    run(shell, "%%agent --data ts\nHow did v change over time?", "t")
    _, cap = run(shell, "ts.index = ts.index.tz_convert('America/New_York')")
    assert any(CHANGED in m for m in _marks(cap))


def test_a_trend_over_tz_aware_dates_leaks_no_warning() -> None:
    ts = pd.DataFrame({
        "when": pd.date_range("2020-01-01", periods=800, freq="D", tz="Europe/Berlin"),
        "v": range(800),
    })  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a pandas UserWarning fails the test
        answer = ask({"ts": ts}, "How did v change over time?")
    assert answer.plan.op == "trend" and answer.result.frame.shape[0] >= 2


def test_a_whole_template_sentence_is_not_called_cut_off(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    run(shell, "import pandas as pd\ns = pd.DataFrame({'region': ['N', 'S'], 'total': [5, 7]})")
    backend.enqueue("Region N sold the most, with")  # cut at the limit, and wrong
    line = "%%agent --data s --max-tokens 4 --data-wording model -o r\nWhich region has most?"
    _, cap = run(shell, line)
    reply = shell.user_ns["r"]
    assert reply.text.startswith("S has the highest total total (7).") or "S has" in reply.text
    assert "cut off" not in reply.note and "cut off" not in cap.stdout


def test_the_plans_why_names_the_columns_it_uses() -> None:
    answer = ask({"penguins": table("penguins")}, "Which species has the longest flippers?")
    assert answer.plan.measure == "flipper_length_mm"
    assert "flipper_length_mm" in answer.why and "bill_length_mm" not in answer.why


def test_a_widget_answers_from_a_rebound_name(
    runner: AgentRunner, scripted: ScriptedBackend, open_widget: WidgetFactory
) -> None:
    from IPython import get_ipython

    shell = get_ipython() or InteractiveShell.instance()
    shell.user_ns["cars"] = pd.DataFrame({"name": ["a", "b"], "hp": [100.0, 200.0]})
    w = open_widget("rebound", runner=runner, data={"cars": shell.user_ns["cars"]})
    shell.user_ns["cars"] = pd.DataFrame({"name": ["a", "b"], "hp": [300.0, 50.0]})
    send_and_wait(w, "Which car has the most hp?")
    entries = wait_for(lambda: w.transcript if w.transcript[-1]["kind"] == "turn" else None)
    data = next(e for e in entries if e["kind"] == "data")
    assert data["text"].startswith("a has the highest hp (300)")  # the current cars


@pytest.mark.parametrize("option", ["--choice 'yes|no'", "--schema Verdict"])
def test_data_with_a_constrained_reply(
    shell: InteractiveShell, backend: ScriptedBackend, option: str
) -> None:
    run(shell, "import pandas as pd\nfrom pydantic import BaseModel\n"
               "class Verdict(BaseModel):\n    answer: str\n"
               "s = pd.DataFrame({'region': ['N', 'S'], 'total': [5, 7]})")  # fmt: skip
    backend.enqueue('"yes"' if "choice" in option else '{"answer": "S"}')
    result, cap = run(shell, f"%%agent --data s {option} -o r\nIs the sum of total above 10?")
    assert result.error_in_exec is None, cap.stderr
    reply = shell.user_ns["r"]
    assert "not JSON" not in cap.stdout + cap.stderr and reply.parsed is not None
    assert reply.answer is True  # the plan's typed answer beside the constrained reply
    request = backend.requests[-1]
    assert request.response_schema is not None
    assert "Yes" in str(request.contents) or "Yes" in str(request)  # the result is the input


def test_reply_answer_is_typed(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    run(shell, "import pandas as pd\np = pd.DataFrame({'species': ['Adelie', 'Adelie', 'Gentoo'], "
               "'mass': [3.0, 4.0, 6.0]})")  # fmt: skip
    cases = {
        "Are there more Adelie than Gentoo?": True,
        "How many rows have mass over 3.5?": 2,
        "Which species is heaviest?": "Gentoo",
        "List the 2 highest mass values.": [6, 4],
    }
    for question, expected in cases.items():
        backend.enqueue("ok")
        run(shell, f"%%agent --data p -o r\n{question}")
        assert shell.user_ns["r"].answer == expected, question
    assert magics(shell) is not None
