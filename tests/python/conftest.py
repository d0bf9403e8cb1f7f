"""Shared helpers of the Python package's tests (pytest tests/python)."""
import os
import shutil

import numpy as np
import pytest

import gpublur


def photo(h=61, w=83, c=3, dtype=np.uint8, seed=0):
    """A photo-like image: smooth shading, hard edges and noise, so every tap matters."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    base = 0.5 + 0.35 * np.sin(x / 7.0 + seed) * np.cos(y / 5.0) + 0.15 * ((x // 9 + y // 11) % 2)
    image = np.clip(base[..., None] + rng.normal(0, 0.08, (h, w, c)), 0, 1)
    if dtype == np.float32:
        return (image * 4).astype(np.float32)
    top = np.iinfo(dtype).max
    return np.round(image * top).astype(dtype)


@pytest.fixture
def cli():
    """The gpublur command `pip install .` put beside the interpreter (or GPUBLUR_CLI)."""
    path = os.environ.get("GPUBLUR_CLI") or shutil.which("gpublur")
    if not path:
        pytest.skip("the gpublur command is not installed")
    return path


requires_gpu = pytest.mark.skipif(not gpublur.gpus(), reason="no usable GPU")
