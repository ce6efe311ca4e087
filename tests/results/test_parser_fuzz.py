"""Fuzz (bounded, for `make test`): every run-file parser either parses or raises the library's
own ResultFormatError, whatever the text. bench/parser_fuzz.py runs many more examples and
measures the time per input size."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from .conftest import DEV, SC25_RUN
from .fuzz_inputs import (
    PARSERS,
    json_inputs,
    parse_json_or_refuse,
    parse_or_refuse,
    text_inputs,
)
from .test_result_json import contract_document

BOUNDED = settings(
    max_examples=150,
    deadline=None,  # no wall-clock assertions in tests; linearity is measured by the bench
    database=None,  # nothing written to the work tree
    suppress_health_check=[HealthCheck.too_slow],
)
pytestmark = pytest.mark.timeout(300)


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_text_parsers_only_raise_their_own_error(name: str) -> None:
    @BOUNDED
    @given(text_inputs(name))
    def run(text: str) -> None:
        parse_or_refuse(PARSERS[name], text)

    run()


def test_result_json_parser_only_raises_its_own_error() -> None:
    @BOUNDED
    @given(json_inputs(contract_document(DEV / SC25_RUN)))
    def run(text: str) -> None:
        parse_json_or_refuse(text)

    run()
