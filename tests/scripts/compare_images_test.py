#!/usr/bin/python3
"""scripts/compare_images.py: it reads the OpenEXRs that ptbench writes (tinyexr: uncompressed
below 16x16 pixels, ZIP above, float; and half) as well as PFMs, and bad input (a value that is
not finite, a negative variance, an empty or unreadable image, an option out of range) is one
line naming the file and the problem with exit 2, never a traceback nor a verdict. With --ptbench
it prints `ptbench flip`'s HDR-FLIP, which --flip-max holds to a bound."""
import base64
import importlib.util
import json
import math
import pathlib
import struct
import subprocess
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "compare_images.py"
# The built ptbench, for --ptbench (FLIP); its tests are skipped without it.
PTBENCH = pathlib.Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else None

# Written by tinyexr (as ptbench's image output calls it), channels B, G, R, every value
# (x + 1) * (channel + 1) / 64 + y / 8 for channel 0 = R: exact in half and float. 20x17 pixels
# in two ZIP chunks of 16 lines, the second short; 4x3 uncompressed, as ptbench writes small images.
ZIP_FLOAT = base64.b64decode(
    "di8xAQIAAABjaGFubmVscwBjaGxpc3QANwAAAEIAAgAAAAAAAAABAAAAAQAAAEcAAgAAAAAAAAABAAAAAQAAAFIAAgAAAAAAAAAB"
    "AAAAAQAAAABjb21wcmVzc2lvbgBjb21wcmVzc2lvbgABAAAAA2RhdGFXaW5kb3cAYm94MmkAEAAAAAAAAAAAAAAAEwAAABAAAABk"
    "aXNwbGF5V2luZG93AGJveDJpABAAAAAAAAAAAAAAABMAAAAQAAAAbGluZU9yZGVyAGxpbmVPcmRlcgABAAAAAHBpeGVsQXNwZWN0"
    "UmF0aW8AZmxvYXQABAAAAAAAgD9zY3JlZW5XaW5kb3dDZW50ZXIAdjJmAAgAAAAAAAAAAAAAAHNjcmVlbldpbmRvd1dpZHRoAGZs"
    "b2F0AAQAAAAAAIA/AEkBAAAAAAAAKAUAAAAAAAAAAAAA1wMAAHic7dBhaBNnGAfwQ4IECXJIkCBBDgkSJMghQYIUudUgQYI7SuZC"
    "l3W3LutuXdbduhjPGOMZYzxj1t26rLt1WXfrspK5UG4SJEjsDgkSJMghQYIEOSRIkCCHBAkSZEi/KOnbSxHmF3m+/t/n97x/SMIw"
    "iaMkTIVh1VrHJG+O4uIRjsr4c96CW8Kq9rq1aVZhhoEgTGIYgZAwBYEgWEUUVMYkXCQEimMYluYonhQICGIYCYMgRMEkQmAYjhII"
    "EZcwGVUQFYYgfRdWTS1EEXEF0XcRxVHBRZJnmFSQJ7M+ES85K46aTUHaxq5+03N9V8vLeUW86JIwkGOto7KjgkmuIi56c4RgaqGy"
    "q0gINMvS6YBA5D1FV3lIRhuWlqljgKDNzwydbY9NLS2v4pDRuvXFH9Z2SJ7iaJZh4hGWTgU5CtRrT6frbXkKq9sfmZu77lvrWl7L"
    "pMJdPQSBnHSAJzN+gcj6ct68R8RBvW59YmzveIgou+/ZavtuOypanq6n7xo6sApyCu6iq+SUsPJQxVG1yyio150PLI09d1F5/62h"
    "8vCKq6jlGdumlrmJKCCnZqtbGxYFaZpbprZRhUG97r1jrx64iUmHr7kLI8venJZnaVjrthoqg5yOoavv6SBo03Ndb/MzfRfU68Eb"
    "ztKRq7h47LIvO75A8lqeveqoDJUxCeRseWrobH0Cq9seG9vbH5laoF6PXvHkR5cIYWI+kJ6eoVktz1lyFd0FXAQ5Ox6amzsfIMqu"
    "+5bG7nvWOqjXsUV/ZnKO4kLJSPzsmXhEy/PkvTlflhBAzp67ttreO6i877a9uv+WowLqdWo2mAonGObc6UT44olUUMvzZ0g+kKY4"
    "kHPg5lD54A1MGl5xlg5fcxVBvUZjsej5Uyx96fjM9PdfpQNaXjBFs5E4w4CcI1fdhaNXcHFk2ZM/dtmbA/V64WQy9O03HPXDl3OT"
    "P3+W8Wt5sWg8kgizNMgZXfJlxxYJYXzBn5mYJ3lQr999PTv14xc8+cunC+O/f5T1aXnJUCo4M81RIGdyLpCemqW46ZlgKpSkWVCv"
    "P30+P/HrJwLxx4dLo3+9n/doebNT6cDcJE+CnHAiEo/GGObsmVj03Ol4BNTrbx8vjv35Qc7793vLI/+8W3BrefMTGf/CuECAnPOn"
    "EuELJ1n64olk6NLxVPD6oeuHVoZfnX/f6Z8Xuf5k/4uSczW5fn4QcXUGzQ8qDWL279voff3vtMWX9w2aG+wvb+ftvImRMAn7/8XV"
    "eRPm4O7r3feqOIj7ur2sJa63b6P3bczs37fR+9buZX3x5X2D5jTv+w+DTXAqEAAAAIkAAAB4nGNorm2r6izvKekvnJQ3NXtGxuzU"
    "eUkL45fELI9cFbY2eEPAZt9tXjvd97g01bXUtFV1VHSV9ZT0FU0omJQ3JWda1oyMWWlzUuYlLUhYFLckZlnUiojG+qa65tqWmtbq"
    "tqr2yo6KzvKusu7SnpLe4r6i/sIJBRPzJ+VNzp2Sc8BhQCAAHCR3wQ==")

