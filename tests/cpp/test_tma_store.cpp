// The TMA-store epilogue (src/sema/tile_pipeline.cpp, include/weft/tiles/store_tma.h): which
// stores sema marks (TypedExpr::tmaStoreParameter), the dynamic shared memory it sizes for their
// boxes, the tensor maps codegen asks for (after the K loops', within the runtime's 32), and
// that a debug=True kernel keeps the generic store. Results on the CPU target and the GPU:
// tests/python/test_tile_store_tma_cpu.py and _gpu.py.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "sema_test_support.h"

namespace weft {
namespace {

using testing::checkAnnotated;
using testing::checkKernel;

// The tmaStoreParameter of every tile store statement of the program's kernel, in order.
void storeMarks(const std::vector<sema::TypedStmt*>& body, std::vector<int>& out) {
  for (const sema::TypedStmt* s : body) {
    if (s->kind == sema::TypedStmtKind::Evaluate && s->operands[0]->kind == sema::TypedExprKind::TileCall &&
        s->operands[0]->tileOp == sema::TileOp::Store)
      out.push_back(s->operands[0]->tmaStoreParameter);
    storeMarks(s->body, out);
    storeMarks(s->orelse, out);
  }
}

std::vector<int> storeMarks(const sema::TypedProgram& program) {
  std::vector<int> out;
  storeMarks(program.functions.at(static_cast<size_t>(program.kernel)).body, out);
  return out;
}

// A 128 x 256 x 64 bf16 GEMM whose accumulator is stored into c (of `out` elements).
std::string gemm(const std::string& out) {
  return "from weft import cutile as cu\n\n"
         "@cu.kernel\n"
         "def gemm(a: cu.bfloat16[:, :], b: cu.bfloat16[:, :], c: cu." + out + "[:, :]):\n"
         "    acc = cu.zeros((128, 256), dtype=cu.float32)\n"
         "    for k in range(cu.num_tiles(a, axis=1, shape=(128, 64))):\n"
         "        acc = cu.mma(cu.load(a, (cu.bid(0), k), (128, 64)), cu.load(b, (k, cu.bid(1)), (64, 256)), acc)\n"
         "    cu.store(c, (cu.bid(0), cu.bid(1)), acc.astype(c.dtype))\n";
}

TEST(TmaStore, AStoreOfTheAccumulatorAsksForAMapOfItsArray) {
  for (const auto& [out, columns] : std::vector<std::pair<std::string, uint32_t>>{{"bfloat16", 64}, {"float32", 32}}) {
    auto r = checkAnnotated(gemm(out), "gemm", "gemm.py");
    ASSERT_TRUE(r->ok()) << r->errors;
    EXPECT_EQ(storeMarks(r->program), std::vector<int>{2}) << out;
    codegen::EmittedUnit unit = codegen::emitCuda(r->program, r->sources);
    // The loop's maps of a and b, then the store's: the tile's rows by one 128-byte slab,
    // 128-byte swizzle.
    ASSERT_EQ(unit.tensorMaps.size(), 3u) << out;
    const codegen::EmittedUnit::TensorMap& map = unit.tensorMaps[2];
    EXPECT_EQ(map.parameter, 2);
    EXPECT_EQ(map.box, (std::vector<uint32_t>{128, columns})) << out;
    EXPECT_EQ(map.swizzle, 3);
    EXPECT_NE(unit.source.find("weft::tiles::store_array_tma("), std::string::npos);
    EXPECT_NE(unit.source.find("#include <weft/tiles/store_tma.h>"), std::string::npos);
  }
}

TEST(TmaStore, TheRingHoldsTheStoresBox) {
  // Two stages of 128 x 64 and 64 x 256 bf16 tiles: 96 KiB and 1 KiB of alignment; a float32
  // 128 x 256 box needs 128 KiB, a bfloat16 one 64 KiB.
  auto f32 = checkAnnotated(gemm("float32"), "gemm", "gemm.py", 2);
  ASSERT_TRUE(f32->ok()) << f32->errors;
  EXPECT_EQ(f32->program.tileSharedBytes, 128u * 256 * 4 + 1024);
  auto bf16 = checkAnnotated(gemm("bfloat16"), "gemm", "gemm.py", 2);
  ASSERT_TRUE(bf16->ok()) << bf16->errors;
  EXPECT_EQ(bf16->program.tileSharedBytes, 2u * (128 * 64 + 64 * 256) * 2 + 1024);
}

TEST(TmaStore, OnlyStoresTheHeaderCanTakeAreMarked) {
  struct Case {
    std::string out, prologue, epilogue;
    std::vector<int> marks;
  };
  const std::string store = "cu.store(c, (cu.bid(0), cu.bid(1)), ";
  const std::vector<Case> cases = {
      // Element-wise code of the accumulator, inline or in a local; two stores, two maps.
      {"float16", "", store + "(acc * 2.0 + 1.0).astype(c.dtype))", {2}},
      {"float16", "", "out = cu.maximum(acc, 0.0).astype(c.dtype)\n    " + store + "out)", {2}},
      {"float32", "", store + "acc)\n    cu.store(d, (cu.bid(1), cu.bid(0)), acc)", {2, 3}},
      // A permuted store, a tile not computed from the accumulator, an alias of the array, a
      // row reduction, 8-bit and 64-bit elements.
      {"float32", "", store + "acc, order=(1, 0))", {-1}},
      {"float32", "", store + "cu.load(d, (0, 0), (128, 256)))", {-1}},
      {"float32", "", "e = c\n    cu.store(e, (cu.bid(0), cu.bid(1)), acc)", {-1}},
      {"float32", "", "cu.store(c, (0, 0), cu.sum(acc, axis=1, keepdims=True))", {-1}},
      {"int8", "", store + "acc.astype(c.dtype))", {-1}},
      {"float64", "", store + "acc.astype(c.dtype))", {-1}},
      // The loop reads a rebound a: not the TMA path, so no TMA store either.
      {"float32", "a = b", store + "acc)", {-1}},
  };
  for (const Case& c : cases) {
    const std::string source =
        "from weft import cutile as cu\n\n"
        "@cu.kernel\n"
        "def gemm(a: cu.bfloat16[:, :], b: cu.bfloat16[:, :], c: cu." + c.out + "[:, :], d: cu." + c.out + "[:, :]):\n"
        "    acc = cu.zeros((128, 256), dtype=cu.float32)\n    " + c.prologue + "\n"
        "    for k in range(cu.num_tiles(a, axis=1, shape=(128, 64))):\n"
        "        acc = cu.mma(cu.load(a, (cu.bid(0), k), (128, 64)), cu.load(b, (k, cu.bid(1)), (64, 256)), acc)\n"
        "    " + c.epilogue + "\n";
    auto r = checkAnnotated(source, "gemm", "gemm.py");
    ASSERT_TRUE(r->ok()) << r->errors << source;
    EXPECT_EQ(storeMarks(r->program), c.marks) << source;
  }
}

TEST(TmaStore, PartitionViewsOfTheParameterAreMarked) {
  const std::string source = R"(
from weft import tiles as ct

@ct.kernel
def gemm(a: ct.float16[:, :], b: ct.float16[:, :], c: ct.float16[:, :]):
    acc = ct.zeros((64, 64), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(64, 64))):
        acc = ct.mma(ct.load(a, (ct.bid(0), k), (64, 64)), ct.load(b, (k, ct.bid(1)), (64, 64)), acc)
    v = ct.partition_view(c, (64, 64))
    v.store((ct.bid(0), ct.bid(1)), ct.astype(acc, ct.float16))
    ct.store(ct.partition_view(ct.tensor_span(c), (64, 64)), (ct.bid(1), ct.bid(0)), ct.astype(acc, ct.float16))
    w = v
    w = ct.partition_view(c, (64, 64))
    w.store((0, 0), ct.astype(acc, ct.float16))
)";
  auto r = checkAnnotated(source, "gemm", "gemm.py");
  ASSERT_TRUE(r->ok()) << r->errors;
  // The last view local is assigned twice: not followed.
  EXPECT_EQ(storeMarks(r->program), (std::vector<int>{2, 2, -1}));
}

