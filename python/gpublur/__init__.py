"""gpublur: the gpublur command line's exact Gaussian blur on NumPy, CuPy and PyTorch arrays.

The same C++ library as the command line, so the same bytes: ``gpublur.blur(x, 7, 1.5)`` on an
image equals what ``gpublur in.png out.png --size 7 --sigma 1.5`` writes for it, on the GPU or the
CPU. GPU arrays (CuPy, PyTorch CUDA tensors, anything with ``__cuda_array_interface__`` or
``__dlpack__``) are blurred where they are, on the caller's stream. Kernels are compiled once and
kept in the command line's kernel cache; compiles and cache hits are logged to the ``gpublur``
logger at INFO level.

Functions: :func:`blur`, :func:`read`, :func:`write`, :func:`blur_files`, :func:`gpus`.
"""
from __future__ import annotations

import json
import logging
import numbers
import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _engine

__all__ = ["blur", "read", "write", "blur_files", "gpus", "__version__"]
__version__ = _engine.version()

log = logging.getLogger("gpublur")

# Sample types and the bits the engine calls them by.
_BITS = {np.dtype(np.uint8): 8, np.dtype(np.uint16): 16, np.dtype(np.float32): 32}
_MAX = {8: 255, 16: 65535}
_DLPACK_CUDA = 2  # DLDeviceType kDLCUDA


_ERRORS = {"ValueError": ValueError, "OSError": OSError, "MemoryError": MemoryError,
           "RuntimeError": RuntimeError}


def _checked(outcome):
    """The engine's (error kind, message, result): the result, or the error raised."""
    kind, message, result = outcome
    if kind:
        raise _ERRORS[kind](message)
    return result


def gpus() -> List[Tuple[int, str, str]]:
    """The GPUs gpublur can use, as (ordinal, name, architecture) tuples; empty without one
    (CUDA_VISIBLE_DEVICES applies)."""
    return list(_engine.gpus()[0])


# ---- parameters ------------------------------------------------------------------------------


def _integer(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an integer, not %s" % (name, type(value).__name__))
    return int(value)


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a number, not %s" % (name, type(value).__name__))
    return float(value)


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


# ---- arrays ----------------------------------------------------------------------------------


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
    layout = _layout(x)
    b = _blurrer_for(size, sigma, size_y, sigma_y, border, border_value, alpha, linear)
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


# ---- files -----------------------------------------------------------------------------------


def read(path: Union[str, os.PathLike], *, max_pixels: int = 1 << 27,
         max_bytes: int = 1 << 30) -> np.ndarray:
    """Reads an image file (any format the command line reads, by its content) into an HxWxC NumPy
    array: uint8, uint16 for 16-bit files, float32 for HDR. Images of more pixels or decoded bytes
    than the limits (the command line's --max-pixels and --max-bytes; 0: none) are refused before
    they are decoded. Raises OSError naming the file and why."""
    return _checked(_engine.read(os.fspath(path), _integer("max_pixels", max_pixels),
                                 _integer("max_bytes", max_bytes)))


def write(path: Union[str, os.PathLike], image, *, png_level: Optional[int] = None,
          jpeg_quality: Optional[int] = None, webp_quality: Optional[int] = None,
          webp_lossless: bool = False) -> None:
    """Writes an HxW or HxWxC uint8, uint16 or float32 array to `path` atomically, in the format its
    extension names (png, jpg, webp, tif, bmp, tga, pnm, hdr), with the command line's encoders."""
    layout = _layout(image)
    if layout.device >= 0:
        raise ValueError("write takes host arrays: copy it to the host first (e.g. x.get(), x.cpu())")
    n, h, w, c = layout.shape4
    if n != 1:
        raise ValueError("write takes one image, not a batch of %d" % n)
    array = np.ascontiguousarray(image.numpy() if layout.kind == "torch" else image)
    args: List[str] = []
    for flag, value in (("--png-level", png_level), ("--jpeg-quality", jpeg_quality),
                        ("--webp-quality", webp_quality)):
        if value is not None:
            args += [flag, str(_integer(flag[2:], value))]
    if webp_lossless:
        args.append("--webp-lossless")
    _checked(_engine.write(os.fspath(path), array.__array_interface__["data"][0], h, w, c, layout.bits,
                           ["--size", "1"] + args))


def blur_files(paths: Union[str, os.PathLike, Iterable[Union[str, os.PathLike]]], out_dir: Union[str, os.PathLike],
               size: Optional[int] = None, sigma: Optional[float] = None, *, size_y: Optional[int] = None,
               sigma_y: Optional[float] = None, border: str = "clamp", border_value: Union[int, Sequence[int]] = 0,
               alpha: str = "premultiplied", linear: bool = False, recursive: bool = False,
               format: Optional[str] = None, skip_existing: bool = False, device: str = "auto",
               threads: int = 0, progress: Optional[Callable[[Dict[str, Any]], None]] = None,
               options: Sequence[str] = ()) -> Dict[str, Any]:
    """Blurs files and directories' images into `out_dir` with the command line's batch pipeline
    (decoding and encoding on every core, the blur on the GPUs), as ``gpublur PATHS... -o OUT_DIR``.

    `progress`, if given, is called with each file's record as it completes (a dict: input, output,
    status "done", "failed" or "skipped", error, bytes, stage times). `options` passes further command
    line options (e.g. ``["--jpeg-quality", "90"]``).

    Returns the run's summary (files, done, failed, skipped, seconds, images_per_second, ...) with
    ``failures``: [(input, error), ...]. One bad file does not stop the rest. Raises ValueError for a
    request the command line refuses, KeyboardInterrupt if the run was stopped by a signal.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    words = [os.fspath(p) for p in paths] + ["-o", os.fspath(out_dir)]
    words += list(_blur_args(size, sigma, size_y, sigma_y, border, border_value, alpha, linear))
    if recursive:
        words.append("--recursive")
    if format is not None:
        words += ["--format", str(format)]
    if skip_existing:
        words.append("--skip-existing")
    words += ["--device", str(device), "--threads", str(_integer("threads", threads))]
    words += [str(o) for o in options]
    summary: Dict[str, Any] = {}
    failures: List[Tuple[str, str]] = []
    raised: List[BaseException] = []  # from `progress`: kept, not thrown through the C++ pipeline

    def on_line(line: str) -> None:
        record = json.loads(line)
        if "summary" in record:
            summary.update(record["summary"])
            return
        if record.get("status") == "failed":
            failures.append((record.get("input", ""), record.get("error", "")))
        if progress is not None and not raised:
            try:
                progress(record)
            except BaseException as e:  # noqa: B902 - re-raised after the run
                raised.append(e)

    code, said = _checked(_engine.run_batch(words, on_line))
    if raised:
        raise raised[0]
    if code == 2 and not summary:
        raise ValueError(said.strip().replace("gpublur: error: ", ""))
    if code >= 128:
        raise KeyboardInterrupt("gpublur: stopped by signal %d" % (code - 128))
    for line in said.splitlines():
        if line.strip():
            log.warning("%s", line)
    summary["failures"] = failures
    return summary
