#!/usr/bin/python3
"""Do two renders of one scene agree? Each is a colour image and the image of its per-pixel
variance of the mean, as OpenEXR or PFM (`ptbench render --out A.exr --out-variance A-var.exr`):

  - every channel's image mean within --means (relative, default 0.005);
  - every pixel and channel within --sigmas (default 5) standard errors of the difference,
    sqrt(var_a + var_b), plus 1e-4 for pixels of (near) zero variance: the tests' criterion.

With --ptbench PATH it also prints the HDR-FLIP of B against A (`ptbench flip`, the metric
reports give beside relMSE: 0 to 1, lower is better), and with --flip-max F holds it to at most F.

Prints the numbers and exits 0 when all hold, 1 when not, 2 on bad input: a file that is not a
colour PFM or an OpenEXR of the kind ptbench writes (single-part scanline, uncompressed or ZIP,
half or float R, G and B), images of different sizes or of no pixels, a value that is not finite,
a negative variance, or an option out of range. Pixels are (x, y) from the top left. Pure Python
(no numpy), so that it runs on a bare GPU machine.

    scripts/compare_images.py A.exr A-var.exr B.exr B-var.exr [--means 0.005] [--sigmas 5]
                              [--ptbench build/ptbench [--flip-max 0.05]]
"""
import argparse
import array
import itertools
import json
import math
import struct
import subprocess
import sys
import zlib


class BadInput(Exception):
    """A file that cannot be compared, with its name and what is wrong with it."""


def read_pfm(path, data):
    lines = data.split(b"\n", 3)
    if lines[0] == b"Pf":
        raise BadInput(f"{path}: a greyscale PFM; expected a colour one (PF)")
    try:
        width, height = (int(v) for v in lines[1].split())
        scale = float(lines[2])
    except (IndexError, ValueError):
        raise BadInput(f"{path}: not a PFM header (PF, then width and height, then the scale)") from None
    if width < 0 or height < 0 or not math.isfinite(scale) or scale == 0:
        raise BadInput(f"{path}: a PFM header of {width}x{height} pixels and scale {scale}")
    pixels = array.array("f")
    pixels.frombytes(lines[3][: width * height * 3 * 4] if len(lines) > 3 else b"")
    if len(pixels) != width * height * 3:
        raise BadInput(f"{path}: {len(pixels)} floats, expected {width * height * 3}")
    if (scale < 0) != (sys.byteorder == "little"):
        pixels.byteswap()
    # PFM rows run bottom to top; EXR's, and the pixels printed, top to bottom.
    rows = [pixels[row * width * 3:(row + 1) * width * 3] for row in range(height)]
    top_down = array.array("f")
    for row in reversed(rows):
        top_down.extend(row)
    return width, height, top_down


EXR_MAGIC = b"\x76\x2f\x31\x01"
EXR_COMPRESSIONS = ["none", "RLE", "ZIPS", "ZIP", "PIZ", "PXR24", "B44", "B44A", "DWAA", "DWAB"]
# Scanlines per chunk of the compressions read here: tinyexr writes none or ZIP.
EXR_LINES_PER_CHUNK = {"none": 1, "ZIPS": 1, "ZIP": 16}
# OpenEXR's pixel types: (array or struct code, bytes).
EXR_PIXEL_TYPES = {0: ("I", 4), 1: ("e", 2), 2: ("f", 4)}
# Deflate expands at most about 1032 times: a header claiming more pixels than that is corrupt.
DEFLATE_MAX_RATIO = 1100
MINUS_128 = bytes((i - 128) & 0xFF for i in range(256))


def unpack(path, layout, data, offset):
    try:
        return struct.unpack_from(layout, data, offset)
    except struct.error:
        raise BadInput(f"{path}: the EXR ends early (truncated or corrupt)") from None


def exr_attributes(path, data):
    """The header's attributes, name to (type, value bytes), and where the offset table starts."""
    attributes = {}
    position = 8
    while True:
        name_end = data.find(b"\0", position)
        if name_end < 0:
            raise BadInput(f"{path}: the EXR's header ends early")
        if name_end == position:
            return attributes, position + 1
        type_end = data.find(b"\0", name_end + 1)
        if type_end < 0:
            raise BadInput(f"{path}: the EXR's header ends early")
        (size,) = unpack(path, "<i", data, type_end + 1)
        start = type_end + 5
        if size < 0 or start + size > len(data):
            raise BadInput(f"{path}: the EXR's header ends early")
        attributes[data[position:name_end].decode("latin-1")] = (data[name_end + 1:type_end], data[start:start + size])
        position = start + size


def exr_channels(path, value):
    """(name, pixel type) per channel, in the file's (alphabetical) order."""
    channels = []
    position = 0
    while position < len(value) and value[position] != 0:
        end = value.find(b"\0", position)
        if end < 0:
            break
        pixel_type, _, x_sampling, y_sampling = unpack(path, "<iB3xii", value, end + 1)
        name = value[position:end].decode("latin-1")
        if pixel_type not in EXR_PIXEL_TYPES:
            raise BadInput(f"{path}: channel {name} has pixel type {pixel_type}; expected 0, 1 or 2 (uint, half, float)")
        if (x_sampling, y_sampling) != (1, 1):
            raise BadInput(f"{path}: channel {name} is subsampled ({x_sampling}x{y_sampling}); expected every pixel")
        channels.append((name, pixel_type))
        position = end + 17
    return channels