TEST(TmaStore, TheMapsStayWithinTheRuntimesThirtyTwo) {
  // 15 TMA loops (30 maps) and three stores: the first two get the last two maps.
  std::string source =
      "from weft import cutile as cu\n\n@cu.kernel\n"
      "def gemm(a: cu.bfloat16[:, :], b: cu.bfloat16[:, :], c: cu.float32[:, :]):\n"
      "    acc = cu.zeros((64, 64), dtype=cu.float32)\n";
  for (int i = 0; i < 15; ++i) {
    const std::string k = "k" + std::to_string(i);
    source += "    for " + k + " in range(cu.num_tiles(a, axis=1, shape=(64, 64))):\n        acc = cu.mma(cu.load(a, (cu.bid(0), " +
              k + "), (64, 64)), cu.load(b, (" + k + ", cu.bid(1)), (64, 64)), acc)\n";
  }
  for (int i = 0; i < 3; ++i) source += "    cu.store(c, (cu.bid(0), " + std::to_string(i) + "), acc)\n";
  auto r = checkAnnotated(source, "gemm", "gemm.py");
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(storeMarks(r->program), (std::vector<int>{2, 2, -1}));
  EXPECT_EQ(codegen::emitCuda(r->program, r->sources).tensorMaps.size(), 32u);
}

TEST(TmaStore, ADebugKernelKeepsTheGenericStore) {
  const std::string source = R"(
from weft import cutile as cu

@cu.kernel
def gemm(a, b, c):
    acc = cu.zeros((64, 64), dtype=cu.float32)
    for k in range(cu.num_tiles(a, axis=1, shape=(64, 64))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (64, 64)), cu.load(b, (k, cu.bid(1)), (64, 64)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)
)";
  auto plain = checkKernel(source, "gemm", {"bfloat16[:,:]", "bfloat16[:,:]", "float32[:,:]"});
  ASSERT_TRUE(plain->ok()) << plain->errors;
  EXPECT_EQ(storeMarks(plain->program), std::vector<int>{2});
  auto debug = checkKernel(source, "gemm", {"bfloat16[:,:]", "bfloat16[:,:]", "float32[:,:]"}, true);
  ASSERT_TRUE(debug->ok()) << debug->errors;
  EXPECT_EQ(storeMarks(debug->program), std::vector<int>{-1});
  EXPECT_TRUE(codegen::emitCuda(debug->program, debug->sources).tensorMaps.empty());
}

}  // namespace
}  // namespace weft
