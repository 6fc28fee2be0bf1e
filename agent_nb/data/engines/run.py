"""The engine's `run_plan`: a `Plan` compiled to Ibis and run where the data lives
(`compile` holds the why; `execute.run_plan` sends a `profile.SourceTable` here)."""

from __future__ import annotations

from typing import Any

from ..query import Plan
from ..result import PlanError, Result
from .compile import engine_for
from .compile_ops import ENGINE_OPS
from .sources import engine_error

__all__ = ["run_compiled"]


def run_compiled(table: Any, plan: Plan) -> Result:
    """The answer to ``plan`` over ``table`` (a `profile.SourceTable`), computed by its engine."""
    try:
        e = engine_for(table, plan)
        return ENGINE_OPS[plan.op](e, plan)
    except PlanError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise PlanError(f"{plan.describe()}: {type(exc).__name__}: {exc}") from None
    except Exception as exc:  # the engine's own errors: one line, the query is ours
        raise engine_error(table.source, plan, exc) from None
