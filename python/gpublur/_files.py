"""Files: read() and write() with the command line's codecs, and blur_files(), its batch pipeline."""
from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _engine
from ._arrays import _layout
from ._common import _checked, _integer, log
from ._parameters import _blur_args


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
          webp_lossless: bool = False, tiff_compression: Optional[str] = None) -> None:
    """Writes an HxW or HxWxC uint8, uint16 or float32 array to `path` atomically, in the format its
    extension names (png, jpg, webp, tif, bmp, tga, pnm, hdr), with the command line's encoders.
    `tiff_compression`: "deflate" (the default for an array) or "none"."""
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
    if tiff_compression is not None:
        args += ["--tiff-compression", str(tiff_compression)]
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
