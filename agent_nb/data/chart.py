"""The result as a Vega-Lite chart (Altair), with a static SVG beside it for exports.

A ranking is a bar chart, a trend a line. `chart_for` builds the Altair
chart; `chart_bundle` is the display bundle: the Vega-Lite spec (JupyterLab,
Notebook 7 and VS Code render it natively; the chat widget with its bundled
vega-embed) and an ``image/svg+xml`` rendering from vl-convert, so an
nbconvert HTML export shows the chart offline. Altair and vl-convert are
imported only when a chart is made (the ``data`` extra).
"""

from __future__ import annotations

from typing import Any

from .compute import Result

__all__ = ["VEGA_LITE_MIME", "chart_bundle", "chart_for"]

VEGA_LITE_MIME = "application/vnd.vegalite.v5+json"


def chart_for(result: Result, title: str = "") -> Any:
    """The Altair chart of ``result``, or None when it has none (a single number)."""
    if result.chart is None or not result.x or not result.y:
        return None
    import altair as alt

    frame = result.frame[[result.x, result.y]].copy()
    frame[result.x] = frame[result.x].astype(str)
    base = alt.Chart(frame, title=title or f"{result.y} by {result.x}")
    if result.chart == "line":
        return base.mark_line(point=True).encode(
            x=alt.X(f"{result.x}:O", sort=None), y=alt.Y(f"{result.y}:Q")
        )
    return base.mark_bar().encode(x=alt.X(f"{result.y}:Q"), y=alt.Y(f"{result.x}:N", sort=None))


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
