// The little linear algebra the scene code needs on the CPU. Matrices are column-major, as
// glTF stores them.
#pragma once
#include <array>
#include <cmath>

namespace ptbench {

struct Vec3 {
  float x = 0, y = 0, z = 0;
  Vec3 operator+(Vec3 o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator-(Vec3 o) const { return {x - o.x, y - o.y, z - o.z}; }
  Vec3 operator*(float s) const { return {x * s, y * s, z * s}; }
  float operator[](int i) const { return i == 0 ? x : i == 1 ? y : z; }
  bool operator==(const Vec3&) const = default;
};

inline float dot(Vec3 a, Vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline float length(Vec3 v) {
  return std::sqrt(dot(v, v));
}
inline Vec3 normalize(Vec3 v) {
  const float l = length(v);
  return l > 0 ? v * (1.0f / l) : Vec3{0, 0, 1};
}
// Rec. 709 luminance: what the light list weighs an emitter's radiance by, and FLIP its exposures.
inline float luminance(Vec3 c) {
  return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z;
}
// std::fmin and std::fmax (a NaN loses to a number), written so that GCC compiles them to
// minss/maxss rather than calls into libm: the BVH builder spends most of its time growing boxes.
inline float minNumber(float a, float b) {
  a = a != a ? b : a;
  return b < a ? b : a;
}
inline float maxNumber(float a, float b) {
  a = a != a ? b : a;
  return b > a ? b : a;
}
inline Vec3 min(Vec3 a, Vec3 b) {
  return {minNumber(a.x, b.x), minNumber(a.y, b.y), minNumber(a.z, b.z)};
}
inline Vec3 max(Vec3 a, Vec3 b) {
  return {maxNumber(a.x, b.x), maxNumber(a.y, b.y), maxNumber(a.z, b.z)};
}

struct Mat4 {
  std::array<float, 16> m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};  // column-major
  float at(int row, int column) const { return m[column * 4 + row]; }
  float& at(int row, int column) { return m[column * 4 + row]; }

  Mat4 operator*(const Mat4& o) const {
    Mat4 r;
    for (int row = 0; row < 4; ++row)
      for (int column = 0; column < 4; ++column) {
        float sum = 0;
        for (int k = 0; k < 4; ++k) sum += at(row, k) * o.at(k, column);
        r.at(row, column) = sum;
      }
    return r;
  }
  Vec3 transformPoint(Vec3 p) const {
    return {at(0, 0) * p.x + at(0, 1) * p.y + at(0, 2) * p.z + at(0, 3),
            at(1, 0) * p.x + at(1, 1) * p.y + at(1, 2) * p.z + at(1, 3),
            at(2, 0) * p.x + at(2, 1) * p.y + at(2, 2) * p.z + at(2, 3)};
  }
  Vec3 transformVector(Vec3 v) const {
    return {at(0, 0) * v.x + at(0, 1) * v.y + at(0, 2) * v.z, at(1, 0) * v.x + at(1, 1) * v.y + at(1, 2) * v.z,
            at(2, 0) * v.x + at(2, 1) * v.y + at(2, 2) * v.z};
  }
  // In double: a scale of 1e13 on each axis, within the bounds on coordinates, has a determinant
  // of 1e39, beyond float.
  double determinant3x3() const {
    const auto c = [&](int row, int column) { return double(at(row, column)); };
    return c(0, 0) * (c(1, 1) * c(2, 2) - c(1, 2) * c(2, 1)) - c(0, 1) * (c(1, 0) * c(2, 2) - c(1, 2) * c(2, 0)) +
           c(0, 2) * (c(1, 0) * c(2, 1) - c(1, 1) * c(2, 0));
  }
  // Inverse transpose of the upper 3x3, for normals (cofactor matrix over the determinant).
  Mat4 normalMatrix() const {
    Mat4 r;
    const auto c = [&](int row, int column) { return at(row, column); };
    double det = determinant3x3();
    if (det == 0) det = 1;
    for (int row = 0; row < 3; ++row)
      for (int column = 0; column < 3; ++column) {
        const int r0 = (row + 1) % 3, r1 = (row + 2) % 3, c0 = (column + 1) % 3, c1 = (column + 2) % 3;
        r.at(row, column) = float(double(c(r0, c0) * c(r1, c1) - c(r0, c1) * c(r1, c0)) / det);
      }
    return r;
  }

  static Mat4 translation(Vec3 t) {
    Mat4 r;
    r.at(0, 3) = t.x;
    r.at(1, 3) = t.y;
    r.at(2, 3) = t.z;
    return r;
  }
  static Mat4 scale(Vec3 s) {
    Mat4 r;
    r.at(0, 0) = s.x;
    r.at(1, 1) = s.y;
    r.at(2, 2) = s.z;
    return r;
  }
  // From a unit quaternion (x, y, z, w), as glTF stores rotations.
  static Mat4 rotation(float x, float y, float z, float w) {
    Mat4 r;
    r.at(0, 0) = 1 - 2 * (y * y + z * z);
    r.at(0, 1) = 2 * (x * y - z * w);
    r.at(0, 2) = 2 * (x * z + y * w);
    r.at(1, 0) = 2 * (x * y + z * w);
    r.at(1, 1) = 1 - 2 * (x * x + z * z);
    r.at(1, 2) = 2 * (y * z - x * w);
    r.at(2, 0) = 2 * (x * z - y * w);
    r.at(2, 1) = 2 * (y * z + x * w);
    r.at(2, 2) = 1 - 2 * (x * x + y * y);
    return r;
  }
};

}  // namespace ptbench
