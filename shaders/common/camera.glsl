// Pinhole camera with a box filter: the pixel's area is sampled uniformly.
#ifndef PTBENCH_CAMERA_GLSL
#define PTBENCH_CAMERA_GLSL

void cameraRay(uvec2 pixel, SampleStream stream, out vec3 origin, out vec3 direction) {
  CameraParams camera = FRAME.camera;
  vec2 jitter = sample2D(stream, DIMENSION_CAMERA);
  vec2 ndc = (vec2(pixel) + jitter) / vec2(FRAME.width, FRAME.height) * 2.0 - 1.0;
  origin = camera.position;
  direction = normalize(camera.forward + ndc.x * camera.aspect * camera.tanHalfFovY * camera.right -
                        ndc.y * camera.tanHalfFovY * camera.up);
}

#endif
