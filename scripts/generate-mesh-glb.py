#!/usr/bin/env python3
"""Write a large glTF binary (.glb) of unique triangles, for measuring how ptbench loads and
builds production-scale scenes without shipping one.

The scene is a square of M meshes side by side, each a rippled height field of its own vertices
(positions, normals, texture coordinates, 32-bit indices), so that no triangle is instanced and
the loader processes every vertex. Only the Python standard library is used.

    scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 big.glb
"""

import argparse
import array
import json
import math
import os
import struct
import sys
import tempfile


def grid_side(triangles_per_mesh):
    """Cells a side of a square grid with about this many triangles (two a cell)."""
    return max(1, round(math.sqrt(triangles_per_mesh / 2)))


def height(x, z):
    return 0.02 * math.sin(17.0 * x) * math.cos(13.0 * z)


def mesh_arrays(side, origin_x, origin_z, size):
    """Positions, normals, texture coordinates and indices of one height-field tile."""
    n = side + 1
    positions = array.array("f")
    normals = array.array("f")
    uvs = array.array("f")
    step = size / side
    for j in range(n):
        z = origin_z + j * step
        for i in range(n):
            x = origin_x + i * step
            y = height(x, z)
            # The height field's normal from its analytic derivatives.
            dx = 0.02 * 17.0 * math.cos(17.0 * x) * math.cos(13.0 * z)
            dz = -0.02 * 13.0 * math.sin(17.0 * x) * math.sin(13.0 * z)
            length = math.sqrt(dx * dx + 1.0 + dz * dz)
            positions.extend((x, y, z))
            normals.extend((-dx / length, 1.0 / length, -dz / length))
            uvs.extend((i / side, j / side))
    indices = array.array("I")
    for j in range(side):
        row = j * n
        for i in range(side):
            a = row + i
            b = a + 1
            c = a + n
            d = c + 1
            indices.extend((a, c, b, b, c, d))
    return positions, normals, uvs, indices


def bounds(positions):
    xs, ys, zs = positions[0::3], positions[1::3], positions[2::3]
    return [min(xs), min(ys), min(zs)], [max(xs), max(ys), max(zs)]


def write_glb(path, triangles, meshes):
    tiles = math.ceil(math.sqrt(meshes))
    side = grid_side(triangles / meshes)
    tile_size = 1.0 / tiles
    gltf = {
        "asset": {"version": "2.0", "generator": "ptbench scripts/generate-mesh-glb.py"},
        "scene": 0,
        "scenes": [{"nodes": list(range(meshes))}],
        "nodes": [],
        "meshes": [],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [0.8, 0.8, 0.8, 1], "metallicFactor": 0,
                                                "roughnessFactor": 0.6}}],
        "accessors": [],
        "bufferViews": [],
        "buffers": [],
    }
    directory = os.path.dirname(os.path.abspath(path))
    # The binary chunk is streamed to a temporary file first: its size is known only at the end.
    with tempfile.TemporaryFile(dir=directory) as binary:
        offset = 0

        def add_view(data, target, component_type, kind, count, minimum=None, maximum=None):
            nonlocal offset
            raw = data.tobytes()
            binary.write(raw)
            gltf["bufferViews"].append({"buffer": 0, "byteOffset": offset, "byteLength": len(raw), "target": target})
            accessor = {"bufferView": len(gltf["bufferViews"]) - 1, "componentType": component_type, "count": count,
                        "type": kind}
            if minimum is not None:
                accessor["min"], accessor["max"] = minimum, maximum
            gltf["accessors"].append(accessor)
            offset += len(raw)  # every array holds 4-byte elements, so views stay 4-byte aligned
            return len(gltf["accessors"]) - 1

        for m in range(meshes):
            origin_x, origin_z = (m % tiles) * tile_size - 0.5, (m // tiles) * tile_size - 0.5
            positions, normals, uvs, indices = mesh_arrays(side, origin_x, origin_z, tile_size)
            vertex_count = len(positions) // 3
            low, high = bounds(positions)
            attributes = {
                "POSITION": add_view(positions, 34962, 5126, "VEC3", vertex_count, low, high),
                "NORMAL": add_view(normals, 34962, 5126, "VEC3", vertex_count),
                "TEXCOORD_0": add_view(uvs, 34962, 5126, "VEC2", vertex_count),
            }
            index_accessor = add_view(indices, 34963, 5125, "SCALAR", len(indices))
            gltf["meshes"].append({"primitives": [{"attributes": attributes, "indices": index_accessor,
                                                   "material": 0}]})
            gltf["nodes"].append({"mesh": m})
            print(f"\rmesh {m + 1}/{meshes}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        gltf["buffers"].append({"byteLength": offset})
        header = json.dumps(gltf, separators=(",", ":")).encode()
        header += b" " * (-len(header) % 4)
        total = 12 + 8 + len(header) + 8 + offset
        temporary = path + ".part"
        with open(temporary, "wb") as out:
            out.write(struct.pack("<III", 0x46546C67, 2, total))
            out.write(struct.pack("<II", len(header), 0x4E4F534A))
            out.write(header)
            out.write(struct.pack("<II", offset, 0x004E4942))
            binary.seek(0)
            while chunk := binary.read(1 << 24):
                out.write(chunk)
        os.replace(temporary, path)
    return meshes * side * side * 2


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", help="the .glb file to write")
    parser.add_argument("--triangles", type=int, default=1_000_000, help="about how many unique triangles")
    parser.add_argument("--meshes", type=int, default=16, help="how many meshes (nodes) share them")
    args = parser.parse_args()
    if args.triangles < 2 or args.meshes < 1:
        parser.error("--triangles must be at least 2 and --meshes at least 1")
    written = write_glb(args.output, args.triangles, args.meshes)
    print(f"{args.output}: {written} triangles in {args.meshes} meshes", file=sys.stderr)


if __name__ == "__main__":
    main()
