"""Asking the phrasing set (`tests/data/phrasings.py`): one phrasing through the
real ``%%agent --data`` magic, its outcome scored against the pandas truth by
DataBench's rules, and the tallies by answer type. Used by
`tests/data/test_phrasings.py` (a sample) and `benchmarks/bench_phrasings.py`
(the whole set)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from IPython.core.interactiveshell import InteractiveShell

from tests.data.phrasings import COVERS, Phrasing
from tests.data.scoring import SEMANTICS, as_databench, confident_wrong, databench_match
from tests.fixtures_magics import run

__all__ = ["Outcome", "ask", "by_cover"]


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


#: One copy of each table, asked again and again, as a user's notebook does (the copy
#: keeps the cached original safe; one frame per table lets its profile be reused).
_FRAMES: dict[str, Any] = {}


def ask(shell: InteractiveShell, p: Phrasing) -> Outcome:
    """``p`` through the magic (``--once``, 16 tokens at most), ``reply.answer`` kept."""
    if p.table not in _FRAMES:
        _FRAMES[p.table] = p.frame().copy()
    shell.user_ns[p.table] = _FRAMES[p.table]
    shell.user_ns.pop("reply", None)
    result, cap = run(shell, f"%%agent --data {p.table} --once --max-tokens 16 -o reply\n{p.text}")
    reply = shell.user_ns.pop("reply", None)
    error = result.error_in_exec or result.error_before_exec
    note = f"{type(error).__name__}: {error}" if error is not None else cap.stderr.strip()
    if reply is None:
        return Outcome(p, "", None, note or "no reply")
    return Outcome(p, reply.text, getattr(reply, "answer", None), note)


def by_cover(outcomes: list[Outcome]) -> str:
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
