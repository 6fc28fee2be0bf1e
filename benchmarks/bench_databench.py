"""DataBench Lite through the real ``%%agent --data`` magic, scored by DataBench's rules.

DataBench (Osés Grijalba et al., LREC-COLING 2024; SemEval-2025 Task 8) asks
questions over real tables; its Lite form uses each table's 20-row sample.
The folder (default ``../shared/databench``, see its PROVENANCE.md; nothing of
it is in this repository) holds ``test_qa.csv`` (question, dataset),
``tables/<dataset>/sample.csv`` (and ``.parquet``), ``answers_lite.txt`` (gold),
``semantics.txt`` (answer types) and ``peers/*.txt`` (other systems' answers),
line-aligned.

Each question is one cell, ``%%agent --data df --once -o reply``, in one
IPython shell (``%load_ext agent_nb``) on the default model (the embedded one,
greedy), with ``df`` the table. Scored (`tests/data/scoring.py`):

* **text**: the answer a reader takes from ``reply.text`` (a boolean is the
  first word, a number the first number stated that the question did not say,
  a category named alone in the first sentence, a list as ``[...]``, bullets or
  after a colon) under DataBench's rules;
* **answer**: ``reply.answer`` (the typed value), where the Reply has one;
* **peers**: each file of ``peers/`` against the same gold, by the same rules;
* **confident wrong**: a number question whose reply states a wrong number
  and does not say what it left out.

``--no-model`` asks the data agent's word planner alone
(`agent_nb.data.answer.ask`, no model and no magic): minutes instead of
hours, for iterating on the planner; its sentence stands in for the reply.

A question that raises is recorded as wrong and the run goes on; one that runs
past ``--timeout`` seconds (default 300) is interrupted, as a user would stop
the cell, and scored on what it left.

Run: ``python benchmarks/bench_databench.py [FOLDER] [--limit N] [--table NAME]
[--jsonl OUT] [--parquet] [--rescore JSONL]``
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import statistics
import sys
import time
import traceback
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("AGENT_NB_REPLAY", "0")  # each question asks the model afresh
sys.path.insert(0, str(Path(__file__).parents[1]))

import pandas as pd

from tests.data.scoring import (
    SEMANTICS,
    as_databench,
    confident_wrong,
    databench_match,
    left_out,
    reply_value,
    stated_numbers,
)

_NO_ANSWER = object()  # the Reply has no ``answer`` attribute (before issue 37's typed answer)
_DEFAULT = Path(__file__).parents[1] / ".." / "shared" / "databench"


def load(folder: Path) -> pd.DataFrame:
    qa = pd.read_csv(folder / "test_qa.csv")
    gold = (folder / "answers_lite.txt").read_text().splitlines()
    types = (folder / "semantics.txt").read_text().splitlines()
    if not len(qa) == len(gold) == len(types):
        raise SystemExit(f"{folder}: test_qa.csv, answers_lite.txt, semantics.txt differ in length")
    qa["gold"], qa["type"] = gold, [t.strip() for t in types]
    for peer in sorted((folder / "peers").glob("*.txt")):
        answers = peer.read_text().splitlines()
        if len(answers) != len(qa):
            raise SystemExit(f"{peer}: {len(answers)} lines, expected {len(qa)}")
        qa[f"peer:{peer.stem}"] = answers
    return qa


def read_table(folder: Path, dataset: str, parquet: bool) -> pd.DataFrame:
    base = folder / "tables" / dataset
    return pd.read_parquet(base / "sample.parquet") if parquet else pd.read_csv(base / "sample.csv")


class MagicRunner:
    """One IPython shell with agent_nb loaded; one ``%%agent --data df`` cell per question."""

    def __init__(self, timeout: int) -> None:
        from IPython.core.interactiveshell import InteractiveShell

        self.shell = InteractiveShell.instance()
        self.shell.run_line_magic("load_ext", "agent_nb")
        self.timeout = timeout

    def ask(self, frame: pd.DataFrame, question: str) -> tuple[Any, str]:
        """(the Reply or None, what else the cell printed: its error, if any). A cell
        still running after ``timeout`` seconds is interrupted as a user would stop it."""
        from IPython.utils.capture import capture_output

        self.shell.user_ns["df"] = frame
        self.shell.user_ns.pop("reply", None)
        timed_out = False

        def interrupt(signum: int, frame: Any) -> None:
            nonlocal timed_out
            timed_out = True
            raise KeyboardInterrupt

        previous = signal.signal(signal.SIGALRM, interrupt)
        signal.alarm(self.timeout)
        try:
            with capture_output() as cap:
                result = self.shell.run_cell(f"%%agent --data df --once -o reply\n{question}")
        except KeyboardInterrupt:
            result = None
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        error = None if result is None else (result.error_in_exec or result.error_before_exec)
        note = f"{type(error).__name__}: {error}" if error is not None else ""
        if timed_out:
            note = f"timed out after {self.timeout} s"
        return self.shell.user_ns.pop("reply", None), note or cap.stderr.strip()[-300:]


class PlannerRunner:
    """``--no-model``: the data agent's answer without the model or the magic
    (`agent_nb.data.answer.ask`, the word planner alone); its sentence is the text."""

    def ask(self, frame: pd.DataFrame, question: str) -> tuple[Any, str]:
        from agent_nb.data.answer import ask

        try:
            answer = ask({"df": frame}, question)
        except ValueError as exc:  # a question no plan can answer: one line
            return None, f"ValueError: {exc}"
        return _PlannerReply(answer.sentence, getattr(answer, "value", _NO_ANSWER)), ""


@dataclasses.dataclass
class _PlannerReply:
    text: str
    answer: Any


def score_one(row: pd.Series, frame: pd.DataFrame, text: str, typed: Any) -> dict[str, Any]:
    """One question's record: the reply's text and typed answer, each scored."""
    kind, gold, q = row["type"], row["gold"], row["question"]
    value = reply_value(text, kind, question=q, truth=gold, frame=frame)
    record: dict[str, Any] = {
        "question": q,
        "table": row["dataset"],
        "type": kind,
        "gold": gold,
        "reply": text,
        "read": value,
        "correct": value is not None and databench_match(value, gold, kind),
        "confident_wrong": confident_wrong(text, gold, kind, q),
    }
    if typed is not _NO_ANSWER:
        record["answer"] = None if typed is None else as_databench(typed)
        record["answer_correct"] = typed is not None and databench_match(
            as_databench(typed), gold, kind
        )
    return record


def failed(row: pd.Series, error: str) -> dict[str, Any]:
    """The record of a question whose cell raised: wrong, with the error kept."""
    return {
        "question": row["question"],
        "table": row["dataset"],
        "type": row["type"],
        "gold": row["gold"],
        "reply": "",
        "read": None,
        "correct": False,
        "confident_wrong": False,
        "error": error,
    }


def _pct(right: int, n: int) -> str:
    return f"{right:3}/{n:<3} {right / n:4.0%}" if n else "   -    "


def report(qa: pd.DataFrame, records: list[dict[str, Any]], seconds: list[float]) -> None:
    peers = [c for c in qa.columns if c.startswith("peer:")]
    done = qa.iloc[: len(records)]
    peer_ok = {
        p: [databench_match(*x) for x in zip(done[p], done.gold, done.type, strict=True)]
        for p in peers
    }
    has_answer = any("answer_correct" in r for r in records)
    cols = ["text"] + (["answer"] if has_answer else []) + [p[5:] for p in peers]
    print()
    print(f"{'':16}" + "".join(f"{c[:18]:>20}" for c in cols))

    def line(label: str, idx: list[int]) -> None:
        cells = [_pct(sum(records[i]["correct"] for i in idx), len(idx))]
        if has_answer:
            cells.append(_pct(sum(records[i].get("answer_correct", False) for i in idx), len(idx)))
        cells += [_pct(sum(peer_ok[p][i] for i in idx), len(idx)) for p in peers]
        print(f"{label[:16]:16}" + "".join(f"{c:>20}" for c in cells))

    by_type: dict[str, list[int]] = defaultdict(list)
    by_table: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(records):
        by_type[r["type"]].append(i)
        by_table[r["table"]].append(i)
    for kind in SEMANTICS:
        if by_type[kind]:
            line(kind, by_type[kind])
    print()
    for name in sorted(by_table):
        line(name, by_table[name])
    print()
    line("all", list(range(len(records))))
    if has_answer:
        stated = [r for r in records if r.get("answer") is not None]
        right = sum(r["answer_correct"] for r in stated)
        print(
            f"\nprecision (right among the values stated, reply.answer): "
            f"{_pct(right, len(stated)).strip()}; coverage {len(stated)}/{len(records)} "
            f"{len(stated) / max(len(records), 1):.0%}"
        )
    wrong = sum(r["confident_wrong"] for r in records)
    numeric = sum(r["type"] in ("number", "list[number]") for r in records)
    errors = sum(bool(r.get("error")) for r in records)
    print(
        f"\nconfident wrong numbers: {wrong} of {numeric} number questions "
        "(a wrong number stated with no word of what was left out)"
    )
    other = sum(
        not r["correct"]
        and r["type"] not in ("number", "list[number]")
        and bool(stated_numbers(r["reply"].split("\n\n")[0]))
        and not left_out(r["reply"])
        for r in records
    )
    print(f"other wrong replies that state a number and no left-out word: {other}")
    print(f"cells that failed: {errors}")
    if seconds:
        median = statistics.median(seconds)
        print(
            f"time per question: median {median:.1f} s, max {max(seconds):.1f} s, "
            f"total {sum(seconds):.0f} s"
        )


def rescore(qa: pd.DataFrame, folder: Path, jsonl: Path, parquet: bool) -> None:
    """The scores of an earlier run's replies under today's reading rules."""
    old = [json.loads(line) for line in jsonl.read_text().splitlines() if line.strip()]
    by_question = {(r["table"], r["question"]): r for r in old}
    qa = qa[[(t, q) in by_question for t, q in zip(qa.dataset, qa.question, strict=True)]]
    tables = {name: read_table(folder, name, parquet) for name in qa.dataset.unique()}
    records = []
    for _, row in qa.iterrows():
        was = by_question[(row["dataset"], row["question"])]
        typed = was.get("answer", _NO_ANSWER)
        record = score_one(row, tables[row["dataset"]], was["reply"], typed)
        records.append({**record, "error": was.get("error", "")})
    report(qa.reset_index(drop=True), records, [r["seconds"] for r in old if "seconds" in r])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=_DEFAULT)
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions")
    parser.add_argument(
        "--table", nargs="+", default=[], help="only these datasets (e.g. 066_IBM_HR)"
    )
    parser.add_argument("--jsonl", type=Path, help="write one record per question here")
    parser.add_argument(
        "--resume", action="store_true", help="keep --jsonl's records and ask only the rest"
    )
    parser.add_argument(
        "--timeout", type=int, default=300, help="seconds before a cell is interrupted"
    )
    parser.add_argument(
        "--no-model",
        action="store_true",
        help="the word planner alone (agent_nb.data.answer.ask): no model, no magic; fast",
    )
    parser.add_argument("--parquet", action="store_true", help="read sample.parquet (pyarrow)")
    parser.add_argument(
        "--rescore", type=Path, metavar="JSONL", help="score a --jsonl file again; no model runs"
    )
    args = parser.parse_args()
    qa = load(args.folder.resolve())
    if args.table:
        unknown = set(args.table) - set(qa.dataset)
        if unknown:
            raise SystemExit(
                f"--table: no questions for {', '.join(sorted(unknown))}; "
                f"the datasets are {', '.join(qa.dataset.unique())}"
            )
        qa = qa[qa.dataset.isin(args.table)].reset_index(drop=True)
    if args.limit:
        qa = qa.head(args.limit)
    if args.rescore:
        rescore(qa, args.folder, args.rescore, args.parquet)
        return
    runner: MagicRunner | PlannerRunner = (
        PlannerRunner() if args.no_model else MagicRunner(args.timeout)
    )
    tables: dict[str, pd.DataFrame] = {}
    records: list[dict[str, Any]] = []
    seconds: list[float] = []
    if args.resume:
        if not args.jsonl or not args.jsonl.exists():
            raise SystemExit("--resume needs --jsonl naming an earlier run's file")
        lines = args.jsonl.read_text().splitlines()
        earlier = {(r["table"], r["question"]): r for r in map(json.loads, filter(None, lines))}
        keys = list(zip(qa.dataset, qa.question, strict=True))
        asked = [k in earlier for k in keys]
        records = [earlier[k] for k in keys if k in earlier]  # in the order of the questions
        seconds = [r["seconds"] for r in records if "seconds" in r]
        qa = pd.concat([qa[asked], qa[[not a for a in asked]]]).reset_index(drop=True)
    out = args.jsonl.open("a" if args.resume else "w") if args.jsonl else None
    try:
        for n, (_, row) in enumerate(qa.iterrows(), 1):
            if n <= len(records):  # --resume: asked in the earlier run
                continue
            name = row["dataset"]
            if name not in tables:
                tables[name] = read_table(args.folder, name, args.parquet)
            start = time.perf_counter()
            try:
                reply, note = runner.ask(tables[name].copy(), row["question"])
                text = "" if reply is None else str(reply.text)
                typed = _NO_ANSWER if reply is None else getattr(reply, "answer", _NO_ANSWER)
                record = score_one(row, tables[name], text, typed)
                record["error"] = note if reply is None or note.startswith("timed out") else ""
            except Exception as exc:  # one question's failure is a wrong answer
                record = failed(row, "".join(traceback.format_exception_only(exc)).strip())
            record["seconds"] = round(time.perf_counter() - start, 2)
            seconds.append(record["seconds"])
            records.append(record)
            if out:
                out.write(json.dumps(record, default=str) + "\n")
                out.flush()
            mark = "✓" if record["correct"] else ("!" if record["confident_wrong"] else "✗")
            extra = ""
            if "answer_correct" in record:
                extra = f" answer={record['answer']!r}{'✓' if record['answer_correct'] else '✗'}"
            print(f"{n:3} {mark} {record['type']:14} {name}: {row['question'][:70]}")
            shown = record["reply"].split("\n\n")[0][:110] or record["error"][:110]
            print(f"      gold={row['gold'][:40]!r} read={record['read']!r}{extra}  {shown!r}")
    finally:
        if out:
            out.close()
    report(qa, records, seconds)


if __name__ == "__main__":
    main()
