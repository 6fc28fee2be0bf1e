"""`Schema`: a pydantic model or a JSON-schema dict, held as one value.

An agent's ``output_schema`` and ``input_schema`` take either, as ADK takes a
pydantic model and OpenAI's ``response_format`` a JSON schema. Both become
the JSON schema a grammar is compiled from (`Schema.json_schema`) and a check
of what came back (`Schema.parse`, `Schema.validate`): a pydantic model
validates into its own instance; a dict is checked with ``jsonschema`` where
it is installed (the ``mlx`` extra has it), else only parsed as JSON. Model
text is parsed as JSON data and never evaluated. pydantic and jsonschema are
imported on first use only: ``import agent_nb`` stays light.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from ..errors import SchemaError

__all__ = ["Schema", "as_schema", "is_model_class"]


def is_model_class(value: object) -> bool:
    """A pydantic ``BaseModel`` subclass, told without importing pydantic."""
    return (
        isinstance(value, type)
        and callable(getattr(value, "model_json_schema", None))
        and callable(getattr(value, "model_validate_json", None))
    )


@dataclasses.dataclass(frozen=True)
class Schema:
    """What a JSON value must be: ``source`` as given (a model class or a dict) and
    the JSON schema it stands for."""

    source: Any
    json_schema: Mapping[str, Any]

    @property
    def is_model(self) -> bool:
        return is_model_class(self.source)

    def parse(self, text: str) -> Any:
        """The validated value of a whole JSON ``text``; `ValueError` says what is wrong."""
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"not JSON: {exc}") from None
        return self.validate(value)

    def validate(self, value: Any) -> Any:
        """``value`` (parsed JSON) checked: the model's instance, or ``value`` itself."""
        if self.is_model:
            import pydantic

            try:
                return self.source.model_validate(value)
            except pydantic.ValidationError as exc:
                raise ValueError(_pydantic_message(exc)) from None
        try:
            import jsonschema
        except ImportError:  # nothing to check against: the grammar (or the server) held it
            return value
        try:
            error = jsonschema.exceptions.best_match(
                _validator(self.json_schema).iter_errors(value)
            )
        except Exception as exc:  # e.g. a $ref that cannot be resolved
            raise ValueError(_one_line(f"the schema could not be checked: {exc}")) from None
        if error is not None:
            where = error.json_path if error.path else "the value"
            raise ValueError(_one_line(f"{where}: {error.message}"))
        return value

    def to_json(self, value: Any) -> Any:
        """A validated value as plain JSON data (a model instance is dumped)."""
        if self.is_model:
            return value.model_dump(mode="json")
        return value

    def pretty(self, value: Any) -> str:
        """A validated value as indented JSON text (a lone string shows as itself)."""
        data = self.to_json(value)
        if isinstance(data, str):
            return data
        return json.dumps(data, indent=2, ensure_ascii=False)


def _validator(schema: Mapping[str, Any]) -> Any:
    """A validator of ``schema`` under its own draft (``$schema``; 2020-12 when it
    names none), with format checks: what the grammar compiled loosely (an
    unknown format, ``oneOf``, ``not``, ``dependencies``) is held here."""
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


#: How much of a mismatch's message a note shows (an enum of 500 names is not read).
MAX_MESSAGE = 200


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def _pydantic_message(exc: Any) -> str:
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error.get("loc", ())) or "the value"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    more = exc.error_count() - len(parts)
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def as_schema(what: str, value: object) -> Schema | None:
    """``value`` (None, a pydantic model class or a JSON-schema dict) as a `Schema`;
    anything else raises `TypeError` naming what is allowed, and a dict that is no
    JSON schema raises `SchemaError` (checked with jsonschema where installed)."""
    if value is None:
        return None
    if isinstance(value, Schema):
        return value
    if is_model_class(value):
        return Schema(value, value.model_json_schema())  # type: ignore[attr-defined]
    if isinstance(value, Mapping):
        try:
            schema = json.loads(json.dumps(dict(value), allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{what} must be JSON-serialisable: {exc}") from None
        _check_json_schema(what, schema)
        return Schema(copy.deepcopy(schema), schema)
    raise TypeError(
        f"{what} must be a pydantic BaseModel class or a JSON-schema dict, "
        f"got {type(value).__name__}"
    )


def _check_json_schema(what: str, schema: dict[str, Any]) -> None:
    try:
        import jsonschema
    except ImportError:
        return
    try:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        raise SchemaError(f"{what} is not a valid JSON schema: {exc.message}") from None
