"""Arrays taken apart: NumPy, CuPy, PyTorch and anything with __cuda_array_interface__ or
__dlpack__, as an address, N x H x W x C, strides in bytes, sample bits and a device; and the
framework's stream and empty arrays for a result."""
from __future__ import annotations

import numbers
from typing import Any, Dict, Tuple

import numpy as np

from . import _engine
from ._common import _checked

# Sample types and the bits the engine calls them by.
_BITS = {np.dtype(np.uint8): 8, np.dtype(np.uint16): 16, np.dtype(np.float32): 32}
_MAX = {8: 255, 16: 65535}
_DLPACK_CUDA = 2  # DLDeviceType kDLCUDA


class _Layout:
    """An array taken apart: address, N x H x W x C, strides in bytes, bits, device (-1: host)."""

    def __init__(self, pointer, shape, strides, dtype, device, kind):
        self.pointer, self.dtype, self.device, self.kind = pointer, np.dtype(dtype), device, kind
        self.shape4, self.strides4 = _four_dimensions(tuple(shape), tuple(strides), self.dtype)
        self.bits = _BITS[self.dtype]


def _four_dimensions(shape, strides, dtype) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    item = dtype.itemsize
    if len(shape) == 2:
        shape, strides = (1,) + shape + (1,), (0,) + strides + (item,)
    elif len(shape) == 3:
        if not 1 <= shape[2] <= 4:
            raise ValueError("an HxWxC image needs C from 1 to 4 channels (got shape %s); a batch of "
                             "gray images is NxHxWx1" % (shape,))
        shape, strides = (1,) + shape, (0,) + strides
    elif len(shape) != 4:
        raise ValueError("expected HxW, HxWxC or NxHxWxC, got %d dimensions" % len(shape))
    n, h, w, c = shape
    if not 1 <= c <= 4:
        raise ValueError("images need 1 to 4 channels (got %d)" % c)
    if n < 1 or h < 1 or w < 1:
        raise ValueError("an empty array (shape %s) has no image to blur" % (shape,))
    return shape, strides


def _check_dtype(dtype) -> np.dtype:
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError("unsupported element type %r: use uint8, uint16 or float32" % (dtype,)) from None
    if dtype not in _BITS:
        raise TypeError("unsupported element type %s: use uint8, uint16 or float32" % dtype)
    return dtype


_TORCH_DTYPES: Dict[Any, np.dtype] = {}


def _torch_dtype(t) -> np.dtype:
    if not _TORCH_DTYPES:
        import torch
        _TORCH_DTYPES.update({torch.uint8: np.dtype(np.uint8), torch.float32: np.dtype(np.float32)})
        if hasattr(torch, "uint16"):
            _TORCH_DTYPES[torch.uint16] = np.dtype(np.uint16)
    dtype = _TORCH_DTYPES.get(t.dtype)
    if dtype is None:
        raise TypeError("unsupported element type %s: use uint8, uint16 or float32" % t.dtype)
    return dtype


def _typestr_dtype(typestr: str) -> np.dtype:
    return _check_dtype(np.dtype(typestr))


def _module_of(x) -> str:
    return type(x).__module__.split(".")[0]


