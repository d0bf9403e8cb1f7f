"""compare_peers.py GPUBLUR SAMPLES_DIR — gpublur's CPU output against SciPy's gaussian_filter and
OpenCV's GaussianBlur on the samples and on random images, border names mapped: every byte within
1 LSB of their floating-point results. The peers blur each channel on its own, so gpublur runs
with --alpha straight for them; its premultiplied blur is held to SciPy's blur(c*a) / blur(a)
(colour where the blurred alpha is at least half a unit, alpha everywhere). Its PNG files are no
larger than OpenCV's default output of the same pixels on an illustration (flat colours, outlines,
text). Exits 77 (CTest: skipped) without numpy, scipy and cv2 (Debian: python3-scipy,
python3-opencv)."""
import os, subprocess, sys, tempfile

from peer_names import CV_BORDER, SCIPY_MODE, cv2, ndimage, np  # exits 77 without the peers

GPUBLUR, SAMPLES = sys.argv[1], sys.argv[2]
failures = passes = 0


def gpublur(src, dst, size, sigma, border, alpha="straight"):  # 16-bit inputs stay 16-bit (PNG)
    subprocess.run([GPUBLUR, src, dst, "--size", str(size), "--sigma", str(sigma), "--border", border,
                    "--border-value", "0", "--device", "cpu", "--alpha", alpha], check=True,
                   capture_output=True)
    return cv2.imread(dst, cv2.IMREAD_UNCHANGED)


def check(name, ours, reference, where=None):
    global failures, passes
    difference = np.abs(ours.astype(np.float64) - reference)
    worst = float(np.max(difference[where] if where is not None else difference, initial=0.0))
    if worst <= 1.0 + 1e-6:
        passes += 1
    else:
        failures += 1
        print(f"FAIL {name}: worst difference {worst:.3f} LSB")


def illustration(seed):
    """Flat colours, anti-aliased outlines and a caption: where PNG's filter choice
    matters (Paeth on every row made files 4-6% larger than OpenCV's default, which is Sub on every
    row, deflated by zlib's RLE strategy)."""
    rng = np.random.default_rng(seed)
    img = np.zeros((720, 1280, 3), np.uint8)
    img[:] = (235, 206, 135)
    for _ in range(15):
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        centre, radius = (int(rng.integers(0, 1280)), int(rng.integers(0, 680))), int(rng.integers(30, 200))
        cv2.circle(img, centre, radius, colour, -1, cv2.LINE_AA)
        cv2.circle(img, centre, radius, (20, 20, 20), 3, cv2.LINE_AA)
    cv2.putText(img, f"Figure {seed}", (30, 660), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (10, 10, 10), 2,
                cv2.LINE_AA)
    return img


def check_png_size(work):
    """gpublur's PNG (default level) of an illustration, as it is (--size 1) and blurred, against
    OpenCV's default PNG of the very same pixels."""
    global failures, passes
    for seed in (1, 2):
        src = os.path.join(work, f"illustration{seed}.png")
        cv2.imwrite(src, illustration(seed), [cv2.IMWRITE_PNG_COMPRESSION, 0])
        for blur in (["--size", "1"], ["--size", "5", "--sigma", "1"]):
            out = os.path.join(work, "ours.png")
            subprocess.run([GPUBLUR, src, out, "--device", "cpu"] + blur, check=True,
                           capture_output=True)
            ok, theirs = cv2.imencode(".png", cv2.imread(out, cv2.IMREAD_UNCHANGED))
            ours = os.path.getsize(out)
            if ok and ours <= len(theirs):
                passes += 1
            else:
                failures += 1
                print(f"FAIL illustration {seed} {' '.join(blur)}: PNG of {ours} bytes, OpenCV's "
                      f"{len(theirs)}")


def main():
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as work:
        images = {f: cv2.imread(os.path.join(SAMPLES, f), cv2.IMREAD_UNCHANGED)
                  for f in ("edges.png", "detail.png", "gradient.png")}
        images["random-rgba.png"] = rng.integers(0, 256, (61, 83, 4), dtype=np.uint8)
        images["random-gray.png"] = rng.integers(0, 256, (40, 7), dtype=np.uint8)
        images["gradient16.png"] = cv2.imread(os.path.join(SAMPLES, "gradient16.png"), cv2.IMREAD_UNCHANGED)
        images["random16.png"] = rng.integers(0, 65536, (33, 29, 3), dtype=np.uint16)
        hidden = rng.integers(0, 256, (45, 52, 4), dtype=np.uint8)  # colour under alpha 0
        hidden[:, :26, 3] = 0
        hidden[:, 26:, 3] = rng.integers(1, 256, (45, 26), dtype=np.uint8)
        images["hidden-rgba.png"] = hidden
        images["random16-rgba.png"] = rng.integers(0, 65536, (27, 31, 4), dtype=np.uint16)
        for name, img in images.items():
            src = os.path.join(work, name)
            cv2.imwrite(src, img)
            for size, sigma in ((3, 0.8), (7, 1.5), (31, 5.0)):
                for border in SCIPY_MODE:
                    ours = gpublur(src, os.path.join(work, "out.png"), size, sigma, border)
                    f = img.astype(np.float64)
                    spatial = (sigma, sigma) + ((0,) if img.ndim == 3 else ())
                    sp = ndimage.gaussian_filter(f, spatial, mode=SCIPY_MODE[border], cval=0.0,
                                                 truncate=(size // 2) / sigma)
                    check(f"{name} {size}x{size} sigma {sigma} {border} vs SciPy", ours, sp)
                    if border in CV_BORDER:
                        cv = cv2.GaussianBlur(img.astype(np.float32), (size, size), sigma,
                                              borderType=CV_BORDER[border])
                        check(f"{name} {size}x{size} sigma {sigma} {border} vs OpenCV", ours, cv)
                    if img.ndim == 3 and img.shape[2] in (2, 4):
                        ours = gpublur(src, os.path.join(work, "out.png"), size, sigma, border,
                                       "premultiplied")
                        blur = lambda a: ndimage.gaussian_filter(
                            a, (sigma, sigma), mode=SCIPY_MODE[border], cval=0.0,
                            truncate=(size // 2) / sigma)
                        alpha = blur(f[..., -1])
                        visible = alpha >= 0.5
                        safe = np.where(alpha > 0, alpha, 1.0)
                        label = f"{name} {size}x{size} sigma {sigma} {border} premultiplied vs SciPy"
                        check(label + " (alpha)", ours[..., -1], alpha)
                        for c in range(img.shape[2] - 1):
                            colour = blur(f[..., c] * f[..., -1]) / safe
                            check(label + f" (channel {c})", ours[..., c], colour, visible)
        check_png_size(work)
    print(f"{passes} passed, {failures} failed")
    sys.exit(1 if failures else 0)


main()
