// Walker's alias method over a table built by buildAliasTable (core/scene/scene_data.cpp).
#ifndef PTBENCH_ALIAS_TABLE_GLSL
#define PTBENCH_ALIAS_TABLE_GLSL
#include "shared/scene.h"

layout(buffer_reference, scalar) readonly buffer AliasTable {
  AliasEntry e[];
};

// The entry comes from 32 random bits in integer arithmetic and the keep-or-alias coin from
// a dimension of its own. Taking both from one float (index = u N, coin = u N - index) leaves
// the coin 24 - log2(N) bits, so with 2^20 entries an entry kept with probability 0.01 was kept
// a sixteenth of the time; and a float index favours some entries whenever N is not a power
// of two.
uint aliasTableSample(AliasTable table, uint count, uint indexBits, float coin) {
  uint index;
  uint low;
  umulExtended(indexBits, count, index, low);  // floor(indexBits * count / 2^32)
  return coin < table.e[index].probability ? index : table.e[index].alias;
}

#endif
