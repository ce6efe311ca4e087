"""JSON that PostgreSQL can store, for the service's own inputs: the metadata form fields
(``intake.parse_json_field``) and the API's JSON bodies (``StorableJSONParser``). The parser
and its checks are the results library's (``ioscore.results.storable_json``), shared with the
validator's result.json reader; here only the service's nesting bound is chosen.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from ioscore.results import UnstorableJSON, loads_storable_json

MAX_DEPTH = 32  # metadata documents and API bodies are shallow

__all__ = ["MAX_DEPTH", "StorableJSONParser", "UnstorableJSON", "loads"]


def loads(text: str | bytes) -> Any:
    """``json.loads`` refusing what cannot be stored (``UnstorableJSON``); syntax errors are
    ``json.JSONDecodeError`` as usual."""
    return loads_storable_json(text, MAX_DEPTH)


class StorableJSONParser(JSONParser):
    """DRF's JSON parser with ``loads``: unstorable values are a 400 naming the problem.
    (DRF reads the body through Django, which applies DATA_UPLOAD_MAX_MEMORY_SIZE.)"""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        try:
            return loads(stream.read() if stream is not None else b"")
        except UnstorableJSON as exc:
            raise ParseError(f"JSON body: {exc}") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
