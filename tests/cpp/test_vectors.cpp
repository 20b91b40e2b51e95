// Vector and narrow-float types: interning, names, layout checks of the device headers
// against CUDA's own types (nvcc for sm_90, where offsetof is a constant expression), and the
// narrow formats' host conversions.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "types/type.h"
#include "weft/device/fp16.h"
#include "weft/device/vector.h"

namespace weft {
namespace {

TEST(Vectors, NamesAndInterning) {
  types::TypeContext context;
  auto parsed = types::vectorFromName("float32x4");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->first, types::ScalarKind::Float32);
  EXPECT_EQ(parsed->second, 4);
  EXPECT_TRUE(types::vectorFromName("bfloat16x2").has_value());
  EXPECT_TRUE(types::vectorFromName("float8e5m2x3").has_value());
  EXPECT_FALSE(types::vectorFromName("float32x5").has_value());
  EXPECT_FALSE(types::vectorFromName("complex64x2").has_value());
  EXPECT_FALSE(types::vectorFromName("boolx2").has_value());
  EXPECT_FALSE(types::vectorFromName("intx2").has_value());
  const types::Type* v = context.vector(types::ScalarKind::UInt32, 3);
  EXPECT_EQ(v, context.vector(types::ScalarKind::UInt32, 3));
  EXPECT_NE(v, context.vector(types::ScalarKind::UInt32, 2));
  EXPECT_EQ(types::toString(v), "uint32x3");
}

TEST(Vectors, HostLayoutFollowsCudaAlignment) {
  EXPECT_EQ(alignof(Vector<int8_t, 2>), 2u);
  EXPECT_EQ(alignof(Vector<int8_t, 4>), 4u);
  EXPECT_EQ(alignof(Vector<int32_t, 3>), 4u);
  EXPECT_EQ(alignof(Vector<double, 2>), 16u);
  EXPECT_EQ(sizeof(Vector<float16, 2>), 4u);
  EXPECT_EQ(alignof(Vector<float16, 2>), 4u);
  EXPECT_EQ(sizeof(Vector<float8e4m3, 4>), 4u);
  EXPECT_EQ(alignof(Vector<float8e4m3, 4>), 4u);
}

// Every bit pattern of each narrow format decodes to a value that encodes back to it.
TEST(NarrowFloats, EveryPatternRoundTrips) {
  int checked = 0;
  for (unsigned bits = 0; bits < 65536; ++bits) {
    float h = detail::Float16Format::decode(bits);
    float b = detail::BFloat16Format::decode(bits);
    if (h == h) {
      EXPECT_EQ(detail::Float16Format::encode(h), bits) << bits;
    }
    if (b == b) {
      EXPECT_EQ(detail::BFloat16Format::encode(b), bits) << bits;
    }
    checked += 2;
  }
  for (unsigned bits = 0; bits < 256; ++bits) {
    float e4 = detail::Float8E4M3Format::decode(bits);
    float e5 = detail::Float8E5M2Format::decode(bits);
    if (e4 == e4) {
      EXPECT_EQ(detail::Float8E4M3Format::encode(e4), bits) << bits;
    }
    bool e5Finite = e5 == e5 && e5 - e5 == 0.0f;
    if (e5Finite) {
      EXPECT_EQ(detail::Float8E5M2Format::encode(e5), bits) << bits;
    }
  }
  EXPECT_EQ(checked, 131072);
}

TEST(NarrowFloats, RoundsToNearestEvenAndSaturatesFp8) {
  EXPECT_EQ(detail::Float16Format::encode(0.1), 0x2e66u);
  EXPECT_EQ(detail::Float16Format::encode(65520.0), 0x7c00u);        // overflows to inf
  EXPECT_EQ(detail::Float16Format::encode(1.0 + 0x1p-11), 0x3c00u);  // tie to even
  EXPECT_EQ(detail::BFloat16Format::encode(1.0 / 3.0), 0x3eabu);
  EXPECT_EQ(detail::Float8E4M3Format::encode(1000.0), 0x7eu);  // 448
  EXPECT_EQ(detail::Float8E4M3Format::encode(-1e9), 0xfeu);
  EXPECT_EQ(detail::Float8E5M2Format::encode(1e9), 0x7bu);                                            // 57344
  EXPECT_EQ(detail::Float8E4M3Format::decode(0x7f) != detail::Float8E4M3Format::decode(0x7f), true);  // nan
  EXPECT_EQ(widen(add(cast<float16>(1.5), cast<float16>(2.25))), 3.75f);
  EXPECT_EQ(cast<int32_t>(floordiv(cast<bfloat16>(7.0), cast<bfloat16>(2.0))), 3);
}

// The headers' static_asserts against CUDA's charN ... doubleN, __half2, __nv_bfloat162 and
// __nv_fp8x{2,4}: size, alignment and the offset of every component.
TEST(Vectors, LayoutMatchesCudaTypesForSm90) {
  const char* nvcc = "/usr/local/cuda/bin/nvcc";
  if (!std::filesystem::exists(nvcc)) GTEST_SKIP() << "no CUDA toolkit";
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "weft_test_vectors";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "layout.cu")
      << "#define WEFT_FLOAT16 1\n#define WEFT_BFLOAT16 1\n#define WEFT_FLOAT8 1\n"
         "#include <weft/device/fp16.h>\n#include <weft/device/vector.h>\n";
  std::string command = std::string(nvcc) + " -arch=sm_90 -std=c++17 -I" WEFT_SOURCE_DIR "/include -c " +
                        (dir / "layout.cu").string() + " -o " + (dir / "layout.o").string() + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

}  // namespace
}  // namespace weft
