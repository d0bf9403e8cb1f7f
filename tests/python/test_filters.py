"""gpublur.convolve and gpublur.unsharp on host arrays: the command line's bytes, SciPy's values,
refusals in the front ends' words (GPU arrays: test_gpu_arrays.py)."""
import subprocess

import numpy as np
import pytest

import gpublur
from conftest import photo

scipy_ndimage = pytest.importorskip("scipy.ndimage")

EDGES = [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]]


def halves_away(v, top):
    return np.clip(np.sign(v) * np.floor(np.abs(v) + 0.5), 0, top)


@pytest.mark.parametrize("case", [
    ("edges.png", photo(), ["--matrix", "-1 -1 -1; -1 8 -1; -1 -1 -1"], dict(matrix=EDGES)),
    ("sobel16.png", photo(c=1, dtype=np.uint16, seed=1), ["--matrix", "-1 0 1; -2 0 2; -1 0 1", "--offset", "32768",
                                                          "--border", "reflect101"],
     dict(matrix=np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]), offset=32768, border="reflect101")),
    ("box-rgba.png", photo(c=4, seed=2), ["--matrix", "1 1 1 1 1", "--border", "wrap"],
     dict(matrix=[[1, 1, 1, 1, 1]], border="wrap")),
    ("decimal.png", photo(seed=3), ["--matrix", "0.1 0.2 0.1; 0.2 -0.4 0.2; 0.1 0.2 0.1", "--divisor", "0.5",
                                    "--offset", "0.5", "--border", "constant", "--border-value", "9"],
     dict(matrix=[[0.1, 0.2, 0.1], [0.2, -0.4, 0.2], [0.1, 0.2, 0.1]], divisor=0.5, offset=0.5,
          border="constant", border_value=9)),
    ("straight.png", photo(c=2, seed=4), ["--matrix", "0 -1 0; -1 5 -1; 0 -1 0", "--alpha", "straight"],
     dict(matrix=[[0, -1, 0], [-1, 5, -1], [0, -1, 0]], alpha="straight")),
])
def test_convolve_gives_the_command_lines_bytes(tmp_path, cli, case):
    name, image, args, kwargs = case
    source, written = tmp_path / name, tmp_path / ("out-" + name)
    gpublur.write(source, image)
    subprocess.run([cli, str(source), str(written)] + args, check=True)
    got = gpublur.convolve(image, **kwargs)
    assert got.dtype == image.dtype and got.shape == image.shape
    assert np.array_equal(got, gpublur.read(written).reshape(got.shape))


@pytest.mark.parametrize("case", [
    ("sharp.png", photo(), ["--unsharp", "1.5", "--sigma", "2"], dict(sigma=2.0, amount=1.5)),
    ("sharp16.png", photo(c=4, dtype=np.uint16, seed=5), ["--unsharp", "2,300", "--size", "7", "--border", "reflect"],
     dict(size=7, amount=2.0, threshold=300, border="reflect")),
])
def test_unsharp_gives_the_command_lines_bytes(tmp_path, cli, case):
    name, image, args, kwargs = case
    source, written = tmp_path / name, tmp_path / ("out-" + name)
    gpublur.write(source, image)
    subprocess.run([cli, str(source), str(written)] + args, check=True)
    got = gpublur.unsharp(image, **kwargs)
    assert np.array_equal(got, gpublur.read(written).reshape(got.shape))


@pytest.mark.parametrize("border,mode", [("clamp", "nearest"), ("reflect", "reflect"), ("reflect101", "mirror"),
                                         ("wrap", "wrap"), ("constant", "constant")])
def test_an_integer_matrix_is_scipys_correlate_exactly(border, mode):
    image = photo(c=1)[..., 0]
    w = np.array([[3, -1, 0, 2, -2], [-1, 4, 1, -3, 0], [0, 1, -6, 9, -6]], np.float64)
    expected = halves_away(scipy_ndimage.correlate(image.astype(np.float64), w, mode=mode, cval=0.0) / 7 + 100, 255)
    assert np.array_equal(gpublur.convolve(image, w, divisor=7, offset=100, border=border), expected)


def test_the_unsharp_mask_is_within_one_level_of_float64():
    image = photo(c=3, seed=6)
    r, sigma, amount = 4, 1.5, 1.5
    taps = np.exp(-np.arange(-r, r + 1) ** 2 / (2 * sigma ** 2))
    taps /= taps.sum()
    f = image.astype(np.float64)
    blur = scipy_ndimage.correlate1d(scipy_ndimage.correlate1d(f, taps, axis=0, mode="nearest"), taps, axis=1,
                                     mode="nearest")
    expected = halves_away(f + amount * (f - blur), 255)
    got = gpublur.unsharp(image, 2 * r + 1, sigma, amount)
    assert np.abs(got.astype(np.float64) - expected).max() <= 1


def test_the_edge_detector_on_a_white_square():
    square = np.zeros((9, 9), np.uint8)
    square[3:6, 3:6] = 255
    edges = gpublur.convolve(square, EDGES)
    lit = np.zeros((9, 9), bool)
    lit[3:6, 3:6] = True
    lit[4, 4] = False
    assert np.array_equal(edges == 255, lit) and (edges[~lit] == 0).all()


def test_a_float_image_takes_the_real_matrix():
    image = photo(dtype=np.float32)
    got = gpublur.convolve(image, [[1, 2, 1]], border="reflect101")
    expected = scipy_ndimage.correlate1d(image.astype(np.float64), [0.25, 0.5, 0.25], axis=1, mode="mirror")
    assert np.allclose(got, np.maximum(expected, 0), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("call,error,words", [
    (lambda: gpublur.convolve(photo(), [[1, 2], [3, 4]]), ValueError, "odd"),
    (lambda: gpublur.convolve(photo(), [[1, 2, 1], [2, 4]]), ValueError, "row 2"),
    (lambda: gpublur.convolve(photo(), []), ValueError, "matrix"),
    (lambda: gpublur.convolve(photo(), [[1, float("nan"), 1]]), ValueError, "finite"),
    (lambda: gpublur.convolve(photo(), [[1, "x", 1]]), TypeError, "number"),
    (lambda: gpublur.convolve(photo(), [[1, 2, 1]], divisor=0), ValueError, "must not be 0"),
    (lambda: gpublur.convolve(photo(), [[1e17, 1, 1e17]], divisor=1), ValueError, "bound"),
    (lambda: gpublur.convolve(photo(), [[1]], border="mirror"), ValueError, "clamp"),
    (lambda: gpublur.unsharp(photo(), sigma=2, amount=11), ValueError, "AMOUNT"),
    (lambda: gpublur.unsharp(photo(), sigma=2, threshold=-1), ValueError, "THRESHOLD"),
    (lambda: gpublur.unsharp(photo(), amount=1), ValueError, "size, sigma"),
    (lambda: gpublur.unsharp(photo(), size=4), ValueError, "odd"),
])
def test_refusals(call, error, words):
    with pytest.raises(error, match=words):
        call()
