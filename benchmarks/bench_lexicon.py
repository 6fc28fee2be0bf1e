"""The shipped WordNet lexicon and pint: load times, lookups per second, and the pole rule's check.

* Load times are measured in fresh interpreters (median of ``--reps``): the
  lexicon file (``wordnet._wordnet()``) and pint's registry (``units._registry()``),
  each after ``import agent_nb.data.units`` so only the load itself is timed.
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

from agent_nb.data import wordnet
from agent_nb.data.units import column_unit, quantities
from tests.data.phrasings import PHRASINGS
from tests.data.wordnet_poles import measure

__all__ = ["main"]

_LOAD = (
    "import time, agent_nb.data.units as u, agent_nb.data.wordnet as w\n"
    "t = time.perf_counter(); {call}; print(time.perf_counter() - t)\n"
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
    size = wordnet._FILE.stat().st_size
    print(f"lexicon file: {size / 1e6:.2f} MB")
    print(f"lexicon load: {_load_ms('w._wordnet()', args.reps):.0f} ms (median, fresh process)")
    print(f"pint registry: {_load_ms('u._registry()', args.reps):.0f} ms (median, fresh process)")

    words = sorted({w.lower() for p in PHRASINGS for w in p.text.split() if w.isalpha()})
    calls = (
        wordnet.bases,
        wordnet.attributes,
        wordnet.synonyms,
        wordnet.hypernyms,
        wordnet.antonyms,
    )
    started = time.perf_counter()
    for fn in calls:
        for w in words:
            fn(w)
    elapsed = time.perf_counter() - started
    print(f"lookups: {len(words) * len(calls) / elapsed:,.0f}/s over {len(words)} words x 5 calls")

    questions = [p.text for p in PHRASINGS]
    started = time.perf_counter()
    found = sum(len(quantities(q)) for q in questions)
    elapsed = time.perf_counter() - started
    print(f"quantities: {len(questions) / elapsed:,.0f} questions/s ({found} quantities found)")
    started = time.perf_counter()
    names = [f"{w}_{u}" for w in ("mass", "weight", "length", "year") for u in ("g", "km", "s")]
    for name in names:
        column_unit(name)
    print(f"column_unit: {len(names) / (time.perf_counter() - started):,.0f} names/s")

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
