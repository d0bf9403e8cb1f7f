"""peer_names.py — what the peer comparisons (compare_peers.py, compare_peers_filters.py) share:
the peers imported or the test skipped (exit 77, CTest's skip, without numpy, scipy and cv2:
Debian's python3-scipy, python3-opencv), and gpublur's border names in SciPy's and OpenCV's."""
import sys

try:
    import numpy as np
    import cv2
    from scipy import ndimage
except ImportError as e:
    print(f"SKIPPED: {e}")
    sys.exit(77)

SCIPY_MODE = {"clamp": "nearest", "reflect": "reflect", "reflect101": "mirror", "wrap": "wrap",
              "constant": "constant"}
CV_BORDER = {"clamp": cv2.BORDER_REPLICATE, "reflect": cv2.BORDER_REFLECT,
             "reflect101": cv2.BORDER_REFLECT_101, "constant": cv2.BORDER_CONSTANT}  # no wrap in cv2
