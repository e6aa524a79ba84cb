// The order in which 1-D launches visit a frame's pixels, shared by the wavefront's generate
// and the raycast's, so that both trace their camera rays in the same coherent order.
#ifndef PTBENCH_PIXEL_ORDER_GLSL
#define PTBENCH_PIXEL_ORDER_GLSL

// The pixel of the k-th job of a sample: pixels in 8x4 tiles, a tile a subgroup of 32, so
// that a subgroup's camera rays are as coherent as those of a 2-D megakernel launch (a 1-D
// scanline order gives 32x1 strips). Pixels outside whole tiles follow: the right strip,
// then the bottom one. A bijection of [0, width x height): only the order of jobs changes.
uint tiledPixel(uint k) {
  uint width = FRAME.width, height = FRAME.height;
  uint tiledWidth = width - width % 8u, tiledHeight = height - height % 4u;
  uvec2 p;
  if (k < tiledWidth * tiledHeight) {
    uint tile = k / 32u, within = k % 32u, tilesX = tiledWidth / 8u;
    p = uvec2((tile % tilesX) * 8u + within % 8u, (tile / tilesX) * 4u + within / 8u);
  } else {
    k -= tiledWidth * tiledHeight;
    uint rightWidth = width - tiledWidth;
    if (k < rightWidth * tiledHeight) {
      p = uvec2(tiledWidth + k % rightWidth, k / rightWidth);
    } else {
      k -= rightWidth * tiledHeight;
      p = uvec2(k % width, tiledHeight + k / width);
    }
  }
  return p.y * width + p.x;
}

#endif
