"""The ``--data`` half of ``%%agent``: which objects, the data pipeline, and its display.

``--data df`` names notebook variables; ``--data 'df["revenue"]'`` (or
``df[revenue]``, which is what the shell's quoting leaves of
``df["revenue"]``) names one column of a DataFrame, kept as a one-column
frame: a subscript of a known variable by a key it holds, looked up, never
evaluated. Before the turn starts the magic asks the data agent for its
answer (`DataAgent.answer`: plan and compute, a second or less), so a table
nothing can be computed from fails in one line and nothing is recorded; the
model fills the whole plan, inside the turn, only where the words left a
choice open (`agent_nb.data.choose`). After the turn, `show_answer` displays the result
table and its chart (Vega-Lite with a static SVG beside it) and `attach`
puts them on the `Reply` (``reply.answer``, ``reply.data``, ``reply.chart``).
"""

from __future__ import annotations

import dataclasses
import re
import sys
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ..._core.reply import Reply

if TYPE_CHECKING:
    from ...data.answer import Answer
    from ..data_question import DataQuestion

__all__ = ["attach", "lookup_data", "prepare_answer", "read_data_context", "show_answer"]

_SUBSCRIPT = re.compile(r"^([A-Za-z_]\w*)\[(['\"]?)(.+?)\2\]$")


def lookup_data(ns: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """name -> object for each ``--data`` name; a UsageError names what is unknown."""
    found: dict[str, Any] = {}
    missing = []
    for name in dict.fromkeys(names):
        if name in ns:
            found[name] = ns[name]
            continue
        m = _SUBSCRIPT.match(name)
        pandas = sys.modules.get("pandas")
        base = ns.get(m.group(1)) if m else None
        if m and pandas is not None and isinstance(base, pandas.DataFrame):
            key = m.group(3)
            if key in base.columns:
                found[f'{m.group(1)}["{key}"]'] = base[[key]]
                continue
            missing.append(f'{m.group(1)}["{key}"] (no column {key!r})')
            continue
        missing.append(f'{m.group(1)}["{m.group(3)}"]' if m else name)
    if missing:
        raise UsageError(f"--data: unknown variable(s) {', '.join(missing)}; define them first")
    return found


def read_data_context(ns: dict[str, Any], spec: str | None) -> Any:
    """``--data-context VAR`` (a dict variable) or ``FILE`` (YAML): the user's words for
    the tables' columns and values (`agent_nb.data.context`)."""
    if not spec:
        return None
    from ...data.context import read_context

    source = ns.get(spec, spec)
    try:
        return read_context(source)
    except ValueError as exc:
        raise UsageError(str(exc).replace("--context", "--data-context")) from None


def prepare_answer(data: DataQuestion) -> DataQuestion:
    """``data`` with its answer computed now; a table or question nothing comes of is
    one line, before anything is recorded."""
    try:
        data.answer()
    except (ValueError, TypeError) as exc:
        raise UsageError(f"--data: {exc}") from None
    return data


def show_answer(answer: Answer) -> Any:
    """Display the result table, its chart and notes; returns the chart (or None)."""
    from IPython.display import display

    from ...data.chart import chart_bundle

    for note in answer.notes:
        print(f"--data: {note}")
    if not answer.understood:
        # the reading left a word unplaced: what it computed answers another question,
        # so neither its table nor its chart is shown (the reply says what was read)
        print(f"plan, not answered: {answer.plan.describe()}")
        return None
    print(f"plan: {answer.plan.describe()}  (why: {answer.why})")
    if answer.note:
        print(f"--data: {answer.note}")
    display(answer.result.shown)  # cells read from text as numbers, as written
    chart = answer.chart
    if chart is not None:
        display(chart_bundle(chart), raw=True)
    return chart


def attach(reply: Reply, answer: Answer, chart: Any) -> Reply:
    """``reply`` with ``answer`` (the typed answer), ``data`` (the result table),
    ``chart`` and ``plan`` attached; no answer, table or chart where the reading
    was not understood (`Answer.understood`)."""
    shown = answer.data
    extra = {"answer": answer.value, "data": shown, "chart": chart, "plan": answer.plan}
    return dataclasses.replace(reply, attachments={**reply.attachments, **extra})
