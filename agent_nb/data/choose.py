"""The model fills the whole plan, under a grammar built from this table's schema.

Where the words leave a choice open (`answer.Answer.open`: a measure the
question never names, a threshold whose column only its range suggests),
the data agent asks the turn's model for the whole plan. `plan_schema` is
the one place that builds the chooser's schema: its enums are this table's
columns by role, the operations, aggregations and filter operators, and the
category values; on MLX the reply decodes under that grammar, a server's
reply is validated against it. The model's call is an `Agent` with that
``output_schema``, run by `choose_plan` inside the data turn's invocation
(its worker loop, cancel token, replay and trace), as an `AgentTool`'s agent
is: its events are its own, not the session's.

The reply is parsed into a `Plan` (pydantic; never evaluated) and validated
by running it (`answer.refine`); the word matcher's candidates stay behind
it, so a small model that answers badly changes nothing.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .query import AGGREGATIONS, FILTER_OPS, Filter, Plan
from .table import Table

if TYPE_CHECKING:
    from .._runtime.context import InvocationContext

__all__ = ["CHOOSER_NAME", "choose_plan", "chooser_agent", "plan_from_reply", "plan_schema"]

CHOOSER_NAME = "data_chooser"
_MAX_VALUES = 60  # category values offered in the grammar
_PROMPT = (
    "Table {table} has columns: {columns}.\nQuestion: {question}\n"
    "Fill the query that answers the question, as JSON."
)


def plan_schema(table: Table) -> dict[str, Any]:
    """The JSON schema of a whole plan over ``table`` (see the module docstring)."""
    cols = [c for c in table.columns.values() if c.role != "empty"]
    numeric = [c.name for c in cols if c.numeric] or [c.name for c in cols]
    groups = [c.name for c in cols if c.role in ("category", "label", "time", "id")] or [
        c.name for c in cols
    ]
    values: list[Any] = []
    for c in cols:
        if c.role == "category":
            values += [v for v in c.values.values() if isinstance(v, (str, int, float))][:10]
    values = list(dict.fromkeys(values))[:_MAX_VALUES]
    value: dict[str, Any] = {"anyOf": [{"type": "number"}] + ([{"enum": values}] if values else [])}
    filt = {
        "type": "object",
        "properties": {
            "column": {"enum": [c.name for c in cols]},
            "op": {"enum": [o for o in FILTER_OPS if o not in ("between", "in")]},
            "value": value,
        },
        "required": ["column", "op", "value"],
        "additionalProperties": False,
    }
    times = [c.name for c in cols if c.role == "time"]
    every = [c.name for c in cols]
    part: dict[str, dict[str, Any]] = {
        "measure": {"enum": numeric},
        "agg": {"enum": list(AGGREGATIONS)},
        "group_by": {"enum": groups},
        "filters": {"type": "array", "items": filt, "maxItems": 3},
        "order": {"enum": ["desc", "asc"]},
        "k": {"type": "integer", "minimum": 1, "maximum": 50},
        "time": {"enum": times},
        "other": {"enum": numeric},
    }
    optional = {"measure": {"enum": [*numeric, None]}, "group_by": {"enum": [*groups, None]}}
    # One branch per operation, each with the parts that operation cannot run without
    # (query.REQUIRED): a correlation without its two columns is not in the grammar.
    shapes: dict[str, dict[str, dict[str, Any]]] = {
        "aggregate": {},
        "rank": {"group_by": part["group_by"]},
        "extreme": {"measure": part["measure"]},
        "distinct": {"measure": {"enum": every}},
        "values": {"group_by": {"enum": every}},
        "lookup": {"group_by": {"enum": every}},
        "missing": {"measure": {"enum": [*every, None]}},
        "shape": {},
    }
    if times:
        shapes["trend"] = {"measure": part["measure"], "time": part["time"]}
    if len(numeric) > 1:
        shapes["correlation"] = {"measure": part["measure"], "other": part["other"]}
    branches = []
    for op, own in shapes.items():
        # every branch has the same parts (a model fills them all), each constrained
        props = {"op": {"const": op}, **optional, "agg": part["agg"], **own}
        props.update({k: part[k] for k in ("filters", "order", "k")})
        branches.append(
            {
                "type": "object",
                "properties": props,
                "required": list(props),
                "additionalProperties": False,
            }
        )
    return {"anyOf": branches}


def chooser_agent(table: Table, question: str, max_tokens: int = 160) -> Any:
    """The chooser: an `Agent` whose reply must be a plan of ``table``."""
    from .._core.types import GenerationConfig
    from .._runtime.agents import Agent

    columns = ", ".join(f"{c.name} ({c.role})" for c in table.columns.values() if c.role != "empty")
    return Agent(
        name=CHOOSER_NAME,
        instructions=_PROMPT.format(table=table.name, columns=columns, question=question),
        output_schema=plan_schema(table),
        config=GenerationConfig(max_tokens=max_tokens, temperature=0.0),
    )


def plan_from_reply(data: Any, table: Table) -> Plan | None:
    """The model's JSON value as a `Plan` of ``table``, or None when it names what is
    not there or does not parse (only names and plain values are read)."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError:
            return None
    if not isinstance(data, dict):
        return None
    try:
        filters = tuple(Filter(**f) for f in data.get("filters") or ())
        plan = Plan(
            op=data["op"],
            measure=data.get("measure"),
            agg=data.get("agg", "sum"),
            group_by=data.get("group_by"),
            time=data.get("time"),
            other=data.get("other"),
            filters=filters,
            order=data.get("order", "desc"),
            k=data.get("k", 1),
        )
    except (KeyError, TypeError, ValueError):  # pydantic's ValidationError included
        return None
    named = [plan.measure, plan.group_by, plan.time, plan.other, *(f.column for f in plan.filters)]
    if any(n is not None and n not in table.columns for n in named):
        return None
    return plan


async def choose_plan(ctx: InvocationContext, table: Table, question: str) -> Plan | None:
    """Ask the turn's model for the whole plan, inside the turn (see the module docstring)."""
    from .._core.reply import last_structured
    from .._core.types import Event, TextMessage
    from .._runtime.engine import Collect, drive

    agent = chooser_agent(table, question)
    events: list[Event] = []
    asked = TextMessage(text=question, author="user", invocation_id=ctx.invocation_id)
    inner = ctx.for_tool_run(agent, lambda: [asked, *events])
    await drive(agent.run_async(inner), inner, Collect(events))
    structured = last_structured(events, ctx.turn.structured)
    if structured is None or structured.error is not None or structured.author != agent.name:
        return None
    return plan_from_reply(structured.data, table)