ZIP_HALF = base64.b64decode(
    "di8xAQIAAABjaGFubmVscwBjaGxpc3QANwAAAEIAAQAAAAAAAAABAAAAAQAAAEcAAQAAAAAAAAABAAAAAQAAAFIAAQAAAAAAAAAB"
    "AAAAAQAAAABjb21wcmVzc2lvbgBjb21wcmVzc2lvbgABAAAAA2RhdGFXaW5kb3cAYm94MmkAEAAAAAAAAAAAAAAAEwAAABAAAABk"
    "aXNwbGF5V2luZG93AGJveDJpABAAAAAAAAAAAAAAABMAAAAQAAAAbGluZU9yZGVyAGxpbmVPcmRlcgABAAAAAHBpeGVsQXNwZWN0"
    "UmF0aW8AZmxvYXQABAAAAAAAgD9zY3JlZW5XaW5kb3dDZW50ZXIAdjJmAAgAAAAAAAAAAAAAAHNjcmVlbldpbmRvd1dpZHRoAGZs"
    "b2F0AAQAAAAAAIA/AEkBAAAAAAAAlwIAAAAAAAAAAAAARgEAAHiczZCxccMwDEU5gkbwKKxTZQT3uZTOxYksgzoXKVWqVOmSI2gE"
    "j6ARPIJBSpBBENKdVeXZok+4//hxNmCMAYvsBsLAiJnoEVBmeAbRzuJw81Zkxlz6HoiieZoesUpO0iE923XofaRf8TrGnu1KSDHk"
    "dl3Onu1KwEKP6vY+wSie7G2Qju3Ke5e6GsY9M70fFKdocnL32pqNbovYLW7XRuBl99oS8o8KufcVt2UY4S1xZ7sSVvFuwvtDCrYr"
    "AUpfwRzi7VLXDgH8Ap7h+Jxn0weHH8qsrKMXHXIPIhOeL/EenhPlZhfgW8kdIX0PuYrtOk4cHF2Wcz/Mod8z25Vmv0pHyZzchVkX"
    "bhyuuMCPUtnvtORC2luKTPxP0/cnolfrqBTj//RGd0svsI7Xeqex0ivvE7dkHUnuvNybpKv8fqfd9wDQaSD9EAAAACEAAAB4nJOY"
    "gQk2TMAEHh2YQKEBBhrhrPoGFNCIRQwMAEHIPsE=")

