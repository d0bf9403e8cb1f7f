"""Blur parameters as the command line's options (it validates them, in its words), and the
engine's Blurrer for each set of parameters, built once."""
from __future__ import annotations

import numbers
from typing import Any, Dict, List, Tuple

from . import _engine
from ._common import _checked, _integer, _number, log


def _blur_args(size, sigma, size_y, sigma_y, border, border_value, alpha, linear) -> Tuple[str, ...]:
    """The command line's options for these parameters (it validates them, in its words)."""
    args: List[str] = []
    for flag, value, kind in (("--size", size, _integer), ("--sigma", sigma, _number),
                              ("--size-y", size_y, _integer), ("--sigma-y", sigma_y, _number)):
        if value is not None:
            # --flag=value: a negative number is then a value, never taken for an option.
            args.append("%s=%r" % (flag, kind(flag[2:].replace("-", "_"), value)))
    if size is None and sigma is None:
        raise ValueError("give size, sigma or both; e.g. blur(x, 7, 1.5)")
    if not isinstance(border, str):
        raise TypeError("border must be a string such as 'clamp', not %s" % type(border).__name__)
    args += ["--border", border]
    if isinstance(border_value, numbers.Integral) and not isinstance(border_value, bool):
        values = [int(border_value)]
    else:
        try:
            values = [_integer("border_value", v) for v in border_value]
        except TypeError:
            raise TypeError("border_value must be an integer or a sequence of 1 to 4 integers") from None
    args += ["--border-value", ",".join(str(v) for v in values)]
    if not isinstance(alpha, str):
        raise TypeError("alpha must be 'premultiplied' or 'straight'")
    args += ["--alpha", alpha]
    if linear:
        args.append("--linear")
    return tuple(args)


_blurrers: Dict[Tuple[str, ...], Any] = {}


def _blurrer(args: Tuple[str, ...]):
    b = _blurrers.get(args)
    if b is None:
        b = _checked(_engine.make_blurrer(list(args)))
        _blurrers[args] = b
    return b


# The Blurrer of parameters as given, types included (3 and 3.0 are equal but only one is valid),
# so a repeated call skips building and parsing the command line's options.
_by_parameters: Dict[Tuple[Any, ...], Any] = {}


def _blurrer_for(size, sigma, size_y, sigma_y, border, border_value, alpha, linear):
    values = (size, sigma, size_y, sigma_y, border,
              tuple(border_value) if isinstance(border_value, (list, tuple)) else border_value, alpha, linear)
    key = values + tuple(type(v) for v in values)
    try:
        return _by_parameters[key]
    except (KeyError, TypeError):  # TypeError: an unhashable value (a list is made a tuple above)
        pass
    b = _blurrer(_blur_args(size, sigma, size_y, sigma_y, border, border_value, alpha, linear))
    try:
        _by_parameters[key] = b
    except TypeError:  # e.g. border_value as a NumPy array: valid, not cached
        pass
    return b


def _log_messages(b) -> None:
    for warning, line in b.messages():
        (log.warning if warning else log.info)("%s", line)
