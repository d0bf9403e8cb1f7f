"""gpublur.blur, convolve and unsharp on arrays already on a GPU (CuPy, PyTorch): the host path's
bytes, where they are, on the caller's stream. Skipped without a GPU and the framework."""
import numpy as np
import pytest

import gpublur
from conftest import photo, requires_gpu

pytestmark = requires_gpu

CASES = [  # (shape, dtype, kwargs): aligned rows, rows the kernels cannot address, alpha, 16-bit, float
    ((64, 96, 3), np.uint8, dict(size=7, sigma=1.5)),
    ((37, 45, 3), np.uint8, dict(size=31)),
    ((50, 64, 4), np.uint8, dict(sigma=2.0, border="reflect101")),
    ((40, 48, 1), np.uint16, dict(size=9, border="constant", border_value=7)),
    ((33, 40, 3), np.float32, dict(size=5, border="wrap")),
    ((6, 36, 64, 3), np.uint8, dict(size=7)),  # a batch
]


def _host_image(shape, dtype, seed=1):
    if len(shape) == 4:
        return np.stack([photo(*shape[1:], dtype=dtype, seed=seed + i) for i in range(shape[0])])
    return photo(*shape, dtype=dtype, seed=seed)


@pytest.mark.parametrize("shape,dtype,kwargs", CASES)
def test_cupy_arrays_same_bytes_as_numpy(shape, dtype, kwargs):
    cp = pytest.importorskip("cupy")
    image = _host_image(shape, dtype)
    got = gpublur.blur(cp.asarray(image), **kwargs)
    assert isinstance(got, cp.ndarray)
    assert np.array_equal(cp.asnumpy(got), gpublur.blur(image, device="cpu", **kwargs))


@pytest.mark.parametrize("shape,dtype,kwargs", [c for c in CASES if c[1] != np.uint16])
def test_torch_tensors_same_bytes_as_numpy(shape, dtype, kwargs):
    torch = pytest.importorskip("torch")
    image = _host_image(shape, dtype)
    got = gpublur.blur(torch.from_numpy(image).cuda(), **kwargs)
    assert isinstance(got, torch.Tensor) and got.is_cuda
    assert np.array_equal(got.cpu().numpy(), gpublur.blur(image, device="cpu", **kwargs))


FILTER_CASES = [  # (shape, dtype, function, kwargs): dense, rank one, unsharp; alpha kept
    ((64, 96, 3), np.uint8, "convolve", dict(matrix=[[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]])),
    ((37, 45, 4), np.uint8, "convolve", dict(matrix=[[1, 2, 1], [2, 4, 2], [1, 2, 1]], border="wrap")),
    ((40, 48, 1), np.uint16, "convolve", dict(matrix=[[0, -1, 0], [-1, 5, -1], [0, -1, 0]], offset=3)),
    ((33, 40, 3), np.float32, "convolve", dict(matrix=[[0.1, 0.2, 0.1], [0.2, -0.3, 0.2], [0.1, 0.2, 0.1]])),
    ((50, 64, 4), np.uint8, "unsharp", dict(size=7, sigma=1.5, amount=1.5, threshold=2)),
    ((6, 36, 64, 3), np.uint8, "unsharp", dict(size=9, sigma=2.0, amount=0.8)),  # a batch
]


@pytest.mark.parametrize("shape,dtype,function,kwargs", FILTER_CASES)
def test_filters_on_cupy_arrays_same_bytes_as_numpy(shape, dtype, function, kwargs):
    cp = pytest.importorskip("cupy")
    image = _host_image(shape, dtype)
    run = getattr(gpublur, function)
    got = run(cp.asarray(image), **kwargs)
    assert isinstance(got, cp.ndarray)
    assert np.array_equal(cp.asnumpy(got), run(image, device="cpu", **kwargs))


def test_views_in_place_and_refusals():
    cp = pytest.importorskip("cupy")
    wide = _host_image((40, 128, 3), np.uint8)
    device = cp.asarray(wide)
    view = device[:, :60]  # rows further apart than their pixels: blurred where it is
    assert np.array_equal(cp.asnumpy(gpublur.blur(view, 7)), gpublur.blur(wide[:, :60].copy(), 7, device="cpu"))
    in_place = device.copy()
    gpublur.blur(in_place, 7, out=in_place)
    assert np.array_equal(cp.asnumpy(in_place), gpublur.blur(wide, 7, device="cpu"))
    with pytest.raises(ValueError, match="not packed along its rows"):
        gpublur.blur(device[:, ::2], 7)
    with pytest.raises(ValueError, match="linear=True"):
        gpublur.blur(device, 7, linear=True)
    with pytest.raises(ValueError, match="out must be on the input's device"):
        gpublur.blur(device, 7, out=np.empty_like(wide))
    assert np.array_equal(cp.asnumpy(device), wide)  # the input is untouched


def test_ordered_on_the_callers_stream():
    cp = pytest.importorskip("cupy")
    image = _host_image((1080, 1920, 3), np.uint8)
    expected = gpublur.blur(image, 31, device="cpu")
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        x = cp.asarray(image)
        out = cp.empty_like(x)
        for _ in range(3):  # queued work on the stream ahead of the check
            gpublur.blur(x, 31, out=out)
        checksum = out.astype(cp.int64).sum()  # a consumer on the same stream, no synchronisation
    assert int(checksum) == int(expected.astype(np.int64).sum())
    torch = pytest.importorskip("torch")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.from_numpy(image).cuda()
        blurred = gpublur.blur(t, 31)
        total = blurred.to(torch.int64).sum()
    assert int(total) == int(expected.astype(np.int64).sum())


def test_numpy_on_the_gpu_equals_the_cpu():
    image = _host_image((5, 40, 52, 4), np.uint8)
    assert np.array_equal(gpublur.blur(image, 9, device="gpu"), gpublur.blur(image, 9, device="cpu"))
