"""The shipped WordNet lexicon and pint: load times, lookups per second, and the pole rule's check.

* Load times are measured in fresh interpreters (median of ``--reps``, CPU
  time): the lexicon file (``wordnet_graph.graph()``) and pint's import and
  registry (``units._registry()``, from pint's cache after the first run),
  each after ``import pandas, agent_nb.data.units`` so only the load is timed.
  The target: a kernel's first question waits under 150 ms for the lexicon.
* Lookups per second: `bases`, `attributes`, `synonyms`, `hypernyms`,
  `antonyms` over every word of the phrasing set's questions, warm.
* The pole rule against a held-out rule (`tests/data/wordnet_poles.py`) over
  every adjective of WordNet's attribute relation that has an antonym.

Run: ``python benchmarks/bench_lexicon.py [--reps 5]``
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from agent_nb.data import wordnet, wordnet_graph
from agent_nb.data.units import column_unit, quantities
from tests.data.phrasings import PHRASINGS
from tests.data.wordnet_poles import measure

__all__ = ["main"]

# CPU time of the load alone: the machine this runs on is often shared. pandas is
# imported first, as the data agent has it loaded before any question is read.
_LOAD = (
    "import time, pandas, agent_nb.data.units as u, agent_nb.data.wordnet_graph as g\n"
    "t = time.process_time(); {call}; print(time.process_time() - t)\n"
)


def _load_ms(call: str, reps: int) -> float:
    times = []
    for _ in range(reps):
        out = subprocess.run(
            [sys.executable, "-c", _LOAD.format(call=call)],
            check=True,
            capture_output=True,
            text=True,
        )
        times.append(float(out.stdout) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    size = wordnet_graph.FILE.stat().st_size
    print(f"lexicon file: {size / 1e6:.2f} MB")
    print(f"lexicon load: {_load_ms('g.graph()', args.reps):.0f} ms (median, CPU, fresh process)")
    print(f"pint import + registry: {_load_ms('u._registry()', args.reps):.0f} ms (median)")

    words = sorted({w.lower() for p in PHRASINGS for w in p.text.split() if w.isalpha()})
    calls = (
        wordnet.bases,
        wordnet.attributes,
        wordnet.synonyms,
        wordnet.hypernyms,
        wordnet.antonyms,
    )
    started = time.process_time()
    for fn in calls:
        for w in words:
            fn(w)
    elapsed = time.process_time() - started
    print(f"lookups: {len(words) * len(calls) / elapsed:,.0f}/s over {len(words)} words x 5 calls")

    questions = [p.text for p in PHRASINGS]
    started = time.process_time()
    found = sum(len(quantities(q)) for q in questions)
    elapsed = time.process_time() - started
    print(f"quantities: {len(questions) / elapsed:,.0f} questions/s ({found} quantities found)")
    started = time.process_time()
    names = [f"{w}_{u}" for w in ("mass", "weight", "length", "year") for u in ("g", "km", "s")]
    for name in names:
        column_unit(name)
    print(f"column_unit: {len(names) / (time.process_time() - started):,.0f} names/s")

    m = measure()
    print(
        f"poles: {m.sampled} attribute adjectives sampled, {m.decided} given a pole "
        f"({m.decided / m.sampled:.0%} coverage); the held-out rule judges {m.judged}, "
        f"agreement {m.agree}/{m.judged} ({m.agree / m.judged:.1%})"
    )
    for adjective, antonym, noun, pole in m.disagreements:
        print(f"  disagree: {adjective} (vs {antonym}) on {noun}: rule says {pole:+d}")


if __name__ == "__main__":
    main()
