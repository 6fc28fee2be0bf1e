"""Structured output on real schemas: JSONSchemaBench coverage on the embedded model.

Run: python benchmarks/bench_jsonschema.py [SAMPLE] [--limit N] [--subset NAME] [--only ID]
[--free N] [--show] [--jsonl PATH]

``SAMPLE`` is a JSONSchemaBench sample file (default
``../shared/jsonschemabench/dev_sample.json``, outside the repository:
``{"schemas": [{"subset", "id", "schema"}, ...]}``). The protocol is the
paper's (Geng et al. 2025): its prompt (the system line "You need to
generate a JSON object that matches the schema below." and the schema as
the user message), greedy decoding, a 256-token limit, and the reply
validated with ``jsonschema`` against the schema as given, under its own
draft (2020-12 when it names none) with format checks. A schema counts as
covered when the agent is built (its grammar compiles), the turn runs and the
reply validates.

Prints per subset: coverage beside the paper's llguidance figure (Table 4,
Llama-3.2-1B), over all schemas (as the paper counts: a schema an engine
cannot run is not covered) and over those whose prompt fits the model's
window, compile coverage, the median seconds per schema, and where the rest went: refused (the
agent or the backend did not compile the schema), too long (the prompt does
not fit the model's window), cut off (the 256-token limit), invalid (valid
JSON the schema forbids); then decode tokens/s with the grammar against
free decoding of the same prompts (the first ``--free`` schemas that ran).
"""

from __future__ import annotations

import argparse
import collections
import json
import signal
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1]))

import jsonschema

from agent_nb import Agent, AgentRunner, GenerationConfig
from agent_nb.backends.mlx import MLXBackend
from agent_nb.errors import ContextWindowError, SchemaError

DEFAULT_SAMPLE = Path(__file__).parents[1] / ".." / "shared" / "jsonschemabench" / "dev_sample.json"
SYSTEM = "You need to generate a JSON object that matches the schema below."
#: The paper's coverage with Guidance (llguidance), Llama-3.2-1B-Instruct, Table 4.
PAPER_LLGUIDANCE = {
    "Glaiveai2K": 0.96,
    "Github_easy": 0.86,
    "Github_medium": 0.69,
    "Github_hard": 0.41,
    "Kubernetes": 0.91,
}
OUTCOMES = ("valid", "refused", "too long", "cut off", "invalid", "error")


