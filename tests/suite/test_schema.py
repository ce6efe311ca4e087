"""The result.json schema is a valid JSON Schema and the shipped examples follow it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from suite_helpers import SCHEMA_PATH, SUITE_DIR


def test_schema_is_valid_and_versioned() -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    # 1: the full per-rank form; 1.1: the summary form above the rank-detail threshold
    assert schema["properties"]["schema"]["enum"] == ["ioscore-result/1", "ioscore-result/1.1"]


@pytest.mark.parametrize(
    "example", sorted((SUITE_DIR / "schema" / "examples").glob("*.json")), ids=lambda p: p.name
)
def test_examples_validate(example: Path) -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    doc = json.loads(example.read_text())
    jsonschema.validate(doc, schema)
    # a document that breaks the contract is rejected
    broken = dict(doc, phases=[dict(doc["phases"][0], group="io")])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
