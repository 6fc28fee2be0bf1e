"""The plan path over the question set, without a model: the plan's operation and
its computed result match the truth pandas computes in the test."""

from __future__ import annotations

import math
import warnings

import pytest

from agent_nb.data.answer import ask
from agent_nb.data.evidence import check_sentence
from tests.data.questions import QUESTIONS, Question


def test_the_set_is_large_and_varied() -> None:
    assert len(QUESTIONS) >= 80 and len({q.table for q in QUESTIONS}) >= 8
    kinds = {q.op for q in QUESTIONS}
    assert kinds >= {
        "aggregate",
        "rank",
        "extreme",
        "trend",
        "missing",
        "shape",
        "correlation",
        "columns",
    }
    covered = " ".join(q.kind for q in QUESTIONS)
    for kind in (
        "synonym",
        "no column",
        "index",
        "per-group trend",
        "negation",
        "threshold",
        "several values",
        "boolean",
        "list",
    ):
        assert kind in covered


@pytest.mark.parametrize("q", QUESTIONS, ids=lambda q: f"{q.table}: {q.text}")
def test_plan_and_result(q: Question) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # numpy never leaks into the cell
        answer = ask({q.table: q.frame()}, q.text)
    assert answer.plan.op == q.op, answer.reasons
    assert answer.understood, answer.sentence  # the value is stated, not only computed
    name, number = q.truth(q.frame())
    result = answer.result
    if name in ("Yes", "No"):
        assert answer.value is (name == "Yes") and answer.sentence.startswith(name)
    elif name is not None:
        assert str(name) in (str(answer.value), *result.names[:1], *map(str, result.names)), (
            answer.sentence
        )
        assert str(name) in answer.sentence
    if number is not None:
        stated = [v for _, v in result.roles] + [abs(v) for _, v in result.roles]
        assert any(math.isclose(v, number, rel_tol=1e-9, abs_tol=1e-9) for v in stated), (
            answer.sentence
        )
    if q.op == "columns":
        assert "columns are" in answer.sentence
    assert check_sentence(answer.sentence, answer.reference) is None  # the template is true
    assert len(result.frame) <= 60