def unzip_exr(compressed, size):
    """OpenEXR's ZIP: deflate of the bytes split into even and odd halves, each a difference from the last."""
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(compressed, size)
    except zlib.error:
        return None
    if len(data) != size or not inflater.eof:
        return None
    # Each byte is the last plus its difference less 128: a running sum modulo 256, summed in C
    # (accumulate, map) rather than byte by byte in Python, for megapixel images.
    differences = bytearray(data.translate(MINUS_128))
    differences[:1] = data[:1]
    halves = bytes(map((0xFF).__and__, itertools.accumulate(differences)))
    out = bytearray(size)
    half = (size + 1) // 2
    out[0::2] = halves[:half]
    out[1::2] = halves[half:]
    return bytes(out)


def read_exr(path, data):
    (version,) = unpack(path, "<I", data, 4)
    if version & 0xFF != 2:
        raise BadInput(f"{path}: OpenEXR version {version & 0xFF}; expected 2")
    if version & 0x1A00:
        raise BadInput(f"{path}: a tiled, deep or multi-part EXR; expected one part of scanlines, as ptbench writes")
    attributes, position = exr_attributes(path, data)
    for name, kind in (("channels", b"chlist"), ("compression", b"compression"), ("dataWindow", b"box2i")):
        if attributes.get(name, (None,))[0] != kind:
            raise BadInput(f"{path}: the EXR's header has no {name} ({kind.decode()})")
    channels = exr_channels(path, attributes["channels"][1])
    names = [name for name, _ in channels]
    if not {"R", "G", "B"} <= set(names):
        raise BadInput(f"{path}: channels {', '.join(names) or 'none'}; expected R, G and B")
    compression_id = attributes["compression"][1][0] if attributes["compression"][1] else -1
    compression = EXR_COMPRESSIONS[compression_id] if 0 <= compression_id < len(EXR_COMPRESSIONS) else compression_id
    if compression not in EXR_LINES_PER_CHUNK:
        raise BadInput(f"{path}: {compression} compression; expected none, ZIP or ZIPS (what ptbench writes)")
    x_min, y_min, x_max, y_max = unpack(path, "<iiii", attributes["dataWindow"][1], 0)
    width, height = max(0, x_max - x_min + 1), max(0, y_max - y_min + 1)
    pixel_bytes = sum(EXR_PIXEL_TYPES[t][1] for _, t in channels)
    if width * height * pixel_bytes > len(data) * (1 if compression == "none" else DEFLATE_MAX_RATIO):
        raise BadInput(f"{path}: {width}x{height} pixels do not fit in its {len(data)} bytes")
    lines = EXR_LINES_PER_CHUNK[compression]
    chunks = -(-height // lines)
    offsets = unpack(path, f"<{chunks}Q", data, position)
    pixels = array.array("f", bytes(4 * width * height * 3))
    targets = {"R": 0, "G": 1, "B": 2}
    for chunk, offset in enumerate(offsets):
        y, size = unpack(path, "<ii", data, offset)
        first = y - y_min
        if first != chunk * lines:
            raise BadInput(f"{path}: chunk {chunk} starts at line {y}; expected {y_min + chunk * lines}")
        rows = min(lines, height - first)
        expected = rows * width * pixel_bytes
        payload = data[offset + 8:offset + 8 + size]
        if size < 0 or len(payload) != size:
            raise BadInput(f"{path}: the EXR ends early, in chunk {chunk}")
        # A chunk that deflate would not make smaller is stored as it is.
        raw = payload if compression == "none" or size == expected else unzip_exr(payload, expected)
        if raw is None or len(raw) != expected:
            raise BadInput(f"{path}: chunk {chunk} does not hold {rows} lines of {width} pixels")
        position = 0
        for row in range(first, first + rows):
            for name, pixel_type in channels:
                code, size_of = EXR_PIXEL_TYPES[pixel_type]
                values = raw[position:position + width * size_of]
                position += width * size_of
                if name not in targets:
                    continue
                if code == "e":
                    values = array.array("f", struct.unpack(f"<{width}e", values))
                else:
                    values = array.array(code, values)
                    if sys.byteorder != "little":
                        values.byteswap()
                    if code == "I":
                        values = array.array("f", values)
                start = row * width * 3 + targets[name]
                pixels[start:start + 3 * width:3] = values
    return width, height, pixels


def read_image(path):
    """(width, height, RGB floats top row first) of a colour PFM or an OpenEXR."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        raise BadInput(f"{path}: {error.strerror or error}") from None
    if data.startswith(EXR_MAGIC):
        return read_exr(path, data)
    if data.startswith((b"PF\n", b"Pf\n")):
        return read_pfm(path, data)
    raise BadInput(f"{path}: neither a colour PFM nor an OpenEXR")


def first_at(values, bad, width):
    """How many values are bad, and where the first is: (count, "pixel (x, y) channel C", value)."""
    found = [i for i, v in enumerate(values) if bad(v)]
    i = found[0]
    return len(found), f"pixel ({i // 3 % width}, {i // 3 // width}) channel {'RGB'[i % 3]}", values[i]


def check_values(path, width, values, variance):
    # Summed in double precision, float values overflow nowhere: one NaN or infinity shows in the sum.
    if not math.isfinite(sum(values)):
        count, where, value = first_at(values, lambda v: not math.isfinite(v), width)
        raise BadInput(f"{path}: {count} value(s) are not finite, the first {value} at {where}")
    if variance and values and min(values) < 0:
        count, where, value = first_at(values, lambda v: v < 0, width)
        raise BadInput(f"{path}: {count} negative variance(s), the first {value:g} at {where}; "
                       f"is it the image rather than its variance?")


def flip_of(ptbench, reference, test):
    """The HDR-FLIP of `test` against `reference` as `ptbench flip` computes it (one
    implementation of the metric: ptbench's)."""
    try:
        result = subprocess.run([ptbench, "flip", reference, test, "--json"], capture_output=True, text=True)
    except OSError as error:
        raise BadInput(f"--ptbench {ptbench}: {error.strerror or error}") from None
    if result.returncode != 0:
        raise BadInput(f"{ptbench} flip: {result.stderr.strip() or f'exit {result.returncode}'}")
    return json.loads(result.stdout)["flip"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("a_variance")
    parser.add_argument("b")
    parser.add_argument("b_variance")
    parser.add_argument("--means", type=float, default=0.005)
    parser.add_argument("--sigmas", type=float, default=5.0)
    parser.add_argument("--ptbench", help="a ptbench executable: print the HDR-FLIP of B against A")
    parser.add_argument("--flip-max", type=float, help="with --ptbench: the most HDR-FLIP that agrees")
    args = parser.parse_args()
    if args.flip_max is not None and not (math.isfinite(args.flip_max) and 0 <= args.flip_max <= 1):
        parser.error(f"--flip-max {args.flip_max:g}: expected a FLIP from 0 to 1")
    if args.flip_max is not None and args.ptbench is None:
        parser.error("--flip-max needs --ptbench, which computes FLIP")
    if not (math.isfinite(args.means) and args.means >= 0):
        parser.error(f"--means {args.means:g}: expected a relative difference >= 0")
    if not (math.isfinite(args.sigmas) and args.sigmas > 0):
        parser.error(f"--sigmas {args.sigmas:g}: expected a number of standard errors > 0")
    paths = (args.a, args.a_variance, args.b, args.b_variance)
    try:
        images = [read_image(p) for p in paths]
        if len({(w, h) for w, h, _ in images}) != 1:
            sizes = ", ".join(f"{p} {w}x{h}" for p, (w, h, _) in zip(paths, images))
            raise BadInput(f"the four images differ in size: {sizes}")
        width, height, _ = images[0]
        if width * height == 0:
            raise BadInput(f"{args.a}: the image has no pixels ({width}x{height})")
        for index, (path, (_, _, values)) in enumerate(zip(paths, images)):
            check_values(path, width, values, variance=index % 2 == 1)
    except BadInput as error:
        print(f"compare_images: {error}", file=sys.stderr)
        return 2
    (_, _, a), (_, _, va), (_, _, b), (_, _, vb) = images
    pixels = len(a) // 3
    ok = True
    for c, name in enumerate("RGB"):
        mean_a = sum(a[c::3]) / pixels
        mean_b = sum(b[c::3]) / pixels
        se = math.sqrt(sum(va[c::3]) + sum(vb[c::3])) / pixels
        # Relative to the mean's size, whatever its sign; absolute where A's mean is 0.
        relative = abs(mean_b - mean_a) / abs(mean_a) if mean_a != 0 else abs(mean_b)
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
                print(f"pixel ({i // 3 % width}, {i // 3 // width}) channel {'RGB'[i % 3]}: {a[i]:.6f} vs {b[i]:.6f} "
                      f"(tolerance {tolerance:.6f})")
    print(f"pixels beyond {args.sigmas:g} standard errors: {outliers} of {len(a)} channel values "
          f"(largest difference {worst:.2f} standard errors)")
    ok &= outliers == 0
    if args.ptbench:
        try:
            flip = flip_of(args.ptbench, args.a, args.b)
        except BadInput as error:
            print(f"compare_images: {error}", file=sys.stderr)
            return 2
        good = args.flip_max is None or flip <= args.flip_max
        ok &= good
        limit = "" if args.flip_max is None else f" (at most {args.flip_max:g}) {'ok' if good else 'FAIL'}"
        print(f"HDR-FLIP of {args.b} against {args.a}: {flip:.6f}{limit}")
    print("agree" if ok else "DISAGREE")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
