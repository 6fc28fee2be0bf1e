"""A fixed prompt set for prompt-lookup decoding: copy-heavy turns and free chat.

Shared by `tests/backends/test_prompt_lookup.py` and `benchmarks/bench_decode.py`.
The traceback is a real one, made by running the code below.
"""

from __future__ import annotations

import traceback

from agent_nb._core.types import Content

__all__ = ["COPY_HEAVY", "FREE_CHAT", "TRACEBACK"]

_CODE = """def mean_price(rows):
    total = 0
    for row in rows:
        total += row["price"]
    return total / len(rows)
"""


def _traceback() -> str:
    namespace: dict[str, object] = {}
    exec(compile(_CODE, "cell_3.py", "exec"), namespace)  # our own fixed code, for a real traceback
    try:
        namespace["mean_price"]([{"price": 3.5}, {"cost": 2.0}])  # type: ignore[operator]
    except KeyError:
        return traceback.format_exc()
    raise AssertionError("the example code should raise")


TRACEBACK = _traceback()

_DATA = """df: DataFrame, 6 rows x 4 columns
columns: city (object), year (int64), population (int64), area_km2 (float64)
   city   year  population  area_km2
0  Lyon   2020      522250      47.87
1  Lyon   2021      522969      47.87
2  Nice   2020      342669      71.92
3  Nice   2021      342522      71.92
4  Lille  2020      234475      34.51
5  Lille  2021      236234      34.51
"""

_ANSWER = (
    "A list comprehension builds a new list from an iterable in one expression, "
    "for example [x * x for x in range(10) if x % 2 == 0] keeps the squares of the even numbers."
)

COPY_HEAVY: dict[str, list[Content]] = {
    "explain": [
        Content.user(
            "Explain this error and show the fixed function.\n\n"
            f"Code:\n```python\n{_CODE}```\n\nTraceback:\n```\n{TRACEBACK}```"
        )
    ],
    "code edit": [
        Content.user(
            "Rewrite this function so it skips rows without a price. "
            f"Reply with the whole function in one code block.\n\n```python\n{_CODE}```"
        )
    ],
    "data summary": [
        Content.user(f"Summarise this DataFrame: list each city with its populations.\n\n{_DATA}")
    ],
    "repeat answer": [
        Content.user("What is a list comprehension?"),
        Content.model(_ANSWER),
        Content.user("Repeat your previous answer word for word."),
    ],
}

FREE_CHAT: dict[str, list[Content]] = {
    "free chat": [Content.user("Tell me a short story about a lighthouse keeper.")],
}
