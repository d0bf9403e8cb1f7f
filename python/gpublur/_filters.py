"""convolve() and unsharp(): a user's convolution matrix and an unsharp mask, as the command line's
--matrix and --unsharp compute them, through the engine's typed operations (no command-line text)."""
from __future__ import annotations

import numbers
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _engine
from ._blur import _filter
from ._common import _checked, _integer, _number


def _border_values(border_value) -> List[int]:
    if isinstance(border_value, numbers.Integral) and not isinstance(border_value, bool):
        return [int(border_value)]
    try:
        return [_integer("border_value", v) for v in border_value]
    except TypeError:
        raise TypeError("border_value must be an integer or a sequence of 1 to 4 integers") from None


def _common(border, border_value, alpha, linear) -> Tuple[str, List[int], str, bool]:
    if not isinstance(border, str):
        raise TypeError("border must be a string such as 'clamp', not %s" % type(border).__name__)
    if not isinstance(alpha, str):
        raise TypeError("alpha must be 'premultiplied' or 'straight'")
    return border, _border_values(border_value), alpha, bool(linear)


def _rows(matrix) -> List[List[float]]:
    """The matrix as rows of Python floats: a 2-D sequence or array of real numbers."""
    if hasattr(matrix, "tolist"):  # NumPy, CuPy, torch
        matrix = matrix.tolist()
    if isinstance(matrix, (str, bytes)) or not hasattr(matrix, "__iter__"):
        raise TypeError("matrix must be a 2-D sequence or array of numbers, e.g. [[1, 2, 1], [2, 4, 2], [1, 2, 1]]")
    rows = []
    for row in matrix:
        if isinstance(row, (str, bytes)) or not hasattr(row, "__iter__"):
            raise TypeError("matrix must be 2-D: a sequence of rows of numbers")
        rows.append([_number("a matrix value", v) for v in row])
    return rows


_convolvers: Dict[Any, Any] = {}


def convolve(x, matrix, divisor: Optional[float] = None, offset: float = 0, *, border: str = "clamp",
             border_value: Union[int, Sequence[int]] = 0, alpha: str = "premultiplied", linear: bool = False,
             device: Union[str, int] = "auto", out: Any = None, threads: int = 0):
    """Correlates an image (or a batch) with a matrix exactly as ``gpublur --matrix`` does.

    Each output sample is ``clamp(round(sum(w * p) / divisor + offset))``, halves away from zero, with
    the matrix centred and not flipped (OpenCV's ``filter2D``, SciPy's ``correlate``). Integer and
    decimal matrices are exact; others are within 1 LSB (docs/usage.md). A matrix of rank one (a box,
    a binomial, Sobel) runs as two 1-D passes with the same bytes.

    Parameters
    ----------
    x : array
        HxW, HxWxC or NxHxWxC, uint8, uint16 or float32, as :func:`blur` takes, on the host or a
        GPU: the same bytes either way.
    matrix : 2-D sequence or array of numbers
        Odd width and height, up to 31x31 (255x255 for a matrix of rank one). Each value is the decimal
        its ``repr`` shows (0.1 is exactly one tenth).
    divisor : float, optional
        Default: the values' sum where it is not 0, else 1. Must not be 0.
    offset : float
        Added after dividing, in the image's own levels.
    border, border_value, alpha, linear
        As :func:`blur`; with 2 or 4 channels and alpha='premultiplied' (default) alpha is kept as it
        is and the colours are filtered; alpha='straight' filters every channel.
    device : {'auto', 'cpu'}
    out, threads
        As :func:`blur`.

    Examples
    --------
    >>> import numpy as np, gpublur
    >>> square = np.zeros((9, 9), np.uint8); square[3:6, 3:6] = 255
    >>> edges = gpublur.convolve(square, [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]])
    """
    rows = _rows(matrix)
    if divisor is not None:
        divisor = _number("divisor", divisor)
    offset = _number("offset", offset)
    common = _common(border, border_value, alpha, linear)
    key = (tuple(tuple(r) for r in rows), divisor, offset) + common[:1] + (tuple(common[1]),) + common[2:]
    b = _convolvers.get(key)
    if b is None:
        b = _checked(_engine.make_convolver(rows, divisor, offset, *common))
        _convolvers[key] = b
    return _filter(b, x, alpha=alpha, device=device, stream=None, out=out, threads=threads)


_sharpeners: Dict[Any, Any] = {}


def unsharp(x, size: Optional[int] = None, sigma: Optional[float] = None, amount: float = 1.0,
            threshold: float = 0, *, border: str = "clamp", border_value: Union[int, Sequence[int]] = 0,
            alpha: str = "premultiplied", linear: bool = False, device: Union[str, int] = "auto",
            out: Any = None, threads: int = 0):
    """Sharpens an image (or a batch) with an unsharp mask exactly as ``gpublur --unsharp`` does.

    ``out = in + amount * (in - blur(in))`` where ``|in - blur(in)| > threshold``, else ``in``; the
    blur is :func:`blur`'s Gaussian of ``size`` and ``sigma`` (one is enough). Within 1 LSB of the same
    formula in float64.

    Parameters
    ----------
    x : array
        As :func:`convolve` takes (host or GPU arrays).
    size, sigma : int, float, optional
        The Gaussian's, by :func:`blur`'s rules.
    amount : float
        From 0 to 10.
    threshold : float
        In levels of the image's depth (0 to 255 for uint8, to 65535 for uint16).
    border, border_value, alpha, linear, device, out, threads
        As :func:`convolve`.

    Examples
    --------
    >>> import numpy as np, gpublur
    >>> image = np.zeros((64, 64, 3), np.uint8)
    >>> gpublur.unsharp(image, sigma=2, amount=1.5).shape
    (64, 64, 3)
    """
    if size is not None:
        size = _integer("size", size)
    if sigma is not None:
        sigma = _number("sigma", sigma)
    if size is None and sigma is None:
        raise ValueError("give size, sigma or both; e.g. unsharp(x, sigma=2, amount=1.5)")
    amount = _number("amount", amount)
    threshold = _number("threshold", threshold)
    common = _common(border, border_value, alpha, linear)
    key = (size, sigma, amount, threshold) + common[:1] + (tuple(common[1]),) + common[2:]
    b = _sharpeners.get(key)
    if b is None:
        b = _checked(_engine.make_sharpener(size, sigma, amount, threshold, *common))
        _sharpeners[key] = b
    return _filter(b, x, alpha=alpha, device=device, stream=None, out=out, threads=threads)
