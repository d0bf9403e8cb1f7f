"""The engine's outcomes as Python exceptions, the package's logger, and argument type checks."""
from __future__ import annotations

import logging
import numbers
from typing import Any

log = logging.getLogger("gpublur")

_ERRORS = {"ValueError": ValueError, "OSError": OSError, "MemoryError": MemoryError,
           "RuntimeError": RuntimeError}


def _checked(outcome):
    """The engine's (error kind, message, result): the result, or the error raised."""
    kind, message, result = outcome
    if kind:
        raise _ERRORS[kind](message)
    return result


def _integer(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an integer, not %s" % (name, type(value).__name__))
    return int(value)


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a number, not %s" % (name, type(value).__name__))
    return float(value)
