"""blur() and gpus(): arrays blurred on their own GPU and stream, or host arrays on a GPU or the CPU."""
from __future__ import annotations

import numbers
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _engine
from ._arrays import (_Layout, _check_out, _empty_like, _layout, _row_pitches, _stream_handle,
                      _transparent)
from ._common import _checked, _integer, log
from ._parameters import _blurrer_for, _log_messages


def gpus() -> List[Tuple[int, str, str]]:
    """The GPUs gpublur can use, as (ordinal, name, architecture) tuples; empty without one
    (CUDA_VISIBLE_DEVICES applies)."""
    return list(_engine.gpus()[0])


def _device_ordinal(device) -> int:
    """-1 for the CPU, else a GPU ordinal, for host arrays."""
    visible = gpus()
    if isinstance(device, numbers.Integral) and not isinstance(device, bool):
        return int(device)
    if device == "cpu":
        return -1
    if device == "gpu":
        if not visible:
            raise ValueError("device='gpu': no usable GPU: %s" % _engine.gpus()[1])
        return 0
    if device == "auto":
        return 0 if visible else -1
    raise ValueError("device must be 'auto', 'gpu', 'cpu' or a GPU ordinal, not %r" % (device,))


def blur(x, size: Optional[int] = None, sigma: Optional[float] = None, *, size_y: Optional[int] = None,
         sigma_y: Optional[float] = None, border: str = "clamp", border_value: Union[int, Sequence[int]] = 0,
         alpha: str = "premultiplied", linear: bool = False, device: Union[str, int] = "auto",
         stream: Any = None, out: Any = None, threads: int = 0):
    """Gaussian-blurs an image or a batch of images exactly as the gpublur command line does.

    Parameters
    ----------
    x : array
        HxW, HxWxC (C from 1 to 4) or NxHxWxC (a batch, blurred in one launch), uint8, uint16 or
        float32: NumPy, CuPy, PyTorch (CPU or CUDA), or anything with ``__cuda_array_interface__`` or
        ``__dlpack__``. uint8 and uint16 are sRGB-encoded (or linear) integers; float32 is linear light
        as in HDR files. With 2 or 4 channels the last is alpha.
    size, sigma : int, float, optional
        The kernel's size (odd, 1 to 4095) and standard deviation; one is enough: the size from sigma
        by ``2*ceil(3*sigma)+1``, sigma from the size by OpenCV's rule.
    size_y, sigma_y : int, float, optional
        The vertical axis, where it differs from the horizontal.
    border : {'clamp', 'reflect', 'reflect101', 'wrap', 'constant'}
        What lies beyond the edges (as ``--border``).
    border_value : int or sequence of int
        The constant border's value per channel, 0 to 255 (scaled for uint16 and float32).
    alpha : {'premultiplied', 'straight'}
        Colours weighted by their alpha where some pixel is transparent (default), or every channel on
        its own as OpenCV and SciPy do.
    linear : bool
        Blur in linear light (sRGB decoded first and encoded after). Host arrays only.
    device : {'auto', 'gpu', 'cpu'} or int
        For host arrays: a GPU when there is one ('auto'), or the CPU. Device arrays are blurred on
        their own GPU.
    stream : int, cupy.cuda.Stream or torch.cuda.Stream, optional
        Device arrays: the stream to order the blur on; default the framework's current stream (the
        ``stream`` of ``__cuda_array_interface__``, else the legacy default stream).
    out : array, optional
        Where to write the result: the input's shape, dtype and device. May be ``x`` itself.
    threads : int
        CPU threads for a blur on the CPU (0: all).

    Returns
    -------
    array
        The blurred images, the same kind of array as ``x`` (``out`` when given). For device arrays
        the call returns once the work is enqueued.

    Raises
    ------
    TypeError
        ``x`` is not an array, or of an unsupported element type.
    ValueError
        A shape, size, sigma, border or device the command line would refuse, in its words.

    Examples
    --------
    >>> import numpy as np, gpublur
    >>> image = np.zeros((1080, 1920, 3), np.uint8)
    >>> gpublur.blur(image, 7, 1.5, device="cpu").shape
    (1080, 1920, 3)
    """
    b = _blurrer_for(size, sigma, size_y, sigma_y, border, border_value, alpha, linear)
    return _filter(b, x, alpha=alpha, device=device, stream=stream, out=out, threads=threads)


def _filter(b, x, *, alpha: str, device, stream, out, threads: int):
    """Runs the engine's Blurrer `b` (any operation) on `x`: device arrays where they are, host
    arrays on a GPU or the CPU."""
    layout = _layout(x)
    threads = _integer("threads", threads)
    if threads < 0:
        raise ValueError("threads must be 0 (all) or more")
    n, h, w, c = layout.shape4
    try:
        if layout.device < 0:
            return _blur_host(b, x, layout, device, out, threads)
        out_given = out is not None
        result = out if out_given else _empty_like(x, layout)
        out_layout = _layout(result)
        _check_out(out_layout, layout)
        in_row, in_image = _row_pitches(layout, "x")
        out_row, out_image = _row_pitches(out_layout, "out")
        transparent = c in (2, 4) and alpha == "premultiplied" and layout.bits != 32 and _transparent(x, layout)
        _checked(b.device(layout.pointer, in_row, in_image, out_layout.pointer, out_row, out_image, n, h, w, c,
                          layout.bits, layout.device, _stream_handle(stream, layout, x), transparent))
        return result
    finally:
        _log_messages(b)


def _blur_host(b, x, layout: _Layout, device, out, threads: int):
    n, h, w, c = layout.shape4
    source = np.ascontiguousarray(x.numpy() if layout.kind == "torch" else np.asarray(x))
    ordinal = _device_ordinal(device)
    target = np.empty(source.shape, source.dtype)
    addresses = (source.__array_interface__["data"][0], target.__array_interface__["data"][0])
    try:
        _checked(b.host(*addresses, n, h, w, c, layout.bits, ordinal, threads))
    except RuntimeError as e:
        if device != "auto" or ordinal < 0:
            raise
        log.warning("blurring on the CPU: the GPU failed: %s", e)
        _checked(b.host(*addresses, n, h, w, c, layout.bits, -1, threads))
    if out is not None:
        out_layout = _layout(out)
        _check_out(out_layout, layout)
        destination = out.numpy() if out_layout.kind == "torch" else out
        destination[...] = target
        return out
    if layout.kind == "torch":
        import torch
        return torch.from_numpy(target)
    return target
