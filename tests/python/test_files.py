"""gpublur.read, gpublur.write and gpublur.blur_files."""
import numpy as np
import pytest

import gpublur
from conftest import photo


@pytest.mark.parametrize("name,image", [("a.png", photo()), ("b.png", photo(c=4, dtype=np.uint16)),
                                        ("c.tif", photo(c=2, dtype=np.uint16)), ("d.webp", photo(c=4)),
                                        ("e.bmp", photo()), ("f.hdr", photo(dtype=np.float32))])
def test_write_then_read(tmp_path, name, image):
    path = tmp_path / name
    gpublur.write(path, image, webp_lossless=True)
    back = gpublur.read(path)
    assert back.dtype == image.dtype and back.shape == image.shape
    if name.endswith(".hdr"):  # RGBE: 8 bits of mantissa, shared by a pixel's channels
        assert (np.abs(back - image) <= image.max(axis=-1, keepdims=True) / 128).all()
    else:
        assert np.array_equal(back, image)


def test_jpeg_quality(tmp_path):
    gpublur.write(tmp_path / "low.jpg", photo(), jpeg_quality=20)
    gpublur.write(tmp_path / "high.jpg", photo(), jpeg_quality=98)
    assert (tmp_path / "low.jpg").stat().st_size < (tmp_path / "high.jpg").stat().st_size


def test_tiff_compression(tmp_path):
    image = photo(64, 48, c=3)
    gpublur.write(tmp_path / "none.tif", image, tiff_compression="none")
    gpublur.write(tmp_path / "deflate.tif", image)
    for name in ("none.tif", "deflate.tif"):
        assert np.array_equal(gpublur.read(tmp_path / name), image)
    # Stored as it is: the samples' bytes and a header; Deflated: fewer.
    assert (tmp_path / "none.tif").stat().st_size >= image.size
    assert (tmp_path / "deflate.tif").stat().st_size < image.size
    with pytest.raises(ValueError, match="--tiff-compression"):
        gpublur.write(tmp_path / "bad.tif", image, tiff_compression="lzw")


def test_read_errors_name_the_file(tmp_path):
    with pytest.raises(OSError, match="missing.png"):
        gpublur.read(tmp_path / "missing.png")
    (tmp_path / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\nnonsense")
    with pytest.raises(OSError, match="PNG"):
        gpublur.read(tmp_path / "bad.png")
    with pytest.raises(OSError, match="limit"):
        gpublur.write(tmp_path / "big.png", photo(100, 100))
        gpublur.read(tmp_path / "big.png", max_pixels=100)
    with pytest.raises(OSError, match="--max-bytes 29999"):
        gpublur.read(tmp_path / "big.png", max_bytes=29999)


def test_blur_files_with_progress_and_a_bad_file(tmp_path):
    source = tmp_path / "in"
    (source / "sub").mkdir(parents=True)
    for i in range(6):
        gpublur.write(source / ("sub" if i % 2 else "") / ("img%d.png" % i), photo(seed=i))
    (source / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nbroken")
    seen = []
    summary = gpublur.blur_files([source], tmp_path / "out", 7, 1.5, recursive=True, device="cpu",
                                 progress=seen.append)
    assert summary["done"] == 6 and summary["failed"] == 1
    assert len(seen) == 7 and {r["status"] for r in seen} == {"done", "failed"}
    assert summary["failures"][0][0].endswith("broken.png")
    for i in range(6):
        out = gpublur.read(tmp_path / "out" / ("sub" if i % 2 else "") / ("img%d.png" % i))
        assert np.array_equal(out, gpublur.blur(photo(seed=i), 7, 1.5, device="cpu"))
    again = gpublur.blur_files([source], tmp_path / "out", 7, 1.5, recursive=True, device="cpu",
                               skip_existing=True)
    assert again["skipped"] == 6


def test_blur_files_refusals(tmp_path):
    with pytest.raises(ValueError, match="--size must be an odd number"):
        gpublur.blur_files([tmp_path], tmp_path / "out", 4)
    with pytest.raises(ValueError):
        gpublur.blur_files([tmp_path], tmp_path / "out", 3, format="gif")


@pytest.mark.skipif(bool(gpublur.gpus()), reason="needs a host without a GPU, where --codec gpu "
                                                  "is refused once, before any file")
def test_blur_files_keeps_its_batch_in_this_process(tmp_path, monkeypatch):
    # The command line splits a batch nvJPEG may decode on two or more GPUs into a process per
    # GPU; blur_files must not fork the interpreter. In one process the refusal comes once, up
    # front; forked, each file would fail on its own.
    (tmp_path / "in").mkdir()
    for i in range(4):
        gpublur.write(tmp_path / "in" / ("img%d.jpg" % i), photo(seed=i))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    with pytest.raises(RuntimeError, match="--codec gpu: no GPU"):
        gpublur.blur_files([tmp_path / "in"], tmp_path / "out", 7, 1.5, options=["--codec", "gpu"])
