"""WikiTableQuestions through the real ``%%agent --data`` magic, scored by the dataset's evaluator.

WikiTableQuestions (Pasupat and Liang, ACL 2015) asks crowd-written
questions about Wikipedia tables. The folder (default ``../shared/wtq``, see
its PROVENANCE.md; nothing of it is in this repository) holds the training
half: ``training.tsv`` (id, utterance, context = the table's path,
targetValue) and ``csv/2xx-csv/N.csv``, read as the dataset ships them
(``pd.read_csv(path, escapechar="\\\\")``).

**Splits by table**, so that what is developed on one half is measured on
tables nobody looked at: ``dev`` holds the tables whose number N (in
``csv/2xx-csv/N.csv``) ends in 0-4, ``heldout`` those ending in 5-9.

Each question is one cell, ``%%agent --data df --once -o reply``, in one
IPython shell on the embedded model, greedy (`bench_databench.MagicRunner`);
``--no-model`` asks the data agent's planner alone
(`agent_nb.data.answer.ask`): minutes instead of hours.

Scored (`tests/data/wtq_scoring.py`, the evaluator's rules) on the typed
answer (``reply.answer``, or the Answer's ``value``):

* **accuracy**: right among all questions;
* **precision**: right among the questions where a value was stated (the
  typed answer is not None);
* **coverage**: stated among all;
* **confident wrong**: a wrong value stated with no word of what was left out.

Where the answer carries a ``score`` or ``confidence``, a risk-coverage curve
is printed (precision among the most confident answers, at each coverage);
a threshold on it is to be fixed on ``dev`` only.

Run: ``python benchmarks/bench_wtq.py [FOLDER] [--split dev|heldout]
[--limit N] [--seed S] [--skip N] [--no-model] [--jsonl OUT] [--rescore JSONL]``
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import statistics
import sys
import time
import traceback
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1]))

import pandas as pd

from benchmarks.bench_databench import MagicRunner
from tests.data.scoring import left_out
from tests.data.wtq_scoring import answer_strings, wtq_match

_DEFAULT = Path(__file__).parents[1] / ".." / "shared" / "wtq"
_TABLE_NUMBER = re.compile(r"(\d+)\.csv$")
SPLITS = {"dev": "01234", "heldout": "56789"}


def split_of(context: str) -> str:
    """``dev`` for a table whose number ends in 0-4, ``heldout`` for 5-9."""
    m = _TABLE_NUMBER.search(context)
    if m is None:
        raise ValueError(f"{context!r} is not a csv/2xx-csv/N.csv path")
    return "dev" if m.group(1)[-1] in SPLITS["dev"] else "heldout"


def load(folder: Path) -> pd.DataFrame:
    qa = pd.read_csv(
        folder / "training.tsv",
        sep="\t",
        quoting=csv.QUOTE_NONE,
        dtype=str,
        keep_default_na=False,
    )
    qa["split"] = qa.context.map(split_of)
    return qa


def read_table(folder: Path, context: str) -> pd.DataFrame:
    return pd.read_csv(folder / context, escapechar="\\")


class PlannerRunner:
    """``--no-model``: the data agent's answer without the model or the magic."""

    def ask(self, frame: pd.DataFrame, question: str) -> tuple[Any, str]:
        from agent_nb.data.answer import ask

        try:
            answer = ask({"df": frame}, question)
        except ValueError as exc:  # a question no plan can answer: one line
            return None, f"ValueError: {exc}"
        return answer, ""


def _text(reply: Any) -> str:
    text = getattr(reply, "text", None)
    return str(text if text is not None else getattr(reply, "sentence", ""))


def _score(reply: Any) -> float | None:
    """The answer's own score or confidence, where it has one."""
    for name in ("score", "confidence"):
        value = getattr(reply, name, None)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


def score_one(row: pd.Series, reply: Any, note: str) -> dict[str, Any]:
    """One question's record: the typed answer, scored by the evaluator's rules."""
    typed = None
    if reply is not None:
        typed = getattr(reply, "answer", None) if hasattr(reply, "answer") else reply.value
    text = "" if reply is None else _text(reply)
    stated = answer_strings(typed)
    correct = stated is not None and wtq_match(typed, row["targetValue"])
    return {
        "id": row["id"],
        "question": row["utterance"],
        "table": row["context"],
        "split": row["split"],
        "gold": row["targetValue"],
        "reply": text,
        "answer": stated,
        "stated": stated is not None,
        "correct": correct,
        "confident_wrong": stated is not None and not correct and not left_out(text),
        "score": None if reply is None else _score(reply),
        "error": note,
    }


def _pct(part: int, whole: int) -> str:
    return f"{part:4}/{whole:<4} {part / whole:5.1%}" if whole else "     -     "


