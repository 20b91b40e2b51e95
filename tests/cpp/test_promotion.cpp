// The promotion table, checked pair by pair against an explicit table (Array API v2023.12
// plus DESIGN.md section 3 for mixed kinds; X = no common type).
#include <gtest/gtest.h>

#include <sstream>

#include "types/promotion.h"

namespace weft::types {
namespace {

// Rows and columns in this order (bf16 = bfloat16, e4m3/e5m2 = float8e4m3/float8e5m2).
constexpr const char* kOrder[] = {"b",   "i8",  "i16",  "i32", "i64", "u8",   "u16",  "u32",  "u64",
                                  "f16", "f32", "f64",  "c64", "c128", "bf16", "e4m3", "e5m2"};

// Narrow floats (docs/types.md): float16 with bfloat16 -> float32 (neither holds the other);
// the two fp8 formats -> float16 (which holds both exactly); an fp8 type with a wider
// floating type -> the wider one; integers with any floating type -> the floating type.
constexpr const char* kTable[] = {
    // b     i8    i16   i32   i64   u8    u16   u32   u64   f16   f32   f64   c64   c128  bf16  e4m3  e5m2
    "b      i8    i16   i32   i64   u8    u16   u32   u64   f16   f32   f64   c64   c128  bf16  e4m3  e5m2",  // b
    "i8     i8    i16   i32   i64   i16   i32   i64   X     f16   f32   f64   c64   c128  bf16  e4m3  e5m2",  // i8
    "i16    i16   i16   i32   i64   i16   i32   i64   X     f16   f32   f64   c64   c128  bf16  e4m3  e5m2",  // i16
    "i32    i32   i32   i32   i64   i32   i32   i64   X     f16   f32   f64   c64   c128  bf16  e4m3  e5m2",  // i32
    "i64    i64   i64   i64   i64   i64   i64   i64   X     f16   f32   f64   c64   c128  bf16  e4m3  e5m2",  // i64
    "u8     i16   i16   i32   i64   u8    u16   u32   u64   f16   f32   f64   c64   c128  bf16  e4m3  e5m2",  // u8
    "u16    i32   i32   i32   i64   u16   u16   u32   u64   f16   f32   f64   c64   c128  bf16  e4m3  e5m2",  // u16
    "u32    i64   i64   i64   i64   u32   u32   u32   u64   f16   f32   f64   c64   c128  bf16  e4m3  e5m2",  // u32
    "u64    X     X     X     X     u64   u64   u64   u64   f16   f32   f64   c64   c128  bf16  e4m3  e5m2",  // u64
    "f16    f16   f16   f16   f16   f16   f16   f16   f16   f16   f32   f64   c64   c128  f32   f16   f16",   // f16
    "f32    f32   f32   f32   f32   f32   f32   f32   f32   f32   f32   f64   c64   c128  f32   f32   f32",   // f32
    "f64    f64   f64   f64   f64   f64   f64   f64   f64   f64   f64   f64   c128  c128  f64   f64   f64",   // f64
    "c64    c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128  c64   c64   c64",   // c64
    "c128   c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128",  // c128
    "bf16   bf16  bf16  bf16  bf16  bf16  bf16  bf16  bf16  f32   f32   f64   c64   c128  bf16  bf16  bf16",  // bf16
    "e4m3   e4m3  e4m3  e4m3  e4m3  e4m3  e4m3  e4m3  e4m3  f16   f32   f64   c64   c128  bf16  e4m3  f16",   // e4m3
    "e5m2   e5m2  e5m2  e5m2  e5m2  e5m2  e5m2  e5m2  e5m2  f16   f32   f64   c64   c128  bf16  f16   e5m2",  // e5m2
};

std::optional<ScalarKind> kindOf(const std::string& abbreviation) {
  if (abbreviation == "X") return std::nullopt;
  if (abbreviation == "b") return ScalarKind::Bool;
  if (abbreviation == "bf16") return ScalarKind::BFloat16;
  if (abbreviation == "e4m3") return ScalarKind::Float8E4M3;
  if (abbreviation == "e5m2") return ScalarKind::Float8E5M2;
  std::string name = abbreviation[0] == 'i' ? "int" + abbreviation.substr(1)
                     : abbreviation[0] == 'u' ? "uint" + abbreviation.substr(1)
                     : abbreviation[0] == 'f' ? "float" + abbreviation.substr(1)
                                              : "complex" + abbreviation.substr(1);
  auto kind = scalarFromName(name);
  EXPECT_TRUE(kind.has_value()) << abbreviation;
  return kind;
}

TEST(Promotion, EveryPairMatchesTheTable) {
  constexpr size_t n = std::size(kOrder);
  static_assert(std::size(kTable) == n);
  int checked = 0;
  for (size_t row = 0; row < n; ++row) {
    std::istringstream cells(kTable[row]);
    for (size_t column = 0; column < n; ++column) {
      std::string cell;
      cells >> cell;
      ScalarKind a = *kindOf(kOrder[row]);
      ScalarKind b = *kindOf(kOrder[column]);
      std::optional<ScalarKind> expected = kindOf(cell);
      std::optional<ScalarKind> actual = promote(a, b);
      EXPECT_EQ(actual.has_value(), expected.has_value()) << kOrder[row] << " with " << kOrder[column];
      if (actual && expected) {
        EXPECT_EQ(pythonName(*actual), std::string(pythonName(*expected))) << kOrder[row] << " with " << kOrder[column];
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 17 * 17);
}

TEST(Promotion, IsSymmetric) {
  for (const char* x : kOrder) {
    for (const char* y : kOrder) {
      EXPECT_EQ(promote(*kindOf(x), *kindOf(y)), promote(*kindOf(y), *kindOf(x))) << x << " " << y;
    }
  }
}

TEST(Promotion, FloatingFor) {
  EXPECT_EQ(floatingFor(ScalarKind::Int32), ScalarKind::Float32);
  EXPECT_EQ(floatingFor(ScalarKind::UInt16), ScalarKind::Float32);
  EXPECT_EQ(floatingFor(ScalarKind::Bool), ScalarKind::Float32);
  EXPECT_EQ(floatingFor(ScalarKind::Int64), ScalarKind::Float64);
  EXPECT_EQ(floatingFor(ScalarKind::UInt64), ScalarKind::Float64);
  EXPECT_EQ(floatingFor(ScalarKind::Float16), ScalarKind::Float16);
  EXPECT_EQ(floatingFor(ScalarKind::BFloat16), ScalarKind::BFloat16);
  EXPECT_EQ(floatingFor(ScalarKind::Float64), ScalarKind::Float64);
  EXPECT_EQ(floatingFor(ScalarKind::Complex64), ScalarKind::Complex64);
}

TEST(Promotion, ComplexForAndRealPart) {
  EXPECT_EQ(complexFor(ScalarKind::Float32), ScalarKind::Complex64);
  EXPECT_EQ(complexFor(ScalarKind::Float64), ScalarKind::Complex128);
  EXPECT_EQ(complexFor(ScalarKind::Int64), ScalarKind::Complex128);
  EXPECT_EQ(complexFor(ScalarKind::Complex64), ScalarKind::Complex64);
  EXPECT_EQ(realPartOf(ScalarKind::Complex64), ScalarKind::Float32);
  EXPECT_EQ(realPartOf(ScalarKind::Complex128), ScalarKind::Float64);
  EXPECT_EQ(realPartOf(ScalarKind::Int8), ScalarKind::Int8);
}

}  // namespace
}  // namespace weft::types
