"""The result as a Vega-Lite chart (Altair), with a static SVG beside it for exports.

A ranking is a bar chart, a trend a line. `chart_for` builds the Altair
chart; `chart_bundle` is the display bundle of a ``%%agent --data`` cell: the
Vega-Lite spec (JupyterLab, Notebook 7 and VS Code render it natively) and an
``image/svg+xml`` rendering from vl-convert, so an nbconvert HTML export shows
the chart offline. `view_bundle` is what the data agent's message carries in
the transcript (`TextMessage.attachments`, stored with the turn): the plan
line, the result table (Table Schema, as pandas writes it) and the Vega-Lite
spec, all JSON made from computed values, never from model text; the chat
widget draws the spec with its bundled vega-embed. Altair and vl-convert are imported only
when a chart is made (the ``data`` extra).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .execute import Result

__all__ = [
    "PLAN_MIME",
    "TABLE_MIME",
    "VEGA_LITE_MIME",
    "VIEW_CHART_MIME",
    "chart_bundle",
    "chart_for",
    "view_bundle",
]

VEGA_LITE_MIME = "application/vnd.vegalite.v5+json"
#: The widget's spec keeps the Vega-Lite version Altair wrote (its vega-lite is that major).
VIEW_CHART_MIME = "application/vnd.vegalite.v6+json"
#: pandas' ``to_json(orient="table")``: Table Schema fields, then the rows as records.
TABLE_MIME = "application/vnd.dataresource+json"
PLAN_MIME = "text/plain"


def chart_for(result: Result, title: str = "") -> Any:
    """The Altair chart of ``result``, or None when it has none (a single number)."""
    if result.chart is None or not result.x or not result.y:
        return None
    import altair as alt

    frame = result.frame[[result.x, result.y]].copy()
    frame[result.x] = frame[result.x].astype(str)
    base = alt.Chart(frame, title=title or f"{result.y} by {result.x}")
    x, y = _field(result.x), _field(result.y)
    if result.chart == "line":
        return base.mark_line(point=True).encode(
            x=alt.X(field=x, type="ordinal", sort=None, title=result.x),
            y=alt.Y(field=y, type="quantitative", title=result.y),
        )
    return base.mark_bar().encode(
        x=alt.X(field=y, type="quantitative", title=result.y),
        y=alt.Y(field=x, type="nominal", sort=None, title=result.x),
    )


def _field(name: str) -> str:
    """A column name as a Vega-Lite field: ``.`` and brackets would read as a nested
    field ("No.", "Pop. [1]"), so they are escaped; given as ``field=``, a ``:``
    ("Country:") is no type shorthand."""
    return re.sub(r"([\\.\[\]])", r"\\\1", name)


def chart_bundle(chart: Any) -> dict[str, Any]:
    """The MIME bundle that shows ``chart``: Vega-Lite spec, static SVG, a text line."""
    import vl_convert as vlc

    spec = chart.to_dict()
    # JupyterLab 4 renders Vega-Lite 5; a bar or a line means the same under either schema
    shown = {**spec, "$schema": "https://vega.github.io/schema/vega-lite/v5.json"}
    bundle: dict[str, Any] = {VEGA_LITE_MIME: shown, "text/plain": "<chart>"}
    try:
        bundle["image/svg+xml"] = vlc.vegalite_to_svg(spec)
    except Exception as exc:  # a chart vl-convert cannot draw still has its spec
        bundle["text/plain"] = f"<chart: no static image ({type(exc).__name__})>"
    return bundle


def view_bundle(plan: str, frame: Any, chart: Any) -> dict[str, Any]:
    """The data agent's attachments (`Answer.view`): the plan line, the result table
    and the chart's spec (when there is a chart)."""
    bundle: dict[str, Any] = {PLAN_MIME: f"plan: {plan}"}
    if frame is not None:  # (None: a reading not understood shows no numbers)
        # pandas writes NaN as null and dates as ISO text: JSON as stored, as shown
        bundle[TABLE_MIME] = json.loads(
            frame.to_json(orient="table", index=False, date_format="iso")
        )
    if chart is not None:
        # Validation is the schema check of a shape fixed in `chart_for`, and costs a
        # second on a kernel's first chart, before the writer may start
        bundle[VIEW_CHART_MIME] = chart.to_dict(validate=False)
    return bundle
