"""``%%agent --schema NAME`` and ``--choice "a|b"`` in a real IPython shell, on the scripted
model (the embedded model's ``--choice`` is in tests/backends/test_structured_turns.py)."""

from __future__ import annotations

import json

import pydantic
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import get_runner
from agent_nb.backends import ScriptedBackend
from tests.fixtures_magics import final_bundle, run, usage_error
from tests.html_safety import assert_inert, render_all


class Person(pydantic.BaseModel):
    name: str
    age: int


def test_schema_shows_the_parsed_value_and_o_holds_the_reply(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns["Person"] = Person
    backend.enqueue({"name": "Ada", "age": 36})
    result, cap = run(shell, "%%agent --schema Person -o who\nWho wrote the first program?")
    assert result.error_in_exec is None, cap.stderr
    assert backend.requests[0].response_schema == Person.model_json_schema()
    reply = shell.user_ns["who"]
    assert reply.parsed == Person(name="Ada", age=36)
    markdown = final_bundle(cap)["text/markdown"]
    assert markdown == '```json\n{\n  "name": "Ada",\n  "age": 36\n}\n```'


def test_a_schema_dict_and_model_text_that_is_markup_render_inert(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    payload = "<img src=x onerror=alert(1)> ```</code><script>alert(1)</script>"
    shell.user_ns["note"] = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }
    backend.enqueue({"text": payload})
    result, cap = run(shell, "%%agent --schema note -o out\nWrite a note.")
    assert result.error_in_exec is None, cap.stderr
    assert shell.user_ns["out"].parsed == {"text": payload}
    for output in cap.outputs:
        for rendered in render_all(output.data["text/markdown"]).values():
            assert_inert(rendered, payload)


def test_choice_shows_the_chosen_string(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    backend.enqueue("yes")  # a scripted reply breaks the grammar: not JSON, so no value
    backend.enqueue('"unsure"')
    result, cap = run(shell, '%%agent --choice "yes|no|unsure" -o v\nIs it sorted?')
    assert result.error_in_exec is None
    assert backend.requests[0].response_schema == {"enum": ["yes", "no", "unsure"]}
    assert shell.user_ns["v"].parsed is None
    assert "does not match its schema" in final_bundle(cap)["text/markdown"]
    result, cap = run(shell, '%%agent --choice "yes | no|unsure" -o v\nIs it sorted?')
    assert shell.user_ns["v"].parsed == "unsure"
    assert final_bundle(cap)["text/plain"] == "unsure"


def test_bad_schema_and_choice_options_are_one_line_each(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns["number"] = 3
    for line, fragment in [
        ("--schema Missing", "--schema: no variable 'Missing'; define a pydantic BaseModel"),
        ("--schema number", "--schema number: expected a pydantic BaseModel class or a JSON"),
        ('--choice "yes"', "--choice needs two or more non-empty options separated by '|'"),
        ('--choice "yes||no"', "--choice needs two or more"),
        ('--schema number --choice "a|b"', "--schema number: expected"),
    ]:
        result, cap = run(shell, f"%%agent {line}\nhi")
        usage_error(result, cap, fragment)
    shell.user_ns["Person"] = Person
    result, cap = run(shell, '%%agent --schema Person --choice "a|b"\nhi')
    usage_error(result, cap, "--schema and --choice both set the reply's shape")
    shell.user_ns["odd"] = {"type": "no-such-type"}
    result, cap = run(shell, "%%agent --schema odd\nhi")
    usage_error(result, cap, "output_schema is not a valid JSON schema")
    assert backend.requests == []


def test_a_schema_that_does_not_compile_fails_the_cell_and_records_nothing(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns["bad"] = {
        "type": "object",
        "properties": {"a": {"type": "string", "pattern": "(?<=x)a"}},
    }
    result, cap = run(shell, "%%agent --schema bad\nhi")
    assert isinstance(result.error_in_exec, UsageError)
    lines = cap.stderr.strip().splitlines()
    assert lines[0].startswith(
        "UsageError: output_schema cannot be compiled into a grammar at #/properties/a/pattern:"
    )
    assert "look-around" in lines[0] and len(lines) == 2 and "%llguidance" not in cap.stderr
    assert get_runner().get_or_create_session("default").history == []
    assert backend.requests == []


def test_a_choice_reply_reads_as_the_string_and_parsed_is_the_value(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    backend.enqueue('"yes"')
    result, cap = run(shell, '%%agent --choice "yes|no" -o c\nIs it sorted?')
    assert result.error_in_exec is None, cap.stderr
    reply = shell.user_ns["c"]
    assert reply.text == "yes" and reply.parsed == "yes" and str(reply) == "yes"


@pytest.mark.parametrize(("chosen", "markup"), [("# Big", "<h1"), ("**bold**", "<strong")])
def test_a_chosen_string_shows_as_text_not_as_markdown(
    shell: InteractiveShell, backend: ScriptedBackend, chosen: str, markup: str
) -> None:
    backend.enqueue(json.dumps(chosen))
    result, cap = run(shell, '%%agent --choice "# Big|**bold**" -o c\nPick one.')
    assert result.error_in_exec is None, cap.stderr
    assert shell.user_ns["c"].parsed == chosen
    bundle = final_bundle(cap)
    assert bundle["text/plain"] == chosen
    for renderer, html in render_all(bundle["text/markdown"]).items():
        assert markup not in html, (renderer, html)
        assert chosen in html, (renderer, html)
    for html in render_all(shell.user_ns["c"]._repr_markdown_()).values():
        assert markup not in html and chosen in html


def test_a_schema_written_out_in_the_cell(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    backend.enqueue("0.25")
    result, cap = run(shell, '%%agent --schema \'{"type": "number"}\' -o n\nA quarter?')
    assert result.error_in_exec is None, cap.stderr
    assert backend.requests[0].response_schema == {"type": "number"}
    assert shell.user_ns["n"].parsed == 0.25
    result, cap = run(shell, "%%agent --schema '{\"type\": }'\nA quarter?")
    usage_error(result, cap, "--schema: not a JSON schema")
