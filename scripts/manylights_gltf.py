#!/usr/bin/env python3
"""Write a many-lights glTF scene: a floor, a back wall and a few blocks lit by N small emissive
triangles (the glTF counterpart of builtin:manylights, for ReSTIR DI's light sampling through
the glTF loader).

The lights are scattered from a fixed seed, eight hues at four strengths
(KHR_materials_emissive_strength) and of varied sizes, double-sided, with no other light; their
strengths are scaled so that the lights' total power (luminance times area) is the same for
every N. One .gltf file with its buffer embedded as a data: URI and a camera. The same
arguments give the same bytes. Only the Python standard library is used.

    scripts/manylights_gltf.py --lights 1024 scenes/ManyLights/ManyLights.gltf
"""

import argparse
import base64
import json
import math
import struct
import sys

HUES = 8
STRENGTHS = 4
TOTAL_POWER = 230.0  # luminance x square metres, over every light
FLOOR_HALF_SIZE = 10.0
MAX_LIGHTS = 1 << 16


class SplitMix64:
    """The same stream on every platform and Python version (random's methods beyond random()
    do not promise that)."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFFFFFFFFFF

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next() >> 40) / float(1 << 24)

    def between(self, lowest, highest):
        return lowest + (highest - lowest) * self.uniform()

    def below(self, bound):
        return ((self.next() >> 32) * bound) >> 32


def sub(a, b):
    return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def normalize(v):
    length = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    return [v[0] / length, v[1] / length, v[2] / length]


def luminance(c):
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def hue_color(i):
    """Well-spread hues (golden-ratio steps), the brightest channel 1 as emissiveFactor wants."""
    hue = i * 0.618034
    c = [0.5 + 0.5 * math.cos(2 * math.pi * (hue + shift)) for shift in (0.0, 0.333, 0.667)]
    top = max(c)
    return [x / top for x in c]


def quad(corners, facing):
    """Two triangles (six vertices) of a planar quad, wound so that their normal is `facing`."""
    a, b, c, d = corners
    if sum(x * y for x, y in zip(cross(sub(b, a), sub(c, a)), facing)) < 0:
        b, d = d, b
    return [a, b, c, a, c, d]


def box(lo, hi):
    """A block's five visible faces (no bottom), facing out."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    return (quad([[x0, y0, z0], [x0, y1, z0], [x0, y1, z1], [x0, y0, z1]], [-1, 0, 0]) +
            quad([[x1, y0, z0], [x1, y1, z0], [x1, y1, z1], [x1, y0, z1]], [1, 0, 0]) +
            quad([[x0, y1, z0], [x1, y1, z0], [x1, y1, z1], [x0, y1, z1]], [0, 1, 0]) +
            quad([[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0]], [0, 0, -1]) +
            quad([[x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]], [0, 0, 1]))


BLOCKS = [([-5, 0, -5], [-3, 2, -3]), ([-0.6, 0, -8], [0.6, 3.5, -7]), ([3, 0, -4], [6, 1, -1.5]),
          ([-2, 0, 1], [-1.5, 3, 1.5]), ([2, 0, 3], [2.5, 3, 3.5])]


def inside_block(p, margin):
    return any(all(lo[k] - margin < p[k] < hi[k] + margin for k in range(3)) for lo, hi in BLOCKS)


def scatter_lights(count, seed):
    """(corners, hue, strength level) of each light."""
    random = SplitMix64(seed)
    lights = []
    while len(lights) < count:
        centre = [random.between(-9, 9), random.between(0.3, 3.5), random.between(-8, 9)]
        # A light inside a block would be lost to the image: drawn again.
        if inside_block(centre, 0.2):
            continue
        # Facing down, tilted up to about 40 degrees.
        normal = normalize([random.between(-0.8, 0.8), -1, random.between(-0.8, 0.8)])
        tangent = normalize(cross(normal, [0, 0, 1]))
        bitangent = cross(normal, tangent)
        radius = random.between(0.05, 0.15)
        turn = random.between(0, 2 * math.pi)
        hue = random.below(HUES)
        strength = random.below(STRENGTHS)
        corners = []
        for k in range(3):
            angle = turn + k * 2 * math.pi / 3
            corners.append([centre[i] + radius * (tangent[i] * math.cos(angle) + bitangent[i] * math.sin(angle))
                            for i in range(3)])
        lights.append((corners, hue, strength))
    return lights


def triangle_area(corners):
    n = cross(sub(corners[1], corners[0]), sub(corners[2], corners[0]))
    return 0.5 * math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])


