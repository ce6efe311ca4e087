"""The result.json schema is package data of ``ioscore`` and the suite's copy is the same file."""

from __future__ import annotations

import fnmatch
import json
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from ioscore.results import ResultFormatError, load_run, parse_json

REPO_ROOT = Path(__file__).resolve().parents[2]
SUITE_SCHEMA = REPO_ROOT / "suite" / "schema" / parse_json.SCHEMA_FILE
PACKAGE_SCHEMA = REPO_ROOT / "runners" / "ioscore" / "schemas" / parse_json.SCHEMA_FILE
EXAMPLE = REPO_ROOT / "suite" / "schema" / "examples" / "short-run-np2.result.json"


def test_package_copy_is_byte_identical_to_the_suites() -> None:
    # The suite writes result.json to suite/schema/; the library validates with its own copy.
    # Changing one without the other would make the CLI and service judge a different contract.
    assert PACKAGE_SCHEMA.read_bytes() == SUITE_SCHEMA.read_bytes(), (
        f"cp {SUITE_SCHEMA.relative_to(REPO_ROOT)} {PACKAGE_SCHEMA.relative_to(REPO_ROOT)}"
    )


def test_schema_is_declared_package_data() -> None:
    config = tomllib.loads((REPO_ROOT / "runners" / "pyproject.toml").read_text("utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["ioscore"]
    relative = f"schemas/{parse_json.SCHEMA_FILE}"
    assert any(fnmatch.fnmatch(relative, pattern) for pattern in patterns), patterns


def test_library_loads_the_schema_through_importlib_resources() -> None:
    shipped = resources.files("ioscore.schemas").joinpath(parse_json.SCHEMA_FILE)
    assert parse_json.result_schema() == json.loads(shipped.read_text(encoding="utf-8"))
    assert parse_json.result_schema()["$schema"].endswith("2020-12/schema")


@pytest.fixture
def example_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "result.json").write_bytes(EXAMPLE.read_bytes())
    return run


def test_example_passes_and_a_violation_names_its_place(example_run: Path) -> None:
    assert load_run(example_run).format == "ioscore-json"
    document = json.loads((example_run / "result.json").read_text("utf-8"))
    document["phases"][0]["unexpected"] = True  # additionalProperties: false in the schema
    (example_run / "result.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ResultFormatError, match=r"schema violation at phases/0: .*unexpected"):
        load_run(example_run)
