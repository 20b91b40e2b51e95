#include "types/promotion.h"

namespace weft::types {

namespace {

// The signed integer type of `bytes` bytes.
ScalarKind signedOfSize(int bytes) {
  switch (bytes) {
    case 1: return ScalarKind::Int8;
    case 2: return ScalarKind::Int16;
    case 4: return ScalarKind::Int32;
    default: return ScalarKind::Int64;
  }
}

// The wider of two kinds of the same category.
ScalarKind wider(ScalarKind a, ScalarKind b) { return byteSize(a) >= byteSize(b) ? a : b; }

// The common type of two different real floating kinds: the wider one; two different
// formats of one width take the narrowest type that holds both exactly (float16 and
// bfloat16: float32; float8e4m3 and float8e5m2: float16).
ScalarKind widerFloat(ScalarKind a, ScalarKind b) {
  if (byteSize(a) != byteSize(b)) return wider(a, b);
  return byteSize(a) == 2 ? ScalarKind::Float32 : ScalarKind::Float16;
}

}  // namespace

std::optional<ScalarKind> promote(ScalarKind a, ScalarKind b) {
  if (a == b) return a;
  if (isBool(a)) return b;
  if (isBool(b)) return a;
  if (isComplex(a) || isComplex(b)) {
    ScalarKind complexKind = isComplex(a) ? a : b;
    ScalarKind other = isComplex(a) ? b : a;
    if (isComplex(other)) return wider(a, b);
    if (isFloating(other)) return wider(complexKind, complexFor(other));
    return complexKind;  // integers take the complex type
  }
  if (isFloating(a) || isFloating(b)) {
    if (isFloating(a) && isFloating(b)) return widerFloat(a, b);
    return isFloating(a) ? a : b;  // integers take the floating type
  }
  if (isSigned(a) == isSigned(b)) return wider(a, b);
  ScalarKind signedKind = isSigned(a) ? a : b;
  ScalarKind unsignedKind = isSigned(a) ? b : a;
  if (unsignedKind == ScalarKind::UInt64) return std::nullopt;  // no signed type holds both
  if (byteSize(signedKind) > byteSize(unsignedKind)) return signedKind;
  return signedOfSize(2 * byteSize(unsignedKind));
}

ScalarKind floatingFor(ScalarKind kind) {
  if (isFloating(kind)) return kind;
  if (isComplex(kind)) return kind;
  return byteSize(kind) == 8 ? ScalarKind::Float64 : ScalarKind::Float32;
}

ScalarKind complexFor(ScalarKind kind) {
  if (isComplex(kind)) return kind;
  return byteSize(kind) == 8 ? ScalarKind::Complex128 : ScalarKind::Complex64;
}

ScalarKind realPartOf(ScalarKind kind) {
  if (kind == ScalarKind::Complex64) return ScalarKind::Float32;
  if (kind == ScalarKind::Complex128) return ScalarKind::Float64;
  return kind;
}

}  // namespace weft::types
