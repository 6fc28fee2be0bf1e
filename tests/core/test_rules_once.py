"""Each rule is written once (issue 49): a reading of the request, a byte size, a call
line. The behaviour is tested through the one place; a scan of the package fails when
the rule is spelled out again somewhere else (outside ``agent_nb/data/``)."""

from __future__ import annotations

import pathlib
import re
from typing import Any

import pytest

from agent_nb import GenerateContentRequest
from agent_nb._core.types import Content, ToolSpec

ROOT = pathlib.Path(__file__).resolve().parents[2] / "agent_nb"
HI = (Content.user("hi"),)
ADD = ToolSpec("add", "Add two numbers.", {"type": "object", "properties": {}})


@pytest.mark.parametrize(
    ("tools", "choice", "offers", "forces"),
    [
        ((), "auto", False, False),
        ((ADD,), "auto", True, False),
        ((ADD,), "none", False, False),
        ((ADD,), "required", True, True),
        ((ADD,), "add", True, True),
    ],
)
def test_the_request_says_whether_it_offers_or_forces_a_tool(
    tools: tuple[ToolSpec, ...], choice: str, offers: bool, forces: bool
) -> None:
    request = GenerateContentRequest(HI, tools=tools, tool_choice=choice)
    assert (request.offers_tools, request.forces_tool) == (offers, forces)


# What each rule looked like where it was written out again, and its one home.
_RESTATED = {
    "offers_tools / forces_tool": (
        re.compile(r"tools\)? and \w+\.tool_choice (!=|not in)|tool_choice not in \("),
        "_core/types.py",
    ),
    # a size for a person: KB of 1,024 bytes, everywhere (MCP results, KV caches)
    # a tool call in one line: name(key=value, ...), the same in approvals and transcripts
    "call_line": (re.compile(r"def call_line\("), "_core/approvals.py"),
    "byte_size": (re.compile(r"f\"\{[^}]*/ ?10(00|24)[^}]*\} ?[kKM]B\""), "_core/numbers.py"),
}


def _sources() -> list[pathlib.Path]:
    return [p for p in ROOT.rglob("*.py") if "data" not in p.relative_to(ROOT).parts[:1]]


@pytest.mark.parametrize("rule", sorted(_RESTATED))
def test_a_rule_is_not_written_out_again(rule: str) -> None:
    pattern, home = _RESTATED[rule]
    found = [
        f"{path.relative_to(ROOT.parent)}:{number}"
        for path in _sources()
        if path.relative_to(ROOT).as_posix() != home
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == [], f"{rule} is written out again at {found}: use the one place"


def test_one_number_formatter_in_the_data_package() -> None:
    """An answer's number and a summary's are one rule, at two precisions."""
    from agent_nb.data.wording import format_number

    data = ROOT / "data"
    defined = [
        p.name for p in data.rglob("*.py") if "def format_number(" in p.read_text(encoding="utf-8")
    ]
    assert defined == ["wording.py"]
    assert (format_number(1234.5678), format_number(1234.5678, glance=True)) == (
        "1,234.57",
        "1,235",
    )
    assert (format_number(0.12345), format_number(0.12345, glance=True)) == ("0.1235", "0.12")


def test_a_data_cell_builds_its_chart_once(
    shell: Any, backend: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cell's view and its display share one chart: built once per answer."""
    from agent_nb.data import chart
    from tests.fixtures_magics import run

    built: list[object] = []
    real = chart.chart_for

    def counted(result: Any) -> Any:
        built.append(result)
        return real(result)

    monkeypatch.setattr(chart, "chart_for", counted)
    run(shell, "from palmerpenguins import load_penguins\npenguins = load_penguins()")
    result, cap = run(
        shell, "%%agent --data penguins --once -o r\nWhat is the mean body mass per species?"
    )
    assert result.error_in_exec is None, cap.stderr
    assert len(built) == 1
