"""gpublur.blur on host arrays: the command line's bytes, SciPy's values, batches, refusals."""
import subprocess

import numpy as np
import pytest

import gpublur
from conftest import photo, requires_gpu

scipy_ndimage = pytest.importorskip("scipy.ndimage")

DEVICES = ["cpu", pytest.param("gpu", marks=requires_gpu)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", [
    ("rgb.png", photo(), ["--size", "7", "--sigma", "1.5"], dict(size=7, sigma=1.5)),
    ("rgba.png", photo(c=4, seed=2), ["--sigma", "2", "--border", "reflect"], dict(sigma=2.0, border="reflect")),
    ("gray16.png", photo(c=1, dtype=np.uint16, seed=3), ["--size", "9", "--border", "wrap"], dict(size=9, border="wrap")),
    ("linear.png", photo(seed=4), ["--size", "5", "--linear"], dict(size=5, linear=True)),
    ("const.png", photo(seed=5), ["--size", "11", "--size-y", "3", "--border", "constant", "--border-value", "10,200,30"],
     dict(size=11, size_y=3, border="constant", border_value=(10, 200, 30))),
])
def test_same_bytes_as_the_command_line(tmp_path, cli, device, case):
    name, image, args, kwargs = case
    source, written = tmp_path / name, tmp_path / ("out-" + name)
    gpublur.write(source, image)
    subprocess.run([cli, str(source), str(written), "--device", "cpu"] + args, check=True)
    expected = gpublur.read(written)
    got = gpublur.blur(image, device=device, **kwargs)
    assert got.dtype == image.dtype and got.shape == image.shape
    assert np.array_equal(got, expected.reshape(got.shape))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("border,mode", [("clamp", "nearest"), ("reflect", "reflect"),
                                         ("reflect101", "mirror"), ("wrap", "grid-wrap"),
                                         ("constant", "constant")])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_within_one_step_of_scipy_for_every_border(device, border, mode, dtype):
    image = photo(47, 53, 3, dtype, seed=7)
    got = gpublur.blur(image, 7, 1.5, border=border, border_value=0, alpha="straight", device=device)
    reference = scipy_ndimage.gaussian_filter(image.astype(np.float64), sigma=(1.5, 1.5, 0), truncate=2.0,
                                              mode=mode, cval=0.0)
    assert np.abs(got.astype(np.int64) - np.round(reference).astype(np.int64)).max() <= 1


@pytest.mark.parametrize("device", DEVICES)
def test_float_images_close_to_scipy(device):
    image = photo(40, 50, 3, np.float32, seed=8)
    got = gpublur.blur(image, 9, 2.0, device=device)
    reference = scipy_ndimage.gaussian_filter(image.astype(np.float64), sigma=(2.0, 2.0, 0), truncate=2.0,
                                              mode="nearest")
    assert np.allclose(got, reference, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_a_batch_equals_its_images_one_at_a_time(device):
    batch = np.stack([photo(33, 45, 4, seed=s) for s in range(5)])
    batch[2, ..., 3] = 255  # an opaque image among transparent ones: its own kernel
    together = gpublur.blur(batch, 5, 1.2, device=device)
    for i in range(len(batch)):
        assert np.array_equal(together[i], gpublur.blur(batch[i], 5, 1.2, device=device))


def test_shapes_views_and_out():
    image = photo(30, 40, 1)
    two_d = gpublur.blur(image[..., 0], 5, device="cpu")
    assert two_d.shape == (30, 40)
    assert np.array_equal(two_d, gpublur.blur(image, 5, device="cpu")[..., 0])
    wide = photo(30, 80, 3)
    view = wide[:, ::2]  # strided: blurred as a copy, the same bytes
    assert np.array_equal(gpublur.blur(view, 5, device="cpu"), gpublur.blur(view.copy(), 5, device="cpu"))
    out = np.empty_like(wide)
    assert gpublur.blur(wide, 5, device="cpu", out=out) is out
    assert np.array_equal(out, gpublur.blur(wide, 5, device="cpu"))
    in_place = wide.copy()
    gpublur.blur(in_place, 5, device="cpu", out=in_place)
    assert np.array_equal(in_place, out)


def test_torch_cpu_tensors_give_tensors():
    torch = pytest.importorskip("torch")
    image = photo()
    got = gpublur.blur(torch.from_numpy(image), 7, device="cpu")
    assert isinstance(got, torch.Tensor)
    assert np.array_equal(got.numpy(), gpublur.blur(image, 7, device="cpu"))


@pytest.mark.parametrize("call,error,words", [
    (lambda x: gpublur.blur(x, 4), ValueError, "--size must be an odd number"),
    (lambda x: gpublur.blur(x, sigma=-1.0), ValueError, "--sigma must be a finite number > 0"),
    (lambda x: gpublur.blur(x), ValueError, "give size, sigma or both"),
    (lambda x: gpublur.blur(x, 3.5), TypeError, "size must be an integer"),
    (lambda x: gpublur.blur(x, 3, border="mirror"), ValueError, "choose one of clamp"),
    (lambda x: gpublur.blur(x, 3, alpha="pre"), ValueError, "premultiplied"),
    (lambda x: gpublur.blur(x, 3, border="constant", border_value=300), ValueError, "0..255"),
    (lambda x: gpublur.blur(x.astype(np.int32), 3), TypeError, "use uint8, uint16 or float32"),
    (lambda x: gpublur.blur(x.astype(np.float64), 3), TypeError, "use uint8, uint16 or float32"),
    (lambda x: gpublur.blur(np.zeros((10, 10, 5), np.uint8), 3), ValueError, "C from 1 to 4"),
    (lambda x: gpublur.blur(np.zeros((0, 10, 3), np.uint8), 3), ValueError, "empty array"),
    (lambda x: gpublur.blur(np.zeros(10, np.uint8), 3), ValueError, "expected HxW"),
    (lambda x: gpublur.blur([[1, 2], [3, 4]], 3), TypeError, "expected an array"),
    (lambda x: gpublur.blur(x, 3, device="tpu"), ValueError, "device must be"),
    (lambda x: gpublur.blur(x, 3, out=np.empty((2, 2, 3), np.uint8)), ValueError, "out must have"),
    (lambda x: gpublur.blur(photo(dtype=np.float32), 3, linear=True, device="cpu"), ValueError,
     "linear light already"),
])
def test_refusals_in_the_command_lines_words(call, error, words):
    image = photo()
    before = image.copy()
    with pytest.raises(error, match=words):
        call(image)
    assert np.array_equal(image, before)  # never modified on error


def test_cached_calls_are_logged_once(caplog):
    import logging
    caplog.set_level(logging.INFO, logger="gpublur")
    gpublur.blur(photo(), 13, 2.5, device="cpu")
    assert all(r.name == "gpublur" for r in caplog.records)