def report(records: list[dict[str, Any]], seconds: list[float]) -> None:
    by_split: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_split[r["split"]].append(r)
    print(f"\n{'':10}{'accuracy':>18}{'precision':>18}{'coverage':>18}{'confident wrong':>18}")
    for name in (*sorted(by_split), "all"):
        rs = records if name == "all" else by_split[name]
        n, stated = len(rs), [r for r in rs if r["stated"]]
        right = sum(r["correct"] for r in rs)
        wrong = sum(r["confident_wrong"] for r in rs)
        print(
            f"{name:10}{_pct(right, n):>18}{_pct(right, len(stated)):>18}"
            f"{_pct(len(stated), n):>18}{wrong:>18}"
        )
    errors = sum(bool(r["error"]) and not r["stated"] for r in records)
    print(f"\nquestions with no plan or a failed cell: {errors}")
    scored = [r for r in records if r["stated"] and r["score"] is not None]
    if scored:
        risk_coverage(scored, len(records))
    else:
        print("risk-coverage: the answers carry no score or confidence")
    if seconds:
        print(
            f"time per question: median {statistics.median(seconds):.2f} s, "
            f"max {max(seconds):.1f} s, total {sum(seconds):.0f} s"
        )


def risk_coverage(scored: list[dict[str, Any]], total: int) -> None:
    """Precision among the most confident answers, at each tenth of the stated ones."""
    ranked = sorted(scored, key=lambda r: -r["score"])
    print("\nrisk-coverage (most confident first):")
    print(f"{'score >=':>10}{'coverage':>12}{'precision':>12}")
    for tenth in range(1, 11):
        head = ranked[: max(1, round(len(ranked) * tenth / 10))]
        right = sum(r["correct"] for r in head)
        print(f"{head[-1]['score']:>10.3f}{len(head) / total:>12.1%}{right / len(head):>12.1%}")


def rescore(jsonl: Path, qa: pd.DataFrame) -> None:
    """An earlier run's answers scored again under today's rules; no model runs."""
    old = [json.loads(line) for line in jsonl.read_text().splitlines() if line.strip()]
    rows = qa.set_index("id")
    records = []
    for was in old:
        row = rows.loc[was["id"]].copy()
        row["id"] = was["id"]
        answer = was["answer"]
        typed = None if answer is None else (answer if len(answer) != 1 else answer[0])
        reply = _Stored(was["reply"], typed, was.get("score"))
        record = score_one(row, reply, was.get("error", ""))
        records.append(record)
    report(records, [r["seconds"] for r in old if "seconds" in r])


class _Stored:
    def __init__(self, text: str, answer: Any, score: float | None) -> None:
        self.text, self.answer, self.score = text, answer, score


def sample(
    qa: pd.DataFrame, split: str | None, limit: int, seed: int, skip: int = 0
) -> pd.DataFrame:
    if split:
        qa = qa[qa.split == split]
    qa = qa.sample(frac=1.0, random_state=seed) if seed >= 0 else qa
    qa = qa.iloc[skip:]
    return (qa.head(limit) if limit else qa).reset_index(drop=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=_DEFAULT)
    parser.add_argument("--split", choices=sorted(SPLITS), help="only these tables (default both)")
    parser.add_argument("--limit", type=int, default=0, help="only N questions (after --seed)")
    parser.add_argument(
        "--seed", type=int, default=0, help="shuffle the questions with this seed (-1: file order)"
    )
    parser.add_argument(
        "--skip",
        type=int,
        default=0,
        help="leave out the first N questions (after --seed): a sample not yet looked at",
    )
    parser.add_argument("--jsonl", type=Path, help="write one record per question here")
    parser.add_argument(
        "--timeout", type=int, default=300, help="seconds before a cell is interrupted"
    )
    parser.add_argument(
        "--no-model",
        action="store_true",
        help="the data agent's planner alone (agent_nb.data.answer.ask): no model, no magic",
    )
    parser.add_argument(
        "--rescore", type=Path, metavar="JSONL", help="score a --jsonl file again; no model runs"
    )
    parser.add_argument("--quiet", action="store_true", help="no line per question")
    args = parser.parse_args()
    folder = args.folder.resolve()
    qa = load(folder)
    if args.rescore:
        rescore(args.rescore, qa)
        return
    qa = sample(qa, args.split, args.limit, args.seed, args.skip)
    runner: MagicRunner | PlannerRunner = (
        PlannerRunner() if args.no_model else MagicRunner(args.timeout)
    )
    tables: dict[str, pd.DataFrame] = {}
    records: list[dict[str, Any]] = []
    seconds: list[float] = []
    out = args.jsonl.open("w") if args.jsonl else None
    try:
        for n, (_, row) in enumerate(qa.iterrows(), 1):
            start = time.perf_counter()
            try:
                if row["context"] not in tables:
                    tables[row["context"]] = read_table(folder, row["context"])
                reply, note = runner.ask(tables[row["context"]].copy(), row["utterance"])
                record = score_one(row, reply, note)
            except Exception as exc:  # one question's failure is a wrong answer
                note = "".join(traceback.format_exception_only(exc)).strip()
                record = score_one(row, None, note)
            record["seconds"] = round(time.perf_counter() - start, 3)
            seconds.append(record["seconds"])
            records.append(record)
            if out:
                out.write(json.dumps(record, default=str) + "\n")
                out.flush()
            if not args.quiet:
                mark = "✓" if record["correct"] else ("!" if record["confident_wrong"] else "·")
                if record["stated"] and not record["correct"] and not record["confident_wrong"]:
                    mark = "✗"
                print(f"{n:4} {mark} {row['context'][4:]:18} {row['utterance'][:80]}")
                print(f"       gold={row['targetValue'][:40]!r} answer={record['answer']!r}")
    finally:
        if out:
            out.close()
    report(records, seconds)


if __name__ == "__main__":
    main()
