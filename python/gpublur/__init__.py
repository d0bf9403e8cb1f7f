"""gpublur: the gpublur command line's exact Gaussian blur on NumPy, CuPy and PyTorch arrays.

The same C++ library as the command line, so the same bytes: ``gpublur.blur(x, 7, 1.5)`` on an
image equals what ``gpublur in.png out.png --size 7 --sigma 1.5`` writes for it, on the GPU or the
CPU. GPU arrays (CuPy, PyTorch CUDA tensors, anything with ``__cuda_array_interface__`` or
``__dlpack__``) are blurred where they are, on the caller's stream. Kernels are compiled once and
kept in the command line's kernel cache; compiles and cache hits are logged to the ``gpublur``
logger at INFO level.

Beyond the Gaussian: :func:`convolve` (a convolution matrix, as ``--matrix``) and :func:`unsharp`
(an unsharp mask, as ``--unsharp``), on the CPU until the GPU has their kernels.

Functions: :func:`blur`, :func:`convolve`, :func:`unsharp`, :func:`read`, :func:`write`,
:func:`blur_files`, :func:`gpus`.
"""
from __future__ import annotations

from . import _engine
from ._blur import blur, gpus
from ._common import log
from ._files import blur_files, read, write
from ._filters import convolve, unsharp

__all__ = ["blur", "convolve", "unsharp", "read", "write", "blur_files", "gpus", "__version__"]
__version__ = _engine.version()

# The functions live in the package's modules by concept (_blur, _files, ...); they are gpublur's,
# so help(), repr and pickling name them as such.
for _function in (blur, convolve, unsharp, read, write, blur_files, gpus):
    _function.__module__ = __name__
del _function
