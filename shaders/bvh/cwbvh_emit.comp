#version 460
#extension GL_GOOGLE_include_directive : require
// The CWBVH collapse's last pass, once every level is placed and the leaves' primitive counts
// are scanned into each node's primitiveBase: every wide node writes its CwbvhNode (boxes
// quantised outwards as cwbvh.cpp quantises them) and its leaves' primitives in slot order.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { CwbvhCollapsePush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

// hi - lo exactly, as a float sum and its rounding error (Knuth's TwoSum): cwbvh.cpp works in
// double, where the difference of two floats is exact; floor and ceil then need the error only
// when the rounded quotient is an integer.
void exactDifference(float hi, float lo, out float sum, out float error) {
  const precise float s = hi - lo;
  const precise float b = s - hi;
  const precise float e = (hi - (s - b)) + (-lo - b);
  sum = s;
  error = e;
}

// The smallest power of two whose 255 steps cover hi - lo, as a biased exponent
// (cwbvh.cpp's quantisationExponent).
uint quantisationExponent(float hi, float lo) {
  float extent, error;
  exactDifference(hi, lo, extent, error);
  if (!(extent > 0)) return 1;
  // frexp's exponent of infinity is undefined: the loops below could count from anywhere.
  if (isinf(extent)) return 254;
  int exponent;
  frexp(extent / 255.0, exponent);
  while (ldexp(255.0, exponent - 1) >= extent) --exponent;
  while (ldexp(255.0, exponent) < extent) ++exponent;
  if (ldexp(255.0, exponent) == extent && error > 0) ++exponent;
  return uint(clamp(exponent + 127, 1, 254));
}

uint quantise(float value, float origin, float inverseScale, bool up) {
  float difference, error;
  exactDifference(value, origin, difference, error);
  const precise float q = difference * inverseScale;  // exact: a power of two
  float rounded = up ? ceil(q) : floor(q);
  if (rounded == q && (up ? error > 0 : error < 0)) rounded += up ? 1 : -1;
  return uint(clamp(rounded, 0, 255));
}

void setByte(inout uint word, uint byteIndex, uint value) {
  const uint shift = 8 * (byteIndex % 4);
  word = (word & ~(0xffu << shift)) | ((value & 0xffu) << shift);
}

void main() {
  const uint wideCount = push.levelEnd;
  BoundsArray bounds = BoundsArray(push.nodeBounds);
  FOR_EACH_ELEMENT(wide, wideCount) {
    const BuildBounds box = bounds.bounds[UintArray(push.wideRoots).values[wide]];
    CwbvhNode node;
    node.origin = box.min;
    node.childBase = UintArray(push.innerCounts).values[wide];
    node.primitiveBase = UintArray(push.leafCounts).values[wide];
    node.exponentsAndImask = 0;
    node.meta[0] = node.meta[1] = 0;
    for (uint w = 0; w < 6; ++w) node.quantizedMin[w] = node.quantizedMax[w] = 0;
    float inverseScale[3];
    for (uint axis = 0; axis < 3; ++axis) {
      const uint exponent = quantisationExponent(box.max[axis], box.min[axis]);
      setByte(node.exponentsAndImask, axis, exponent);
      inverseScale[axis] = ldexp(1.0, 127 - int(exponent));
    }
    uint imask = 0, leafOffset = 0;
    for (uint s = 0; s < CWBVH_WIDTH; ++s) {
      const uint entry = UintArray(push.wideSlots).values[CWBVH_WIDTH * wide + s];
      if (entry == CWBVH_SLOT_EMPTY) {
        for (uint axis = 0; axis < 3; ++axis) {
          // Inverted: no ray enters it.
          setByte(node.quantizedMin[(8 * axis + s) / 4], 8 * axis + s, 0xff);
          setByte(node.quantizedMax[(8 * axis + s) / 4], 8 * axis + s, 0);
        }
        continue;
      }
      const uint child = entry & ~CWBVH_SLOT_LEAF;
      const BuildBounds childBox = bounds.bounds[child];
      for (uint axis = 0; axis < 3; ++axis) {
        const uint byteIndex = 8 * axis + s;
        setByte(node.quantizedMin[byteIndex / 4], byteIndex,
                quantise(childBox.min[axis], box.min[axis], inverseScale[axis], false));
        setByte(node.quantizedMax[byteIndex / 4], byteIndex,
                quantise(childBox.max[axis], box.min[axis], inverseScale[axis], true));
      }
      if ((entry & CWBVH_SLOT_LEAF) != 0) {
        uint first = child - (push.count - 1), count = 1;
        if (child < push.count - 1) {
          const KarrasNode inner = KarrasNodeArray(push.karrasNodes).nodes[child];
          first = inner.first;
          count = inner.last - inner.first + 1;
        }
        setByte(node.meta[s / 4], s, (((1u << count) - 1) << 5) | leafOffset);
        for (uint i = 0; i < count; ++i)
          UintArray(push.primitiveOrder).values[node.primitiveBase + leafOffset + i] =
              UintArray(push.sortedOrder).values[first + i];
        leafOffset += count;
      } else {
        setByte(node.meta[s / 4], s, CWBVH_META_INNER | (CWBVH_META_INNER_SLOT_BASE + s));
        imask |= 1u << s;
      }
    }
    setByte(node.exponentsAndImask, 3, imask);
    CwbvhNodeArray(push.wideNodes).nodes[wide] = node;
  }
}
