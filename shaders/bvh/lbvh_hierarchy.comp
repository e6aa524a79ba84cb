#version 460
#extension GL_GOOGLE_include_directive : require
// Karras 2012, section 4: every inner node of the radix tree over the sorted codes at once. Inner
// node i covers a range of sorted primitives that starts or ends at i; its direction is the
// neighbour with the longer common prefix, its far end is found by an exponential then a binary
// search on the prefix length, and it splits where the prefix length changes. Equal codes
// compare by their index instead (the paper's section 4's tie-break), so every range splits.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { LbvhPush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

// The common prefix length of sorted keys i and j, -1 when j is outside the array.
int commonPrefix(int i, int j) {
  if (j < 0 || j >= int(push.count)) return -1;
  const uint a = UintArray(push.keys).values[i], b = UintArray(push.keys).values[j];
  if (a == b) return 32 + (31 - findMSB(uint(i ^ j)));
  return 31 - findMSB(a ^ b);
}

void main() {
  const uint innerCount = push.count - 1;
  FOR_EACH_ELEMENT(node, innerCount) {
    const int i = int(node);
    const int d = commonPrefix(i, i + 1) - commonPrefix(i, i - 1) > 0 ? 1 : -1;
    // The far end: longer prefixes than with the neighbour on the other side.
    const int minPrefix = commonPrefix(i, i - d);
    int lengthBound = 2;
    while (commonPrefix(i, i + lengthBound * d) > minPrefix) lengthBound *= 2;
    int length = 0;
    for (int step = lengthBound / 2; step >= 1; step /= 2)
      if (commonPrefix(i, i + (length + step) * d) > minPrefix) length += step;
    const int j = i + length * d;
    // The split: the last place, seen from i, whose prefix with i is longer than the node's.
    const int nodePrefix = commonPrefix(i, j);
    int split = 0;
    int step = length;
    do {
      step = (step + 1) / 2;
      if (commonPrefix(i, i + (split + step) * d) > nodePrefix) split += step;
    } while (step > 1);
    const int gamma = i + split * d + min(d, 0);

    const uint first = uint(min(i, j)), last = uint(max(i, j));
    const uint left = first == uint(gamma) ? innerCount + uint(gamma) : uint(gamma);
    const uint right = last == uint(gamma + 1) ? innerCount + uint(gamma + 1) : uint(gamma + 1);
    KarrasNodeArray(push.karrasNodes).nodes[node] = KarrasNode(left, right, first, last);
    UintArray(push.parents).values[left] = node;
    UintArray(push.parents).values[right] = node;
  }
  if (gl_GlobalInvocationID.x == 0) UintArray(push.parents).values[0] = LBVH_NO_PARENT;
}