UNCOMPRESSED_FLOAT = base64.b64decode(
    "di8xAQIAAABjaGFubmVscwBjaGxpc3QANwAAAEIAAgAAAAAAAAABAAAAAQAAAEcAAgAAAAAAAAABAAAAAQAAAFIAAgAAAAAAAAAB"
    "AAAAAQAAAABjb21wcmVzc2lvbgBjb21wcmVzc2lvbgABAAAAAGRhdGFXaW5kb3cAYm94MmkAEAAAAAAAAAAAAAAAAwAAAAIAAABk"
    "aXNwbGF5V2luZG93AGJveDJpABAAAAAAAAAAAAAAAAMAAAACAAAAbGluZU9yZGVyAGxpbmVPcmRlcgABAAAAAHBpeGVsQXNwZWN0"
    "UmF0aW8AZmxvYXQABAAAAAAAgD9zY3JlZW5XaW5kb3dDZW50ZXIAdjJmAAgAAAAAAAAAAAAAAHNjcmVlbldpbmRvd1dpZHRoAGZs"
    "b2F0AAQAAAAAAIA/AFEBAAAAAAAAiQEAAAAAAADBAQAAAAAAAAAAAAAwAAAAAABAPQAAwD0AABA+AABAPgAAAD0AAIA9AADAPQAA"
    "AD4AAIA8AAAAPQAAQD0AAIA9AQAAADAAAAAAADA+AABgPgAAiD4AAKA+AAAgPgAAQD4AAGA+AACAPgAAED4AACA+AAAwPgAAQD4C"
    "AAAAMAAAAAAAmD4AALA+AADIPgAA4D4AAJA+AACgPgAAsD4AAMA+AACIPgAAkD4AAJg+AACgPg==")

# The header attribute's name and type, then its size (4 bytes) and the compression's number.
COMPRESSION = b"compression\0compression\0"


def formula(width, height):
    return [(x + 1) * (c + 1) / 64 + y / 8 for y in range(height) for x in range(width) for c in range(3)]


def pfm(values, width, height):
    """A little-endian colour PFM, its rows bottom to top as the format has them."""
    rows = [values[y * width * 3:(y + 1) * width * 3] for y in range(height)]
    body = b"".join(struct.pack(f"<{len(row)}f", *row) for row in reversed(rows))
    return f"PF\n{width} {height}\n-1.0\n".encode() + body


