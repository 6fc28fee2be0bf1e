"""Decode speed with and without prompt-lookup drafting, side by side in one process.

Run: python benchmarks/bench_decode.py [--reps 3] [--tokens 96]

Each prompt runs greedily on the embedded model through `MLXBackend.stream`
with ``GenerationConfig(prompt_lookup=True)`` and ``False``, alternating, on a
fresh cache each time (so both pay the same prefill). Decode tok/s is
measured from the first token on (`Usage.tokens_per_s`). Printed per prompt:
medians of both, the ratio, the acceptance rate (accepted / drafted) and
whether the texts are identical; then the median ratio over the copy-heavy
prompts (targets: x1.5) and the free-chat one (target: >= 0.97).

``--sweep`` instead measures the choices in `agent_nb.backends.mlx.lookup`:
each longest draft (``MAX_DRAFT``) and set of n-gram sizes (``NGRAM_SIZES``)
in a small grid, every prompt once with drafting against plain decoding
measured alongside, and prints both median ratios per choice (``*``: the
default).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from agent_nb import GenerationConfig  # noqa: E402
from agent_nb._core.types import Content  # noqa: E402
from agent_nb.backends.mlx import MLXBackend  # noqa: E402
from tests.lookup_prompts import COPY_HEAVY, FREE_CHAT  # noqa: E402
from tests.streaming import collect  # noqa: E402


def _one(backend: MLXBackend, turns: list[Content], config: GenerationConfig) -> Any:
    text, finish = collect(backend, turns, config, cache="bench")
    backend.drop_cache("bench")
    return text, finish.usage


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--sweep", action="store_true", help="measure draft and n-gram sizes")
    args = parser.parse_args()
    backend = MLXBackend("smollm2-135m", progress=False)
    loaded = backend.load()
    print(f"weights {loaded.weights}, BLAS {loaded.cpu_blas}, load: {os.getloadavg()}")
    if args.sweep:
        sweep(backend, args.tokens)
        return
    prompts = {**COPY_HEAVY, **FREE_CHAT}
    ratios: dict[str, float] = {}
    identical = True
    for name, turns in prompts.items():
        speeds: dict[bool, list[float]] = {True: [], False: []}
        texts: dict[bool, str] = {}
        drafted = accepted = 0
        for _ in range(args.reps):
            for lookup in (True, False):
                config = GenerationConfig(max_tokens=args.tokens, prompt_lookup=lookup)
                text, usage = _one(backend, turns, config)
                speeds[lookup].append(usage.tokens_per_s or 0.0)
                texts.setdefault(lookup, text)
                identical &= text == texts[lookup]
                if lookup:
                    drafted, accepted = usage.drafted_tokens, usage.accepted_tokens
        same = texts[True] == texts[False]
        identical &= same
        on, off = statistics.median(speeds[True]), statistics.median(speeds[False])
        ratios[name] = on / off if off else 0.0
        rate = accepted / drafted if drafted else 0.0
        print(
            f"{name:>14}: lookup {on:6.1f} tok/s  plain {off:6.1f} tok/s  x{ratios[name]:.2f}  "
            f"accepted {accepted}/{drafted} ({rate:.0%})  identical {same}",
            flush=True,
        )
    copy = statistics.median(ratios[n] for n in COPY_HEAVY)
    free = statistics.median(ratios[n] for n in FREE_CHAT)
    print(f"median ratio copy-heavy x{copy:.2f} (target 1.5)  free chat x{free:.2f} (target 0.97)")
    print(f"identical greedy texts: {identical}   load after: {os.getloadavg()}")


def sweep(backend: MLXBackend, tokens: int) -> None:
    from agent_nb.backends.mlx import lookup

    default = (lookup.MAX_DRAFT, lookup.NGRAM_SIZES)
    prompts = {**COPY_HEAVY, **FREE_CHAT}
    plain_config = GenerationConfig(max_tokens=tokens, prompt_lookup=False)
    lookup_config = GenerationConfig(max_tokens=tokens, prompt_lookup=True)
    try:
        for max_draft in (4, 8, 12):
            for ngrams in ((3, 2), (2,), (4, 3, 2)):
                lookup.MAX_DRAFT, lookup.NGRAM_SIZES = max_draft, ngrams
                ratios = {}
                for name, turns in prompts.items():
                    _, plain = _one(backend, turns, plain_config)
                    _, drafted = _one(backend, turns, lookup_config)
                    ratios[name] = (drafted.tokens_per_s or 0.0) / (plain.tokens_per_s or 1.0)
                copy = statistics.median(ratios[n] for n in COPY_HEAVY)
                free = statistics.median(ratios[n] for n in FREE_CHAT)
                mark = "*" if (max_draft, ngrams) == default else " "
                print(
                    f"{mark} MAX_DRAFT {max_draft:>2}  NGRAM_SIZES {ngrams!s:<9}  "
                    f"copy-heavy x{copy:.2f}  free chat x{free:.2f}",
                    flush=True,
                )
    finally:
        lookup.MAX_DRAFT, lookup.NGRAM_SIZES = default
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
