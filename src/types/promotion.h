// Type promotion between number types: the Array API v2023.12 table, extended as
// DESIGN.md section 3 fixes it for mixed kinds, plus the floating/complex types that
// operations such as `/` and math functions produce.
#pragma once

#include <optional>

#include "types/type.h"

namespace weft::types {

// The common type of two typed operands; nullopt when they have none (a signed integer
// with uint64: the caller asks for an explicit cast).
std::optional<ScalarKind> promote(ScalarKind a, ScalarKind b);

// The floating type a value of `kind` computes in when an operation needs floating point
// (`/`, math functions): float types keep theirs (narrow floats compute through float32 and
// round back, as NumPy does), 64-bit
// integers give float64, other integers and bool give float32 (builtin float).
ScalarKind floatingFor(ScalarKind kind);

// The complex type that holds a value of `kind` without losing precision: complex64 for
// 32-bit or narrower reals, complex128 for 64-bit ones; complex types keep theirs.
ScalarKind complexFor(ScalarKind kind);

// The real type of a complex type's parts (float32 for complex64); reals map to themselves.
ScalarKind realPartOf(ScalarKind kind);

}  // namespace weft::types
