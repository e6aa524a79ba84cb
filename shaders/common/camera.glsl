// Pinhole or thin-lens camera with a box filter: the pixel's area is sampled uniformly, and a
// thin lens's disk by Shirley and Chiu's concentric map, every ray of a pixel passing through
// its point on the plane in focus.
#ifndef PTBENCH_CAMERA_GLSL
#define PTBENCH_CAMERA_GLSL

vec2 concentricDisk(vec2 u) {
  vec2 p = 2.0 * u - 1.0;
  if (p.x == 0.0 && p.y == 0.0) return vec2(0.0);
  const float quarterPi = 0.78539816;
  if (abs(p.x) > abs(p.y)) return p.x * vec2(cos(quarterPi * p.y / p.x), sin(quarterPi * p.y / p.x));
  return p.y * vec2(cos(2.0 * quarterPi - quarterPi * p.x / p.y), sin(2.0 * quarterPi - quarterPi * p.x / p.y));
}

void cameraRay(uvec2 pixel, SampleStream stream, out vec3 origin, out vec3 direction) {
  CameraParams camera = FRAME.camera;
  vec2 jitter = sample2D(stream, DIMENSION_CAMERA);
  vec2 ndc = (vec2(pixel) + jitter) / vec2(FRAME.width, FRAME.height) * 2.0 - 1.0;
  origin = camera.position;
  direction = camera.forward + ndc.x * camera.aspect * camera.tanHalfFovY * camera.right -
              ndc.y * camera.tanHalfFovY * camera.up;  // forward has length 1: its tip is on the plane at 1
  if (camera.lensRadius > 0.0) {
    vec3 focus = origin + direction * camera.focusDistance;
    vec2 lens = concentricDisk(sample2D(stream, DIMENSION_LENS)) * camera.lensRadius;
    origin += camera.right * lens.x + camera.up * lens.y;
    direction = focus - origin;
  }
  direction = normalize(direction);
}

#endif
