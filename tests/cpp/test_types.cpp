// Types: scalar properties, name parsing, interning and rendering.
#include <gtest/gtest.h>

#include "types/type.h"

namespace weft::types {
namespace {

TEST(Types, ScalarProperties) {
  EXPECT_STREQ(pythonName(ScalarKind::Float32), "float32");
  EXPECT_STREQ(cxxName(ScalarKind::Float64), "double");
  EXPECT_STREQ(cxxName(ScalarKind::UInt16), "uint16_t");
  EXPECT_EQ(byteSize(ScalarKind::Int64), 8);
  EXPECT_EQ(byteSize(ScalarKind::Complex128), 16);
  EXPECT_EQ(byteSize(ScalarKind::Bool), 1);
  EXPECT_TRUE(isBool(ScalarKind::Bool));
  EXPECT_FALSE(isInteger(ScalarKind::Bool));
  EXPECT_TRUE(isInteger(ScalarKind::UInt8));
  EXPECT_TRUE(isSigned(ScalarKind::Int8));
  EXPECT_FALSE(isSigned(ScalarKind::UInt8));
  EXPECT_TRUE(isUnsigned(ScalarKind::UInt64));
  EXPECT_TRUE(isFloating(ScalarKind::Float16));
  EXPECT_FALSE(isFloating(ScalarKind::Complex64));
  EXPECT_TRUE(isComplex(ScalarKind::Complex64));
}

TEST(Types, ScalarFromName) {
  EXPECT_EQ(scalarFromName("int"), ScalarKind::Int32);
  EXPECT_EQ(scalarFromName("float"), ScalarKind::Float32);
  EXPECT_EQ(scalarFromName("complex"), ScalarKind::Complex64);
  EXPECT_EQ(scalarFromName("bool"), ScalarKind::Bool);
  EXPECT_EQ(scalarFromName("bool_"), ScalarKind::Bool);
  EXPECT_EQ(scalarFromName("uint32"), ScalarKind::UInt32);
  EXPECT_EQ(scalarFromName("complex128"), ScalarKind::Complex128);
  EXPECT_FALSE(scalarFromName("float128").has_value());
  EXPECT_FALSE(scalarFromName("").has_value());
}

TEST(Types, InterningGivesOnePointerPerType) {
  TypeContext types;
  EXPECT_EQ(types.scalar(ScalarKind::Int32), types.scalar(ScalarKind::Int32));
  EXPECT_NE(types.scalar(ScalarKind::Int32), types.scalar(ScalarKind::UInt32));
  EXPECT_EQ(types.array(ScalarKind::Float32, 2), types.array(ScalarKind::Float32, 2));
  EXPECT_NE(types.array(ScalarKind::Float32, 2), types.array(ScalarKind::Float32, 1));
  EXPECT_NE(types.array(ScalarKind::Float32, 2), types.array(ScalarKind::Float32, 2, MemorySpace::Shared));
  const Type* pair = types.tuple({types.scalar(ScalarKind::Int32), types.scalar(ScalarKind::Float32)});
  EXPECT_EQ(pair, types.tuple({types.scalar(ScalarKind::Int32), types.scalar(ScalarKind::Float32)}));
  EXPECT_NE(pair, types.tuple({types.scalar(ScalarKind::Float32), types.scalar(ScalarKind::Int32)}));
  EXPECT_EQ(types.tuple({pair, pair}), types.tuple({pair, pair}));
  EXPECT_TRUE(types.error()->isError());
  EXPECT_EQ(types.none()->kind, TypeKind::None);
  EXPECT_NE(types.none(), types.error());
}

TEST(Types, Rendering) {
  TypeContext types;
  EXPECT_EQ(toString(types.scalar(ScalarKind::Float32)), "float32");
  EXPECT_EQ(toString(types.array(ScalarKind::Float32, 2)), "array(float32, 2d)");
  EXPECT_EQ(toString(types.array(ScalarKind::Int8, 1, MemorySpace::Shared)), "array(int8, 1d, shared)");
  EXPECT_EQ(toString(types.array(ScalarKind::Int8, 3, MemorySpace::Local)), "array(int8, 3d, local)");
  EXPECT_EQ(toString(types.tuple({types.scalar(ScalarKind::Int32), types.scalar(ScalarKind::Float32)})),
            "tuple(int32, float32)");
  EXPECT_EQ(toString(types.none()), "None");
}

}  // namespace
}  // namespace weft::types
