// Types: scalar properties, name parsing, interning and rendering.
#include <gtest/gtest.h>

#include <string>

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

// Every name and code of a kind leads back to it: the lookups and the columns are one table.
TEST(Types, ScalarKindTableRoundTrips) {
  ASSERT_EQ(kScalarKindCount, 18u);
  for (size_t i = 0; i < kScalarKindCount; ++i) {
    auto kind = static_cast<ScalarKind>(i);
    if (!hasHostType(kind)) {
      // tfloat32, a tile element type only: no name, dtype or DLPack code of the host finds it.
      EXPECT_EQ(kind, ScalarKind::TFloat32);
      EXPECT_EQ(scalarFromName(pythonName(kind)), std::nullopt);
      EXPECT_EQ(scalarFromDtypeName(dtypeName(kind)), std::nullopt);
      EXPECT_NE(scalarFromDLPack(dlpackType(kind)), kind);
      continue;
    }
    EXPECT_EQ(scalarFromName(pythonName(kind)), kind) << pythonName(kind);
    EXPECT_EQ(scalarFromName(attributeName(kind)), kind) << pythonName(kind);
    EXPECT_EQ(scalarFromName(dtypeName(kind)), kind) << pythonName(kind);
    EXPECT_EQ(scalarFromDtypeName(dtypeName(kind)), kind) << pythonName(kind);
    EXPECT_EQ(scalarFromDLPack(dlpackType(kind)), kind) << pythonName(kind);
    EXPECT_EQ(dlpackType(kind).bits, 8 * byteSize(kind)) << pythonName(kind);
    std::string typestrText = typestr(kind);
    EXPECT_EQ(typestrText.empty(), isNarrowFloat(kind) && kind != ScalarKind::Float16) << pythonName(kind);
    if (!typestrText.empty()) {
      EXPECT_EQ(scalarFromTypestr(typestrText), kind) << typestrText;
      EXPECT_EQ(std::stoi(typestrText.substr(2)), byteSize(kind)) << typestrText;
    }
  }
}

TEST(Types, ScalarKindCodes) {
  // dlpack.h's DLDataTypeCode values.
  EXPECT_EQ(dlpackType(ScalarKind::Bool), (DLPackType{6, 8}));
  EXPECT_EQ(dlpackType(ScalarKind::Int16), (DLPackType{0, 16}));
  EXPECT_EQ(dlpackType(ScalarKind::UInt64), (DLPackType{1, 64}));
  EXPECT_EQ(dlpackType(ScalarKind::Float16), (DLPackType{2, 16}));
  EXPECT_EQ(dlpackType(ScalarKind::BFloat16), (DLPackType{4, 16}));
  EXPECT_EQ(dlpackType(ScalarKind::Complex128), (DLPackType{5, 128}));
  EXPECT_EQ(dlpackType(ScalarKind::Float8E4M3), (DLPackType{10, 8}));
  EXPECT_EQ(dlpackType(ScalarKind::Float8E5M2), (DLPackType{12, 8}));
  EXPECT_FALSE(scalarFromDLPack(DLPackType{2, 8}).has_value());
  EXPECT_FALSE(scalarFromDLPack(DLPackType{4, 32}).has_value());
  EXPECT_FALSE(scalarFromDLPack(DLPackType{3, 64}).has_value());
  // Array-interface typestrs: '|' and '=' read as the little-endian '<'; big-endian and the
  // formats no typestr names are unknown.
  EXPECT_EQ(scalarFromTypestr("<b1"), ScalarKind::Bool);
  EXPECT_EQ(scalarFromTypestr("|u1"), ScalarKind::UInt8);
  EXPECT_EQ(scalarFromTypestr("=i8"), ScalarKind::Int64);
  EXPECT_EQ(scalarFromTypestr("<c16"), ScalarKind::Complex128);
  EXPECT_FALSE(scalarFromTypestr(">f4").has_value());
  EXPECT_FALSE(scalarFromTypestr("<V2").has_value());
  EXPECT_FALSE(scalarFromTypestr("<f1").has_value());
  EXPECT_FALSE(scalarFromTypestr("<f").has_value());
  EXPECT_FALSE(scalarFromTypestr("").has_value());
  // Host dtypes: ml_dtypes names the fp8 types differently from weft.
  EXPECT_STREQ(dtypeName(ScalarKind::Float8E4M3), "float8_e4m3fn");
  EXPECT_STREQ(dtypeModule(ScalarKind::Float8E4M3), "ml_dtypes");
  EXPECT_STREQ(dtypeModule(ScalarKind::Float16), "numpy");
  EXPECT_STREQ(attributeName(ScalarKind::Bool), "bool_");
  EXPECT_FALSE(scalarFromDtypeName("int").has_value());
  EXPECT_FALSE(scalarFromDtypeName("float8e4m3").has_value());
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

TEST(Types, LaunchFactsMakeDistinctArrayTypesThatPrintAlike) {
  TypeContext types;
  const Type* plain = types.array(ScalarKind::Float32, 2);
  const Type* fast = types.withFacts(plain, 15);
  EXPECT_NE(plain, fast);
  EXPECT_EQ(fast, types.withFacts(types.array(ScalarKind::Float32, 2), 15));
  EXPECT_EQ(types.withoutFacts(fast), plain);
  EXPECT_EQ(toString(fast), toString(plain));
  const Type* view = types.tileView(fast, {1, 64}, 0);
  EXPECT_EQ(types.withoutFacts(types.tuple({view, fast})), types.tuple({types.tileView(plain, {1, 64}, 0), plain}));
}

}  // namespace
}  // namespace weft::types
