"""Replies for the repetition stop: ordinary ones that must never stop (lists,
tables, code, prose, verse) and loops that must. Written to look like what a
small chat model answers; tests/core/test_repetition.py feeds them through
`RepetitionWatch` in several chunkings."""

from __future__ import annotations

__all__ = ["LOOPS", "ORDINARY"]


def _numbered(n: int) -> str:
    steps = ["Preheat the oven", "Mix the flour and salt", "Add the butter", "Stir well",
             "Let it rest", "Roll out the dough", "Cut into squares", "Bake"]  # fmt: skip
    return "".join(f"{i}. {steps[i % len(steps)]}.\n" for i in range(1, n + 1))


def _table(rows: int) -> str:
    head = "| Month | Region | Sales | Returns |\n|---|---|---|---|\n"
    regions = ["North", "South", "East", "West"]
    body = "".join(
        f"| 2024-{1 + i % 12:02d} | {regions[i % 4]} | {1000 + 37 * i} | {i % 5} |\n"
        for i in range(rows)
    )
    return head + body


_PACK = ["Socks", "Shirts", "Shoes", "Snacks", "Maps", "Tickets", "Books", "Hats", "Pens"]

ORDINARY: dict[str, str] = {
    "numbered list, 30 lines": "Here are the steps:\n\n" + _numbered(30),
    "table, 20 similar rows": "Sales by month:\n\n" + _table(20),
    "table, identical short rows": (
        "| Name | Status | Owner |\n|------|--------|-------|\n" + "| TBD | TBD | TBD |\n" * 6
    ),
    "table, N/A cells": "| a | b | c | d | e | f |\n|---|---|---|---|---|---|\n"
    + "| N/A | N/A | N/A | N/A | N/A | N/A |\n" * 1
    + "| 1 | 2 | 3 | 4 | 5 | 6 |\n",
    "wide separator row": "| "
    + " | ".join(f"col{i}" for i in range(12))
    + " |\n|"
    + "---|" * 12
    + "\n",
    "bulleted list of similar items": "Things to pack:\n"
    + "".join(f"- {x} for the trip\n" for x in _PACK),
    "checklist": "- [ ] write the tests\n- [ ] run the tests\n- [x] read the issue\n"
    "- [ ] fix the bug\n- [ ] run the tests\n",
    "python with repeated lines": (
        "Try this:\n\n```python\ngrid = [\n"
        + "    [0, 0, 0],\n" * 6
        + "]\n"
        + 'print("hello world")\n' * 5
        + "```\n\nEach call prints one line."
    ),
    "python still streaming, repeated prints": "```python\n" + 'print("hello world")\n' * 6,
    "code with repeated pass": (
        "```python\nclass A:\n    pass\n\n\nclass B:\n    pass\n\n\nclass C:\n    pass\n```\n"
    ),
    "json array of similar objects": "```json\n[\n"
    + ",\n".join(f'  {{"id": {i}, "name": "item", "ok": true}}' for i in range(12))
    + "\n]\n```",
    "csv block": "```\ndate,region,value\n"
    + "".join(f"2024-01-{d:02d},North,{d * 3}\n" for d in range(1, 20))
    + "```",
    "yaml list": "```yaml\nsteps:\n" + "  - run: make test\n" * 2 + "  - run: make lint\n```",
    "array literal": "The matrix is [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0].",
    "laughter": "Ha ha ha ha ha ha ha ha, that is a good one!",
    "very very": "That is very, very, very, very, very good news.",
    "cheer": "Hip hip hooray! Hip hip hooray! Hip hip hooray!",
    "countdown": "Ready? 10... 9... 8... 7... 6... 5... 4... 3... 2... 1... Liftoff!",
    "rules and breaks": "Part one.\n\n---\n\n* * *\n\n=====\n\n\n\n\nPart two.",
    "verse with a refrain": (
        "Happy birthday to you,\nHappy birthday to you,\nHappy birthday dear Ann,\n"
        "Happy birthday to you.\n"
    ),
    "row your boat": "Row, row, row your boat,\nGently down the stream.\n"
    "Merrily, merrily, merrily, merrily,\nLife is but a dream.",
    "dialogue": "A: Hi.\nB: Hi.\nA: How are you?\nB: Fine.\nA: Good.\nB: Good.\n",
    "prose": (
        "Rome began as a cluster of villages on the hills beside the Tiber. Over the "
        "centuries it grew into a republic, then an empire that ringed the Mediterranean. "
        "Its roads, laws and language outlived it; the city itself was sacked in 410 and "
        "again in 455, and the western empire ended in 476."
    ),
    "steps with numbers": "".join(f"Step {i}: open the file.\n" for i in range(1, 12)),
    "repeated header lines": "## Q1\nNo change.\n## Q2\nNo change.\n## Q3\nNo change.\n",
    "ascii box": "+--------+--------+\n|   a    |   b    |\n+--------+--------+\n"
    "|   c    |   d    |\n+--------+--------+\n",
    "sql with union": "```sql\nSELECT a FROM t1\nUNION ALL\nSELECT a FROM t2\nUNION ALL\n"
    "SELECT a FROM t3\nUNION ALL\nSELECT a FROM t4\n```",
    "emphasis": "No. No. No. No. No. That is not how it works.",
}

#: (the loop, the text before it): each must stop within `short_repeats` + 1 copies.
LOOPS: dict[str, tuple[str, str]] = {
    "Rome was born": ("Rome was born. ", ""),
    "after an intro": ("Rome was born. ", "Here is the essay.\n\n"),
    "I am a cat": ("I am a cat. ", "Once upon a time. "),
    "the end, lines": ("The end.\n", "And so it ended.\n"),
    "and then": ("and then ", "She walked on "),
    "thank you": ("Thank you! ", ""),
    "a bullet repeated": ("- Rome was born.\n", "Facts:\n"),
    "long sentence": (
        "She loves to play with her favorite toys and loves to explore her own room. ",
        "Once upon a time. ",
    ),
}
