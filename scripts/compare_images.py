#!/usr/bin/python3
"""Do two renders of one scene agree? Each is a colour PFM and the PFM of its per-pixel
variance of the mean (`ptbench render --out A.pfm --out-variance A-var.pfm`):

  - every channel's image mean within --means (relative, default 0.005);
  - every pixel and channel within --sigmas (default 5) standard errors of the difference,
    sqrt(var_a + var_b), plus 1e-4 for pixels of (near) zero variance: the tests' criterion.

Prints the numbers and exits 0 when both hold, 1 when not, 2 on unreadable input. Pure Python
(no numpy), so that it runs on a bare GPU machine.

    scripts/compare_images.py A.pfm A-var.pfm B.pfm B-var.pfm [--means 0.005] [--sigmas 5]
"""
import argparse
import array
import math
import sys


def read_pfm(path):
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n", 3)
    if len(lines) < 4 or lines[0] != b"PF":
        raise ValueError(f"{path}: not a colour PFM")
    width, height = (int(v) for v in lines[1].split())
    scale = float(lines[2])
    pixels = array.array("f")
    pixels.frombytes(lines[3][: width * height * 3 * 4])
    if len(pixels) != width * height * 3:
        raise ValueError(f"{path}: {len(pixels)} floats, expected {width * height * 3}")
    if (scale < 0) != (sys.byteorder == "little"):
        pixels.byteswap()
    return width, height, pixels


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("a_variance")
    parser.add_argument("b")
    parser.add_argument("b_variance")
    parser.add_argument("--means", type=float, default=0.005)
    parser.add_argument("--sigmas", type=float, default=5.0)
    args = parser.parse_args()
    try:
        images = [read_pfm(p) for p in (args.a, args.a_variance, args.b, args.b_variance)]
    except (OSError, ValueError) as error:
        print(f"compare_images: {error}", file=sys.stderr)
        return 2
    if len({(w, h) for w, h, _ in images}) != 1:
        print("compare_images: the four images differ in size", file=sys.stderr)
        return 2
    (_, _, a), (_, _, va), (_, _, b), (_, _, vb) = images
    pixels = len(a) // 3
    ok = True
    for c, name in enumerate("RGB"):
        mean_a = sum(a[c::3]) / pixels
        mean_b = sum(b[c::3]) / pixels
        se = math.sqrt(sum(va[c::3]) + sum(vb[c::3])) / pixels
        relative = abs(mean_b - mean_a) / mean_a if mean_a > 0 else abs(mean_b)
        good = relative <= args.means
        ok &= good
        print(f"mean {name}: {mean_a:.6f} vs {mean_b:.6f} (difference {100 * relative:.3f}%, "
              f"{abs(mean_b - mean_a) / se if se > 0 else 0:.2f} standard errors) {'ok' if good else 'FAIL'}")
    outliers = 0
    worst = 0.0
    for i in range(len(a)):
        tolerance = args.sigmas * math.sqrt(va[i] + vb[i]) + 1e-4
        difference = abs(a[i] - b[i])
        worst = max(worst, difference / tolerance * args.sigmas)
        if difference > tolerance:
            outliers += 1
            if outliers <= 5:
                print(f"pixel {i // 3} channel {'RGB'[i % 3]}: {a[i]:.6f} vs {b[i]:.6f} (tolerance {tolerance:.6f})")
    print(f"pixels beyond {args.sigmas:g} standard errors: {outliers} of {len(a)} channel values "
          f"(largest difference {worst:.2f} standard errors)")
    ok &= outliers == 0
    print("agree" if ok else "DISAGREE")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
