"""How `tests/parallel.py` cuts the suite into units of work for ``pytest -n 2``."""

from __future__ import annotations

from tests.parallel import BROWSER_UNIT, SHARED, shared_units, unit_of


def test_files_that_share_a_costly_session_fixture_go_out_as_one_unit() -> None:
    assert set(shared_units().values()) == set(SHARED)  # every fixture still has its users
    quickstart = {"tests/jupyter/test_notebooks.py", "tests/jupyter/test_quickstart_replay.py"}
    server = {
        "tests/backends/test_openai_backend.py",
        "tests/backends/test_structured.py",
        "tests/data/test_choose_server.py",
    }
    assert {unit_of(path) for path in quickstart} == {"quickstart_cold"}
    assert {unit_of(path) for path in server} == {"mlx_server"}
    assert {p for p, unit in shared_units().items() if unit == "mlx_server"} == server


def test_browser_files_are_one_unit_and_any_other_file_its_own() -> None:
    assert unit_of("tests/jupyter/test_widget_browser.py") == BROWSER_UNIT
    assert unit_of("tests/data/test_chart_browser.py") == BROWSER_UNIT
    assert unit_of("tests/test_docs.py") == "tests/test_docs.py"
