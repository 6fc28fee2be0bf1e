"""The phrasing set (`tests/data/phrasings.py`) through the real ``%%agent --data``
magic, in a real IPython shell on the embedded model: ``reply.answer`` scored
against the pandas truth by DataBench's rules (numbers to two decimals, lists as
sets, booleans as yes/no), and no reply a "confident wrong number".

The set is written ahead of the code, so it is held to a pass rate (95 %, the
issue's bar) rather than to every question; a failure prints each failing
case (question, truth, answer, reply) for whoever works on the planner.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import Reply
from tests.data.phrasings import COVERS, PHRASINGS, Phrasing
from tests.data.scoring import SEMANTICS, as_databench, confident_wrong, databench_match
from tests.fixtures_magics import run

pytest.importorskip("vega_datasets")
pytest.importorskip("palmerpenguins")

PASS_RATE = 0.95
_HAS_ANSWER = "answer" in getattr(Reply, "__dataclass_fields__", {}) or hasattr(Reply, "answer")
_needs_answer = pytest.mark.skipif(
    not _HAS_ANSWER, reason="Reply has no typed `answer` yet (issue 37, must have 6)"
)


@dataclasses.dataclass
class Outcome:
    phrasing: Phrasing
    text: str
    answer: Any
    error: str

    def truths(self) -> list[Any]:
        """The truth, and for a share its percentage too."""
        truth = self.phrasing.expected()
        return [truth, truth * 100] if self.phrasing.percent else [truth]

    @property
    def correct(self) -> bool:
        kind = self.phrasing.kind
        if self.answer is None:
            return False
        value = as_databench(self.answer)
        return any(databench_match(value, as_databench(t), kind) for t in self.truths())

    @property
    def confident_wrong(self) -> bool:
        kind, question = self.phrasing.kind, self.phrasing.text
        return all(
            confident_wrong(self.text, as_databench(t), kind, question) for t in self.truths()
        )

    def line(self) -> str:
        p = self.phrasing
        reply = self.text.split("\n\n")[0][:160] or self.error
        return (
            f"  [{p.intent}] {p.table}: {p.text}\n"
            f"      truth={as_databench(p.expected())!r} answer={self.answer!r}\n"
            f"      reply={reply!r}"
        )


_OUTCOMES: list[Outcome] = []


@pytest.fixture
def backend(mlx_backend: Any) -> Any:
    """The magic tests' real shell (tests/fixtures_magics.py), on the embedded model."""
    return mlx_backend


def _ask(shell: InteractiveShell, p: Phrasing) -> Outcome:
    shell.user_ns[p.table] = p.frame().copy()
    shell.user_ns.pop("reply", None)
    result, cap = run(shell, f"%%agent --data {p.table} --once --max-tokens 16 -o reply\n{p.text}")
    reply = shell.user_ns.pop("reply", None)
    error = result.error_in_exec or result.error_before_exec
    note = f"{type(error).__name__}: {error}" if error is not None else cap.stderr.strip()
    if reply is None:
        return Outcome(p, "", None, note or "no reply")
    return Outcome(p, reply.text, getattr(reply, "answer", None), note)


def _outcomes(shell: InteractiveShell) -> list[Outcome]:
    """Every phrasing asked once per test session (both tests read the same replies)."""
    if len(_OUTCOMES) < len(PHRASINGS):  # none yet, or a run cut short (a timeout)
        _OUTCOMES[:] = [_ask(shell, p) for p in PHRASINGS]
    return _OUTCOMES


def _by_cover(outcomes: list[Outcome]) -> str:
    """Right answers per answer type and per `COVERS` entry: "boolean 20/30, ..."."""
    right: Counter[str] = Counter()
    asked: Counter[str] = Counter()
    for o in outcomes:
        for cover in (c.strip() for c in o.phrasing.covers.split(",") if c.strip()):
            asked[cover] += 1
            right[cover] += o.correct
        asked[o.phrasing.kind] += 1
        right[o.phrasing.kind] += o.correct
    return ", ".join(f"{c} {right[c]}/{asked[c]}" for c in (*SEMANTICS, *COVERS))


def test_the_set_covers_the_issue() -> None:
    by_intent = Counter(p.intent for p in PHRASINGS)
    assert min(by_intent.values()) >= 3, [i for i, n in by_intent.items() if n < 3]
    assert len({p.text for p in PHRASINGS}) == len(PHRASINGS)
    covered = {c.strip() for p in PHRASINGS for c in p.covers.split(",") if c.strip()}
    assert covered == set(COVERS)
    assert {p.kind for p in PHRASINGS} == set(SEMANTICS)
    shapes = {"boolean": bool, "number": float, "category": str}
    for p in PHRASINGS:  # the truths compute, and have their answer type's shape
        truth = p.expected()
        if p.kind.startswith("list["):
            assert isinstance(truth, list) and truth, p.text
        elif p.kind == "number":
            assert isinstance(float(truth), float) and truth == truth, p.text  # not NaN
        else:
            assert isinstance(truth, shapes[p.kind]), (p.text, truth)


def test_the_word_planner_alone_is_right_for_95_percent() -> None:
    """The same set without the model or the magic (`agent_nb.data.answer.ask`): the
    word planner's typed answer, a fast check of what the model will lean on."""
    from agent_nb.data.answer import ask

    if not hasattr(ask({"t": PHRASINGS[0].frame()}, PHRASINGS[0].text), "value"):
        pytest.skip("the data agent's Answer has no typed `value` yet (issue 37)")
    outcomes = []
    for p in PHRASINGS:
        try:
            answer = ask({p.table: p.frame()}, p.text)
            outcomes.append(Outcome(p, answer.sentence, answer.value, ""))
        except ValueError as exc:  # a question no plan can answer: one line, no value
            outcomes.append(Outcome(p, "", None, str(exc)))
    wrong = [o for o in outcomes if not o.correct]
    rate = 1 - len(wrong) / len(outcomes)
    assert rate >= PASS_RATE, (
        f"the word planner is right for {len(outcomes) - len(wrong)}/{len(outcomes)} "
        f"({rate:.0%}), below {PASS_RATE:.0%}\nright by type and cover: {_by_cover(outcomes)}\n"
        + "\n".join(o.line() for o in wrong)
    )
    bad = [o for o in outcomes if o.confident_wrong]
    assert not bad, f"{len(bad)} confident wrong numbers:\n" + "\n".join(o.line() for o in bad)


@pytest.mark.mlx
@pytest.mark.timeout(3600)  # 135 cells: over 30 min on a busy 2-core machine
@_needs_answer
def test_reply_answer_is_right_for_95_percent(shell: InteractiveShell) -> None:
    outcomes = _outcomes(shell)
    wrong = [o for o in outcomes if not o.correct]
    rate = 1 - len(wrong) / len(outcomes)
    report = "\n".join(o.line() for o in wrong)
    assert rate >= PASS_RATE, (
        f"reply.answer right for {len(outcomes) - len(wrong)}/{len(outcomes)} ({rate:.0%}), "
        f"below {PASS_RATE:.0%}\nright by type and cover: {_by_cover(outcomes)}\n{report}"
    )


@pytest.mark.mlx
@pytest.mark.timeout(3600)  # 135 cells: over 30 min on a busy 2-core machine
@_needs_answer
def test_no_reply_states_a_confident_wrong_number(shell: InteractiveShell) -> None:
    bad = [o for o in _outcomes(shell) if o.confident_wrong]
    assert not bad, f"{len(bad)} confident wrong numbers:\n" + "\n".join(o.line() for o in bad)
