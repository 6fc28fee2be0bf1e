"""The phrasing set (`tests/data/phrasings.py`: 135 wordings of 45 data questions
over real tables, each with its pandas truth) through the real ``%%agent --data``
magic, in one IPython shell on the embedded model.

The suite asks a sample of it (`tests/data/test_phrasings.py`); this asks all of
it and prints, side by side, the word planner alone (no model, no magic) and the
magic on the model: right answers by answer type (DataBench's rules), confident
wrong numbers, and the median seconds per cell.

Run: ``python benchmarks/bench_phrasings.py [--limit N] [--every K]``
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time
from collections import Counter

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tests.data.phrasing_runs import Outcome, ask
from tests.data.phrasings import PHRASINGS, Phrasing
from tests.data.scoring import SEMANTICS


def words_only(p: Phrasing) -> Outcome:
    from agent_nb.data.answer import ask as ask_words

    try:
        answer = ask_words({p.table: p.frame()}, p.text)
    except ValueError as exc:
        return Outcome(p, "", None, str(exc))
    return Outcome(p, answer.sentence, answer.value, "")


def tally(name: str, outcomes: list[Outcome], seconds: list[float]) -> None:
    right: Counter[str] = Counter(o.phrasing.kind for o in outcomes if o.correct)
    asked: Counter[str] = Counter(o.phrasing.kind for o in outcomes)
    by_kind = ", ".join(f"{k} {right[k]}/{asked[k]}" for k in SEMANTICS if asked[k])
    total = sum(right.values())
    wrong = sum(o.confident_wrong for o in outcomes)
    print(
        f"{name:<14} right {total}/{len(outcomes)} ({total / len(outcomes):.0%})  "
        f"confident wrong {wrong}  median {statistics.median(seconds):.2f} s/question\n"
        f"{'':<14} {by_kind}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="ask the first N only")
    parser.add_argument("--every", type=int, default=1, help="ask one phrasing in K")
    parser.add_argument("--show", action="store_true", help="print each wrong outcome")
    args = parser.parse_args()
    chosen = list(PHRASINGS[:: args.every])[: args.limit]

    words, word_times = [], []
    for p in chosen:
        start = time.perf_counter()
        words.append(words_only(p))
        word_times.append(time.perf_counter() - start)

    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.extension_manager.load_extension("agent_nb")
    shell.run_cell("%config AgentMagics.replay = False")
    cells, cell_times = [], []
    for p in chosen:
        start = time.perf_counter()
        cells.append(ask(shell, p))
        cell_times.append(time.perf_counter() - start)

    print(f"{len(chosen)} phrasings of {len({p.intent for p in chosen})} intents")
    tally("word planner", words, word_times)
    tally("magic + model", cells, cell_times)
    if args.show:
        for o in cells:
            if not o.correct or o.confident_wrong:
                print(o.line())


if __name__ == "__main__":
    main()
