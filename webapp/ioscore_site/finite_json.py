"""Non-finite numbers never leave the service: JSON has no NaN or Infinity (browsers'
``JSON.parse`` refuses them, so one stored ``inf`` would break every chart and download), and
a rate that is not a number is unknown, so it is shown as null/empty."""

from __future__ import annotations

import math
from typing import Any

from rest_framework.renderers import JSONRenderer


def finite(value: Any) -> Any:
    """``value`` with every NaN/±inf float (in nested dicts, lists, tuples) replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


class FiniteJSONRenderer(JSONRenderer):
    """The API's JSON renderer; DRF's own would answer 500 for a non-finite number."""

    def render(
        self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None
    ) -> Any:
        try:  # almost every response is finite: no copy of it then (strict JSON refuses NaN)
            return super().render(data, accepted_media_type, renderer_context)
        except ValueError:
            return super().render(finite(data), accepted_media_type, renderer_context)