def load():
    spec = importlib.util.spec_from_file_location("compare_images", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Compare(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.folder = pathlib.Path(scratch.name)

    def file(self, name, data):
        path = self.folder / name
        path.write_bytes(data)
        return str(path)

    def compare(self, *paths, options=()):
        result = subprocess.run([sys.executable, str(SCRIPT), *paths, *options], capture_output=True, text=True,
                                timeout=30)
        self.assertNotIn("Traceback", result.stderr)
        return result

    def assertBadInput(self, result, *phrases):
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertNotIn("agree", result.stdout.lower())
        for phrase in phrases:
            self.assertIn(phrase, result.stderr)

    def test_reads_tinyexrs_zip_and_uncompressed_float_and_half(self):
        compare_images = load()
        for name, data, width, height in (("zip-float.exr", ZIP_FLOAT, 20, 17), ("zip-half.exr", ZIP_HALF, 20, 17),
                                          ("uncompressed.exr", UNCOMPRESSED_FLOAT, 4, 3)):
            with self.subTest(name=name):
                w, h, pixels = compare_images.read_image(self.file(name, data))
                self.assertEqual((w, h), (width, height))
                self.assertEqual(list(pixels), formula(width, height))

    def test_a_zip_chunk_that_deflate_would_not_shrink_is_read_as_stored(self):
        # ZIPS has one line a chunk, as the uncompressed file does: with its compression byte set
        # to ZIPS, each chunk is one that the writer stored as it was (its size that of its pixels).
        zips = bytearray(UNCOMPRESSED_FLOAT)
        zips[zips.index(COMPRESSION) + len(COMPRESSION) + 4] = 2
        self.assertEqual(list(load().read_image(self.file("zips.exr", bytes(zips)))[2]), formula(4, 3))

    def test_two_exrs_of_one_image_agree_and_so_do_an_exr_and_a_pfm(self):
        image = self.file("a.exr", ZIP_FLOAT)
        variance = self.file("var.pfm", pfm([1e-6] * 20 * 17 * 3, 20, 17))
        result = self.compare(image, self.file("var.exr", ZIP_HALF), image, self.file("var2.exr", ZIP_HALF))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("agree", result.stdout)
        # The PFM's rows run the other way: agreement says both readers put the top row first.
        result = self.compare(image, variance, self.file("b.pfm", pfm(formula(20, 17), 20, 17)), variance)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_a_pixel_that_differs_is_named_by_x_and_y_from_the_top_left(self):
        values = formula(20, 17)
        values[(2 * 20 + 7) * 3 + 1] += 0.5  # x 7, y 2, G
        variance = self.file("var.pfm", pfm([1e-6] * 20 * 17 * 3, 20, 17))
        result = self.compare(self.file("a.exr", ZIP_FLOAT), variance, self.file("b.pfm", pfm(values, 20, 17)),
                              variance)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("pixel (7, 2) channel G", result.stdout)
        self.assertIn("DISAGREE", result.stdout)

    def test_pfms_still_compare(self):
        values = formula(5, 4)
        image, variance = self.file("a.pfm", pfm(values, 5, 4)), self.file("var.pfm", pfm([1e-6] * 60, 5, 4))
        self.assertEqual(self.compare(image, variance, image, variance).returncode, 0)
        values[0] += 1
        self.assertEqual(self.compare(image, variance, self.file("b.pfm", pfm(values, 5, 4)), variance).returncode, 1)

    def test_images_of_negative_means_compare_by_their_size(self):
        # Radiance is never negative, but a difference image or a filtered one may be: identical
        # images agree and a 10% change disagrees, whatever the mean's sign.
        values = [-v for v in formula(5, 4)]
        image, variance = self.file("neg.pfm", pfm(values, 5, 4)), self.file("var.pfm", pfm([1e-6] * 60, 5, 4))
        result = self.compare(image, variance, image, variance)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        other = self.file("neg-b.pfm", pfm([1.1 * v for v in values], 5, 4))
        self.assertEqual(self.compare(image, variance, other, variance).returncode, 1)

    def test_a_nan_or_infinity_is_bad_input_not_agreement(self):
        values = formula(5, 4)
        image, other = self.file("a.pfm", pfm(values, 5, 4)), self.file("b.pfm", pfm([v + 1 for v in values], 5, 4))
        good = self.file("var.pfm", pfm([1e-6] * 60, 5, 4))
        nan = self.file("nan-var.pfm", pfm([1e-6] * 13 + [math.nan] * 47, 5, 4))
        self.assertBadInput(self.compare(image, nan, other, good), "nan-var.pfm", "47 value(s) are not finite",
                            "pixel (4, 0) channel G")
        infinite = self.file("inf.pfm", pfm(values[:-1] + [math.inf], 5, 4))
        self.assertBadInput(self.compare(image, good, infinite, good), "inf.pfm", "not finite")

    def test_a_negative_variance_is_bad_input(self):
        image = self.file("a.pfm", pfm(formula(5, 4), 5, 4))
        good = self.file("var.pfm", pfm([1e-6] * 60, 5, 4))
        negative = self.file("negative-var.pfm", pfm([1e-6] * 59 + [-0.25], 5, 4))
        self.assertBadInput(self.compare(image, good, image, negative), "negative-var.pfm", "negative variance",
                            "-0.25", "pixel (4, 3) channel B")

    def test_an_image_of_no_pixels_is_bad_input(self):
        empty = self.file("empty.pfm", pfm([], 0, 0))
        self.assertBadInput(self.compare(empty, empty, empty, empty), "empty.pfm", "no pixels (0x0)")

    def test_images_of_different_sizes_are_named_with_their_sizes(self):
        small, large = self.file("small.pfm", pfm([0.0] * 12, 2, 2)), self.file("large.pfm", pfm([0.0] * 27, 3, 3))
        self.assertBadInput(self.compare(small, small, large, small), "differ in size", "large.pfm 3x3")

    def test_unreadable_files_are_named(self):
        zip_float = bytearray(ZIP_FLOAT)
        piz = bytearray(UNCOMPRESSED_FLOAT)
        piz[piz.index(COMPRESSION) + len(COMPRESSION) + 4] = 4
        corrupt = bytearray(ZIP_FLOAT)
        corrupt[-40:-30] = bytes(10)
        tiled = bytearray(UNCOMPRESSED_FLOAT)
        tiled[5] |= 0x02
        good = self.file("good.pfm", pfm([0.0] * 12, 2, 2))
        for name, data, phrase in (
                ("missing.exr", None, "No such file or directory"),
                ("text.exr", b"hello", "neither a colour PFM nor an OpenEXR"),
                ("grey.pfm", b"Pf\n1 1\n-1.0\n\0\0\0\0", "greyscale PFM"),
                ("header.pfm", b"PF\nwide high\n-1.0\n", "not a PFM header"),
                ("short.pfm", pfm([0.0] * 12, 2, 2)[:-4], "11 floats, expected 12"),
                ("short.exr", bytes(zip_float[:600]), "ends early"),
                ("piz.exr", bytes(piz), "PIZ compression"),
                ("corrupt.exr", bytes(corrupt), "chunk 1 does not hold 1 lines of 20 pixels"),
                ("tiled.exr", bytes(tiled), "tiled"),
        ):
            with self.subTest(name=name):
                path = str(self.folder / name) if data is None else self.file(name, data)
                self.assertBadInput(self.compare(path, good, good, good), name, phrase)

    def test_options_out_of_range_are_bad_input(self):
        image = self.file("a.pfm", pfm([0.0] * 12, 2, 2))
        for option in (["--sigmas", "0"], ["--sigmas", "nan"], ["--means", "-1"]):
            with self.subTest(option=option):
                self.assertBadInput(self.compare(image, image, image, image, options=option), option[0])

    @unittest.skipIf(PTBENCH is None, "needs the built ptbench as the first argument")
    def test_ptbench_gives_the_hdr_flip_of_b_against_a(self):
        image = self.file("a.exr", ZIP_FLOAT)
        variance = self.file("var.pfm", pfm([1.0] * 20 * 17 * 3, 20, 17))
        result = self.compare(image, variance, image, variance, options=["--ptbench", str(PTBENCH)])
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn(f"HDR-FLIP of {image} against {image}: 0.000000", result.stdout)
        # Twice as bright at one pixel: within the (large) variances, but visible to FLIP.
        values = formula(20, 17)
        values[(8 * 20 + 10) * 3:(8 * 20 + 11) * 3] = [2 * v for v in values[(8 * 20 + 10) * 3:(8 * 20 + 11) * 3]]
        brighter = self.file("b.pfm", pfm(values, 20, 17))
        result = self.compare(image, variance, brighter, variance, options=["--ptbench", str(PTBENCH)])
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        flip = float(result.stdout.split(f"HDR-FLIP of {brighter} against {image}: ")[1].split()[0])
        self.assertGreater(flip, 0.0)
        self.assertLess(flip, 0.1)
        ptbench = subprocess.run([str(PTBENCH), "flip", image, brighter, "--json"], capture_output=True, text=True)
        self.assertEqual(ptbench.returncode, 0, ptbench.stderr)
        self.assertAlmostEqual(json.loads(ptbench.stdout)["flip"], flip, places=6)
        result = self.compare(image, variance, brighter, variance,
                              options=["--ptbench", str(PTBENCH), "--flip-max", f"{flip / 2:.6f}"])
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("FAIL", result.stdout)
        self.assertIn("DISAGREE", result.stdout)

    def test_flip_needs_a_ptbench_that_runs(self):
        image = self.file("a.pfm", pfm([0.0] * 12, 2, 2))
        self.assertBadInput(self.compare(image, image, image, image, options=["--flip-max", "0.1"]), "--ptbench")
        missing = str(self.folder / "no-ptbench")
        self.assertBadInput(self.compare(image, image, image, image, options=["--ptbench", missing]), missing)
        if PTBENCH is not None:
            self.assertBadInput(
                self.compare(image, image, image, image, options=["--ptbench", str(PTBENCH), "--flip-max", "2"]),
                "--flip-max")

    def test_the_usage_names_exit_2_for_bad_input(self):
        result = self.compare("--help")
        self.assertEqual(result.returncode, 0)
        self.assertRegex(" ".join(result.stdout.split()), r"2 on bad input")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
