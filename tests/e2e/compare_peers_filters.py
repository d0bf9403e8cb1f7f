"""compare_peers_filters.py GPUBLUR SAMPLES_DIR — gpublur's --matrix and --unsharp (CPU) against
SciPy's ndimage.correlate and OpenCV's filter2D/sepFilter2D/GaussianBlur in float64, on the samples
and random images, every border mapped to the peers' names: integer and decimal matrices exactly,
once the rounding (halves away from zero) and clamping are matched; fixed-point matrices and the
unsharp mask within 1 LSB. The peers filter each channel on its own, so gpublur runs with --alpha
straight for them; under the default, alpha is kept and the colours match the peers'. Exits 77
(CTest: skipped) without numpy, scipy and cv2 (Debian: python3-scipy, python3-opencv)."""
import os, subprocess, sys, tempfile

from peer_names import CV_BORDER, SCIPY_MODE, cv2, ndimage, np  # exits 77 without the peers

GPUBLUR, SAMPLES = sys.argv[1], sys.argv[2]
failures = passes = 0


def gpublur(src, dst, options, border, alpha="straight"):
    subprocess.run([GPUBLUR, src, dst, "--border", border, "--border-value", "0", "--device", "cpu",
                    "--alpha", alpha] + options, check=True, capture_output=True)
    return cv2.imread(dst, cv2.IMREAD_UNCHANGED)


def finish(v, top):
    """clamp(round(v)) with halves away from zero, as gpublur's integer finish."""
    return np.clip(np.sign(v) * np.floor(np.abs(v) + 0.5), 0, top)


def check(name, ours, reference, tolerance, where=None):
    global failures, passes
    difference = np.abs(ours.astype(np.float64) - reference)
    worst = float(np.max(difference[where] if where is not None else difference, initial=0.0))
    if worst <= tolerance + 1e-9:
        passes += 1
    else:
        failures += 1
        print(f"FAIL {name}: worst difference {worst:.3f} LSB (allowed {tolerance})")


def per_channel(img, f):
    if img.ndim == 2:
        return f(img)
    return np.stack([f(img[..., c]) for c in range(img.shape[2])], axis=-1)


def scipy_correlate(img, w, border):
    return per_channel(img.astype(np.float64),
                       lambda a: ndimage.correlate(a, w, mode=SCIPY_MODE[border], cval=0.0))


def opencv_filter2d(img, w, border):
    # filter2D correlates (it flips nothing), anchor at the centre; float64 throughout.
    return per_channel(img.astype(np.float64),
                       lambda a: cv2.filter2D(a, cv2.CV_64F, w, borderType=CV_BORDER[border]))


# name -> (the matrix as --matrix takes it, its values, divisor, offset, exact)
MATRICES = {
    "edge detector": ("-1 -1 -1; -1 8 -1; -1 -1 -1", [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]], 1, 0, True),
    "sharpen": ("0 -1 0; -1 5 -1; 0 -1 0", [[0, -1, 0], [-1, 5, -1], [0, -1, 0]], 1, 0, True),
    "box 3x3 (ninths: rounding matched)": ("1 1 1; 1 1 1; 1 1 1", [[1] * 3] * 3, 9, 0, True),
    "Sobel + 128 (rank one)": ("-1 0 1; -2 0 2; -1 0 1", [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], 1, 128, True),
    "binomial 5x5 (rank one)": ("1 4 6 4 1; 4 16 24 16 4; 6 24 36 24 6; 4 16 24 16 4; 1 4 6 4 1",
                                np.outer([1, 4, 6, 4, 1], [1, 4, 6, 4, 1]).tolist(), 256, 0, True),
    "decimal emboss / 0.5 + 0.25": ("-0.5 -0.25 0; -0.25 1 0.25; 0 0.25 0.5",
                                    [[-0.5, -0.25, 0], [-0.25, 1, 0.25], [0, 0.25, 0.5]], 0.5, 0.25, True),
    "7x5 dense": ("3 -1 0 2 -2 1 0; -1 4 1 -3 0 2 1; 0 1 -6 9 -6 1 0; 1 2 0 -3 1 4 -1; 0 1 -2 2 0 -1 3",
                  [[3, -1, 0, 2, -2, 1, 0], [-1, 4, 1, -3, 0, 2, 1], [0, 1, -6, 9, -6, 1, 0],
                   [1, 2, 0, -3, 1, 4, -1], [0, 1, -2, 2, 0, -1, 3]], 7, 0, True),
    # 14 significant digits a value: past the 8-bit sums' exact bound, so fixed point (<= 1 LSB).
    "many digits (fixed point)": ("0.11111111111111 0.11111111111111 0.11111111111111; "
                                  "0.11111111111111 0.11111111111112 0.11111111111111; "
                                  "0.11111111111111 0.11111111111111 0.11111111111111",
                                  [[0.11111111111111] * 3, [0.11111111111111, 0.11111111111112, 0.11111111111111],
                                   [0.11111111111111] * 3], None, 0, False),
}


