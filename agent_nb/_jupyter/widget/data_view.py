"""A data answer in the widget's transcript: the stored bundle as the view gets it.

The data agent's message carries a display bundle (`TextMessage.attachments`,
made by `agent_nb.data.chart.view_bundle`): the plan line, the result table
as Table Schema and the Vega-Lite spec. `data_entry_fields` reads it into a
`DataEntry`'s fields; `data_text` and `data_html` are the same answer where no
JavaScript runs (the widget's static bundle, `static_view`): the table as
escaped text, the chart as vl-convert's SVG where it can be drawn.
`chart_module_source` is the vega-embed bundle a view asks for once per page.
"""

from __future__ import annotations

import functools
import html
import json
import pathlib
from collections.abc import Mapping
from typing import Any, TypedDict

__all__ = [
    "VEGA_BUNDLE",
    "TableDict",
    "chart_module_source",
    "data_entry_fields",
    "data_html",
    "data_text",
]

VEGA_BUNDLE = pathlib.Path(__file__).parents[2] / "static" / "vega.js"
_TABLE_MIME = "application/vnd.dataresource+json"
_PLAN_MIME = "text/plain"
_VEGA_LITE = "application/vnd.vegalite."


class TableDict(TypedDict):
    """A `protocol.DataEntry`'s table (defined here, where it is made)."""

    columns: list[str]
    rows: list[list[Any]]  # JSON values; the front end shows each as a text node


class _DataFields(TypedDict):
    plan: str
    table: TableDict | None
    chart: dict[str, Any] | None


def data_entry_fields(bundle: Mapping[str, Any]) -> _DataFields:
    """Plan, table and chart out of a stored bundle; anything missing or malformed
    is empty (a partial bundle, a newer writer's rows)."""
    plan = bundle.get(_PLAN_MIME)
    charts = [v for k, v in bundle.items() if k.startswith(_VEGA_LITE) and isinstance(v, dict)]
    return _DataFields(
        plan=plan if isinstance(plan, str) else "",
        table=_table(bundle.get(_TABLE_MIME)),
        chart=charts[0] if charts else None,
    )


def _table(resource: Any) -> TableDict | None:
    """A Table Schema resource as columns and rows, in the schema's column order."""
    try:
        columns = [str(f["name"]) for f in resource["schema"]["fields"]]
        rows = [[record.get(c) for c in columns] for record in resource["data"]]
    except (KeyError, TypeError, AttributeError):
        return None
    return TableDict(columns=columns, rows=rows)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    return str(value)


def data_text(bundle: Mapping[str, Any]) -> str:
    """The plan line and the table as aligned plain text."""
    fields = data_entry_fields(bundle)
    lines = [fields["plan"]] if fields["plan"] else []
    table = fields["table"]
    if table is not None:
        grid = [table["columns"], *([_cell(v) for v in row] for row in table["rows"])]
        widths = [max(len(row[i]) for row in grid) for i in range(len(table["columns"]))]
        lines += [
            "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in grid
        ]
    return "\n".join(lines)


def data_html(bundle: Mapping[str, Any]) -> str:
    """The table (every character escaped) and the chart as an SVG where it can be
    drawn offline (vl-convert installed); the SVG is vl-convert's, from our spec."""
    text = f'<pre style="white-space: pre">{html.escape(data_text(bundle))}</pre>'
    spec = data_entry_fields(bundle)["chart"]
    svg = _svg(json.dumps(spec, sort_keys=True)) if spec is not None else None
    return text + (f'<div class="agent-nb-chart">{svg}</div>' if svg else "")


@functools.lru_cache(maxsize=64)  # a widget's text view is redrawn at every display
def _svg(spec_json: str) -> str | None:
    try:
        import vl_convert as vlc

        return str(vlc.vegalite_to_svg(json.loads(spec_json)))
    except Exception:  # no vl-convert, or a spec it cannot draw: the table still shows
        return None


@functools.cache
def chart_module_source() -> str:
    """The vega-embed bundle (``npm run build`` writes it beside widget.js)."""
    return VEGA_BUNDLE.read_text(encoding="utf-8")