def look_at_rotation(position, target):
    """The unit quaternion (x, y, z, w) that turns glTF's camera (looking down -Z, +Y up) to look
    from `position` at `target`."""
    back = normalize(sub(position, target))
    right = normalize(cross([0, 1, 0], back))
    up = cross(back, right)
    m = [[right[0], up[0], back[0]], [right[1], up[1], back[1]], [right[2], up[2], back[2]]]
    trace = m[0][0] + m[1][1] + m[2][2]
    if trace > 0:
        s = 2 * math.sqrt(1 + trace)
        return [(m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s, s / 4]
    if m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = 2 * math.sqrt(1 + m[0][0] - m[1][1] - m[2][2])
        return [s / 4, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s, (m[2][1] - m[1][2]) / s]
    if m[1][1] > m[2][2]:
        s = 2 * math.sqrt(1 + m[1][1] - m[0][0] - m[2][2])
        return [(m[0][1] + m[1][0]) / s, s / 4, (m[1][2] + m[2][1]) / s, (m[0][2] - m[2][0]) / s]
    s = 2 * math.sqrt(1 + m[2][2] - m[0][0] - m[1][1])
    return [(m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, s / 4, (m[1][0] - m[0][1]) / s]


def gltf_document(count, seed):
    buffer = bytearray()
    accessors, views = [], []

    def add_triangles(positions):
        """Accessors of POSITION and NORMAL (flat: each triangle's own) for a triangle list."""
        normals = []
        for t in range(0, len(positions), 3):
            n = normalize(cross(sub(positions[t + 1], positions[t]), sub(positions[t + 2], positions[t])))
            normals += [n, n, n]
        attributes = {}
        for name, values in (("POSITION", positions), ("NORMAL", normals)):
            packed = b"".join(struct.pack("<3f", *v) for v in values)
            views.append({"buffer": 0, "byteOffset": len(buffer), "byteLength": len(packed), "target": 34962})
            buffer.extend(packed)
            accessor = {"bufferView": len(views) - 1, "componentType": 5126, "count": len(values), "type": "VEC3"}
            if name == "POSITION":
                # The bounds of the float32 values as stored, as glTF requires them.
                stored = [struct.unpack("<3f", struct.pack("<3f", *v)) for v in values]
                accessor["min"] = [min(v[k] for v in stored) for k in range(3)]
                accessor["max"] = [max(v[k] for v in stored) for k in range(3)]
            accessors.append(accessor)
            attributes[name] = len(accessors) - 1
        return attributes

    def diffuse(name, albedo):
        return {"name": name, "doubleSided": True,
                "pbrMetallicRoughness": {"baseColorFactor": albedo + [1], "metallicFactor": 0, "roughnessFactor": 1}}

    materials = [diffuse("floor", [0.55, 0.55, 0.52]), diffuse("blocks", [0.7, 0.7, 0.7])]
    h = FLOOR_HALF_SIZE
    ground = (quad([[-h, 0, -h], [h, 0, -h], [h, 0, h], [-h, 0, h]], [0, 1, 0]) +
              quad([[-h, 0, -h], [h, 0, -h], [h, 5, -h], [-h, 5, -h]], [0, 0, 1]))
    blocks = [corner for lo, hi in BLOCKS for corner in box(lo, hi)]
    yard = [{"attributes": add_triangles(ground), "material": 0},
            {"attributes": add_triangles(blocks), "material": 1}]

    lights = scatter_lights(count, seed)
    strength_of = [3.0 ** level for level in range(STRENGTHS)]
    weighted_area = sum(luminance(hue_color(hue)) * strength_of[level] * triangle_area(corners)
                        for corners, hue, level in lights)
    scale = TOTAL_POWER / weighted_area
    emitters = []
    for hue in range(HUES):
        for level in range(STRENGTHS):
            positions = [c for corners, light_hue, light_level in lights if (light_hue, light_level) == (hue, level)
                         for c in corners]
            if not positions:
                continue
            materials.append({
                "name": "light %d.%d" % (hue, level), "doubleSided": True,
                "pbrMetallicRoughness": {"baseColorFactor": [0, 0, 0, 1], "metallicFactor": 0, "roughnessFactor": 1},
                "emissiveFactor": hue_color(hue),
                "extensions": {"KHR_materials_emissive_strength": {
                    "emissiveStrength": float("%.6g" % (scale * strength_of[level]))}},
            })
            emitters.append({"attributes": add_triangles(positions), "material": len(materials) - 1})

    camera_position, camera_target = [0, 7, 18], [0, 0.5, 0]
    while len(buffer) % 4:
        buffer.append(0)
    return {
        "asset": {"version": "2.0", "generator": "ptbench scripts/manylights_gltf.py --lights %d --seed %d"
                  % (count, seed)},
        "extensionsUsed": ["KHR_materials_emissive_strength"],
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2]}],
        "nodes": [{"name": "yard", "mesh": 0}, {"name": "lights", "mesh": 1},
                  {"name": "camera", "camera": 0, "translation": camera_position,
                   "rotation": look_at_rotation(camera_position, camera_target)}],
        "cameras": [{"type": "perspective", "perspective": {"yfov": math.radians(45), "znear": 0.1}}],
        "meshes": [{"name": "yard", "primitives": yard}, {"name": "lights", "primitives": emitters}],
        "materials": materials,
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(buffer),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(buffer)).decode()}],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the .gltf file to write")
    parser.add_argument("--lights", type=int, default=1024, help="emissive triangles, 1 to %d" % MAX_LIGHTS)
    parser.add_argument("--seed", type=int, default=1, help="where the lights fall")
    args = parser.parse_args()
    if not 1 <= args.lights <= MAX_LIGHTS:
        sys.exit("--lights must be from 1 to %d (it was %d)" % (MAX_LIGHTS, args.lights))
    document = gltf_document(args.lights, args.seed)
    with open(args.out, "w", newline="\n") as out:
        json.dump(document, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