def check_matrices(work, images):
    for name, img in images.items():
        src = os.path.join(work, name)
        cv2.imwrite(src, img)
        top = 65535 if img.dtype == np.uint16 else 255
        for label, (text, values, divisor, offset, exact) in MATRICES.items():
            w = np.array(values, np.float64)
            d = float(np.sum(w)) if divisor is None else divisor
            options = ["--matrix", text] + ([] if divisor is None else ["--divisor", str(divisor)])
            options += ["--offset", str(offset)] if offset else []
            for border in SCIPY_MODE:
                ours = gpublur(src, os.path.join(work, "out.png"), options, border)
                tolerance = 0.0 if exact else 1.0
                sp = finish(scipy_correlate(img, w, border) / d + offset, top)
                check(f"{name} {label} {border} vs SciPy", ours, sp, tolerance)
                if border in CV_BORDER:
                    cv = finish(opencv_filter2d(img, w, border) / d + offset, top)
                    check(f"{name} {label} {border} vs OpenCV", ours, cv, tolerance)
            if img.ndim == 3 and img.shape[2] == 4:  # the default: alpha kept, colours filtered
                ours = gpublur(src, os.path.join(work, "out.png"), options, "clamp", "premultiplied")
                check(f"{name} {label} alpha kept", ours[..., 3], img[..., 3].astype(np.float64), 0.0)
                colours = finish(scipy_correlate(img[..., :3], w, "clamp") / d + offset, top)
                check(f"{name} {label} colours vs SciPy", ours[..., :3], colours, 0.0 if exact else 1.0)
    # A rank-one matrix against OpenCV's sepFilter2D, its column and row.
    img = images["detail.png"]
    src = os.path.join(work, "detail.png")
    ours = gpublur(src, os.path.join(work, "out.png"), ["--matrix", MATRICES["Sobel + 128 (rank one)"][0],
                                                        "--offset", "128"], "reflect101")
    sep = per_channel(img.astype(np.float64), lambda a: cv2.sepFilter2D(
        a, cv2.CV_64F, np.array([-1.0, 0, 1]), np.array([1.0, 2, 1]), borderType=cv2.BORDER_REFLECT_101))
    check("detail.png Sobel vs OpenCV's sepFilter2D", ours, finish(sep + 128, 255), 0.0)


def gaussian_taps(size, sigma):
    r = size // 2
    t = np.exp(-(np.arange(-r, r + 1) ** 2) / (2 * sigma * sigma))
    return t / t.sum()


def check_unsharp(work, images):
    for name, img in images.items():
        src = os.path.join(work, name)
        top = 65535 if img.dtype == np.uint16 else 255
        for size, sigma, amount, threshold in ((5, 1.0, 1.0, 0), (13, 2.0, 1.5, 2), (9, 1.5, 3.0, 0)):
            taps = gaussian_taps(size, sigma)
            f = img.astype(np.float64)
            options = ["--unsharp", f"{amount},{threshold}", "--size", str(size), "--sigma", str(sigma)]
            for border in SCIPY_MODE:
                ours = gpublur(src, os.path.join(work, "out.png"), options, border)
                blur = per_channel(f, lambda a: ndimage.correlate1d(
                    ndimage.correlate1d(a, taps, axis=0, mode=SCIPY_MODE[border], cval=0.0),
                    taps, axis=1, mode=SCIPY_MODE[border], cval=0.0))
                d = f - blur
                reference = finish(np.where(np.abs(d) > threshold, f + amount * d, f), top)
                # A difference within a hair of THRESHOLD may fall either side of it.
                clear = np.abs(np.abs(d) - threshold) > 1e-3
                label = f"{name} unsharp {amount},{threshold} size {size} {border}"
                check(label + " vs SciPy", ours, reference, 1.0, clear)
                if border in CV_BORDER:
                    cvblur = per_channel(f, lambda a: cv2.GaussianBlur(a, (size, size), sigma,
                                                                       borderType=CV_BORDER[border]))
                    dc = f - cvblur
                    cv = finish(np.where(np.abs(dc) > threshold, f + amount * dc, f), top)
                    check(label + " vs OpenCV", ours, cv, 1.0, clear)


def main():
    rng = np.random.default_rng(38)
    with tempfile.TemporaryDirectory() as work:
        images = {f: cv2.imread(os.path.join(SAMPLES, f), cv2.IMREAD_UNCHANGED)
                  for f in ("detail.png", "before_after.png", "gradient16.png")}
        images["random-rgba.png"] = rng.integers(0, 256, (37, 41, 4), dtype=np.uint8)
        images["random-gray.png"] = rng.integers(0, 256, (23, 9), dtype=np.uint8)
        images["random16.png"] = rng.integers(0, 65536, (19, 25, 3), dtype=np.uint16)
        check_matrices(work, images)
        check_unsharp(work, images)
    print(f"{passes} passed, {failures} failed")
    sys.exit(1 if failures else 0)


main()