def _layout(x) -> _Layout:
    """Where x's samples are; raises TypeError for what is not an array of a supported type."""
    kind = _module_of(x)
    if isinstance(x, np.ndarray):
        return _Layout(x.__array_interface__["data"][0], x.shape, x.strides, _check_dtype(x.dtype), -1, "numpy")
    if kind == "torch":
        dtype = _torch_dtype(x)
        strides = tuple(s * dtype.itemsize for s in x.stride())
        if x.is_cuda:
            return _Layout(x.data_ptr(), tuple(x.shape), strides, dtype, x.device.index, "torch")
        if x.device.type != "cpu":
            raise TypeError("a tensor on %s: gpublur blurs CPU and CUDA tensors" % x.device)
        return _Layout(x.data_ptr(), tuple(x.shape), strides, dtype, -1, "torch")
    if kind == "cupy":
        dtype = _check_dtype(x.dtype)
        return _Layout(x.data.ptr, x.shape, x.strides, dtype, x.device.id, "cupy")
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        dtype = _typestr_dtype(cai["typestr"])
        shape = tuple(cai["shape"])
        strides = cai.get("strides") or _contiguous_strides(shape, dtype.itemsize)
        pointer = cai["data"][0]
        return _Layout(pointer, shape, tuple(strides), dtype, _checked(_engine.device_of(pointer)) if pointer else 0,
                       kind)
    if hasattr(x, "__dlpack__"):
        pointer, shape, strides, code, bits, device_type, device_id = _engine.dlpack_view(x)
        dtype = _check_dtype({(1, 8): np.uint8, (1, 16): np.uint16, (2, 32): np.float32}.get((code, bits), "V%d" % (bits // 8)))
        return _Layout(pointer, shape, strides, dtype, device_id if device_type == _DLPACK_CUDA else -1, kind)
    raise TypeError("expected an array (NumPy, CuPy, PyTorch, or anything with __cuda_array_interface__ "
                    "or __dlpack__), got %s" % type(x).__name__)


def _contiguous_strides(shape, item) -> Tuple[int, ...]:
    strides, step = [], item
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def _stream_handle(stream, layout: _Layout, x) -> int:
    """The CUstream to order the blur on: `stream` as given, else the framework's current one."""
    if stream is not None:
        for attribute in ("ptr", "cuda_stream", "handle"):
            value = getattr(stream, attribute, None)
            if isinstance(value, numbers.Integral):
                return int(value)
        if isinstance(stream, numbers.Integral) and not isinstance(stream, bool):
            return int(stream)
        raise TypeError("stream must be an integer CUstream or a CuPy or PyTorch stream")
    if layout.kind == "torch":
        import torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # the same, without a Stream object
        return raw(layout.device) if raw else torch.cuda.current_stream(x.device).cuda_stream
    if layout.kind == "cupy":
        import cupy
        if cupy.cuda.runtime.getDevice() == layout.device:
            return cupy.cuda.get_current_stream().ptr
        with cupy.cuda.Device(layout.device):
            return cupy.cuda.get_current_stream().ptr
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None and cai.get("stream"):
        return int(cai["stream"])
    return 0


def _empty_like(x, layout: _Layout):
    if layout.kind == "torch":
        import torch
        return torch.empty(tuple(x.shape), dtype=x.dtype, device=x.device)
    if layout.kind == "cupy":
        import cupy
        with cupy.cuda.Device(layout.device):
            return cupy.empty(x.shape, dtype=x.dtype)
    if layout.kind == "numba":
        from numba import cuda
        return cuda.device_array(tuple(x.shape), dtype=layout.dtype)
    raise TypeError("gpublur cannot make a %s array: pass out= (an array of the same shape and dtype on "
                    "the same GPU)" % type(x).__name__)


def _transparent(x, layout: _Layout) -> bool:
    """Whether some alpha of a device array is below its maximum (then, as on the command line, the
    blur is premultiplied). Arrays of frameworks gpublur does not know count as transparent."""
    if layout.kind not in ("torch", "cupy"):
        return True
    top = _MAX[layout.bits]
    alpha = x[..., -1]
    return bool((alpha != top).any())


def _check_out(out_layout: _Layout, layout: _Layout) -> None:
    if out_layout.shape4 != layout.shape4 or out_layout.dtype != layout.dtype:
        raise ValueError("out must have the input's shape and dtype (%s %s), not %s %s" % (
            layout.shape4, layout.dtype, out_layout.shape4, out_layout.dtype))
    if (out_layout.device < 0) != (layout.device < 0) or out_layout.device != layout.device:
        raise ValueError("out must be on the input's device")


def _row_pitches(layout: _Layout, name: str) -> Tuple[int, int]:
    """(row pitch, image pitch) of a device array whose pixels are contiguous within rows."""
    n, h, w, c = layout.shape4
    sn, sh, sw, sc = layout.strides4
    item = layout.dtype.itemsize
    if (c > 1 and sc != item) or (w > 1 and sw != c * item) or (h > 1 and sh < w * c * item) or sh < 0:
        raise ValueError("%s is a strided view whose pixels are not packed along its rows (strides %s): "
                         "pass a contiguous copy (x.copy(), or .contiguous() in PyTorch)" % (name, layout.strides4))
    row = sh if h > 1 else w * c * item
    image = sn if n > 1 else row * h
    if n > 1 and image < row * h:
        raise ValueError("%s: its images overlap (strides %s)" % (name, layout.strides4))
    return row, image