def valid(schema: dict[str, Any], text: str) -> tuple[bool, str]:
    """The paper's check: parse, then validate under the schema's draft with formats."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        return False, f"not JSON: {exc}"
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        error = jsonschema.exceptions.best_match(
            cls(schema, format_checker=cls.FORMAT_CHECKER).iter_errors(value)
        )
    except Exception as exc:  # an unresolvable $ref, a bad regex in the schema
        return False, f"validator failed: {type(exc).__name__}: {exc}"
    return error is None, "" if error is None else f"{error.json_path}: {error.message}"


def run_one(runner: AgentRunner, i: int, entry: dict[str, Any], free: bool) -> dict[str, Any]:
    schema = entry["schema"]
    config = GenerationConfig(max_tokens=256, temperature=0.0)
    out: dict[str, Any] = {"subset": entry["subset"], "id": entry["id"], "tps": None}
    try:
        agent = Agent("bench", SYSTEM, config=config, output_schema=None if free else schema)
    except SchemaError as exc:
        return out | {"outcome": "refused", "why": str(exc).split("\n")[0]}
    session_id = f"b{i}{'f' if free else ''}"
    session = runner.get_or_create_session(session_id, agent=agent)
    started = time.perf_counter()
    try:
        reply = session.run(json.dumps(schema))
    except SchemaError as exc:
        return out | {"outcome": "refused", "why": str(exc).split("\n")[0]}
    except ContextWindowError as exc:
        return out | {"outcome": "too long", "why": str(exc).split("\n")[0]}
    except Exception as exc:
        return out | {"outcome": "error", "why": f"{type(exc).__name__}: {exc}"[:200]}
    finally:
        runner.delete_session(session_id)
    out["tps"] = reply.usage.tokens_per_s
    out["tokens"] = reply.usage.generated_tokens
    out["seconds"] = time.perf_counter() - started
    out["text"] = reply.text
    if free:
        return out | {"outcome": "free"}
    if reply.finish_reason != "stop":
        return out | {"outcome": "cut off", "why": reply.finish_reason}
    ok, why = valid(schema, reply.text)
    return out | {"outcome": "valid" if ok else "invalid", "why": why}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sample", nargs="?", default=str(DEFAULT_SAMPLE))
    parser.add_argument("--limit", type=int, default=0, help="schemas per subset (0: all)")
    parser.add_argument("--subset", action="append", help="only these subsets")
    parser.add_argument("--free", type=int, default=5, help="schemas also decoded freely")
    parser.add_argument("--show", action="store_true", help="print each schema's outcome")
    parser.add_argument("--only", action="append", help="only the schemas with these ids")
    parser.add_argument("--jsonl", help="write each schema's outcome and reply to this file")
    args = parser.parse_args()
    entries = json.loads(Path(args.sample).read_text())["schemas"]
    if args.subset:
        entries = [e for e in entries if e["subset"] in args.subset]
    if args.only:
        entries = [e for e in entries if e["id"] in args.only]
    log = open(args.jsonl, "w") if args.jsonl else None  # noqa: SIM115
    entries = interleaved(entries, args.limit)
    backend = MLXBackend("smollm2-135m", progress=False)
    backend.load()
    runner = AgentRunner(model=backend)
    results: list[dict[str, Any]] = []
    free: list[dict[str, Any]] = []
    started = time.perf_counter()
    signal.signal(signal.SIGTERM, _stop)
    try:
        for i, entry in enumerate(entries):
            if _STOP:
                break
            result = run_one(runner, i, entry, free=False)
            results.append(result)
            if log is not None:
                log.write(json.dumps(result) + "\n")
                log.flush()
            if args.show:
                print(
                    f"{result['subset']:14} {result['id']:28} {result['outcome']:9} "
                    f"{result.get('tokens', '-')!s:>4} {result.get('seconds', 0):5.1f}s "
                    f"{result['tps'] or 0:5.1f}tok/s "
                    f"{result.get('why', '')[:100]}",
                    flush=True,
                )
        ran = [(i, e) for (i, e), r in zip(enumerate(entries), results, strict=False)
               if r["tps"] is not None][: args.free]  # fmt: skip
        free = [run_one(runner, i, e, free=True) for i, e in ran]
        if _STOP:
            print(f"stopped after {len(results)} of {len(entries)} schemas")
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: report what ran
        print(f"stopped after {len(results)} of {len(entries)} schemas")
    finally:
        runner.shutdown()
        if log is not None:
            log.close()
    report(results, free, time.perf_counter() - started)


_STOP: list[bool] = []


def _stop(*_: Any) -> None:
    """SIGTERM: stop after the schema that is running (a turn cancelled by Ctrl-C
    would be counted as an error) and report what ran."""
    _STOP.append(True)


def interleaved(entries: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The subsets taken in turn (one of each, then the next of each), so a run
    stopped early has measured every subset; at most ``limit`` of each (0: all)."""
    by_subset: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for entry in entries:
        by_subset[entry["subset"]].append(entry)
    rounds = max((len(v) for v in by_subset.values()), default=0)
    rounds = min(rounds, limit) if limit else rounds
    return [rows[k] for k in range(rounds) for rows in by_subset.values() if k < len(rows)]


def report(results: list[dict[str, Any]], free: list[dict[str, Any]], took: float) -> None:
    by_subset: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for result in results:
        by_subset[result["subset"]].append(result)
    head = (
        f"{'subset':14} {'n':>3} {'coverage':>8} {'fitting':>7} {'paper':>6} {'compiles':>8} "
        f"{'med s':>6}  " + "  ".join(f"{o:>8}" for o in OUTCOMES[1:])
    )
    print(head)
    for subset, rows in [*by_subset.items(), ("all", results)]:
        counts = collections.Counter(r["outcome"] for r in rows)
        n = len(rows)
        fit = n - counts["too long"]
        paper = PAPER_LLGUIDANCE.get(subset)
        seconds = [r["seconds"] for r in rows if "seconds" in r]
        print(
            f"{subset:14} {n:3d} {counts['valid'] / n:8.2f} "
            f"{counts['valid'] / fit if fit else 0:7.2f} "
            f"{'' if paper is None else f'{paper:.2f}':>6} {1 - counts['refused'] / n:8.2f} "
            f"{statistics.median(seconds) if seconds else 0:6.1f}  "
            + "  ".join(f"{counts[o]:8d}" for o in OUTCOMES[1:])
        )
    print(
        "coverage: valid / all schemas (the paper's count: a prompt over the window is "
        "not covered); fitting: valid / schemas whose prompt fits the window"
    )
    pairs = [
        (r["tps"], f["tps"])
        for f in free
        for r in results
        if r["id"] == f["id"] and r["tps"] and f["tps"]
    ]
    if pairs:
        grammar, plain = (
            statistics.median(p[0] for p in pairs),
            statistics.median(p[1] for p in pairs),
        )
        print(
            f"decode tokens/s, median of {len(pairs)} prompts: with the grammar {grammar:.1f}, "
            f"free {plain:.1f} (ratio {grammar / plain:.2f})"
        )
    print(f"{len(results)} schemas in {took:.0f} s")


if __name__ == "__main__":
    main()
