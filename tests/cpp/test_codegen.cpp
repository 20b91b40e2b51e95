// Codegen: typed programs built by hand are emitted, checked for key text, compiled for the
// CPU target (and run through their host entry with hand-made thread contexts) and, where
// nvcc is installed, compiled for sm_90 through ptxas.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <barrier>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

#include "backend/backend.h"
#include "codegen/codegen.h"
#include "codegen/cuda_emitter.h"
#include "sema_test_support.h"
#include "support/check.h"
#include "weft/device/error_record.h"
#include "weft/device/host_context.h"

namespace weft {
namespace {

using sema::BinaryOp;
using sema::Builtin;
using sema::CompareOp;
using sema::TypedExpr;
using sema::TypedExprKind;
using sema::TypedFunction;
using sema::TypedStmt;
using sema::TypedStmtKind;
using types::MemorySpace;
using types::ScalarKind;
using types::Type;

#ifndef WEFT_SOURCE_DIR
#error "WEFT_SOURCE_DIR must name the repository (CMake defines it for weft_tests)"
#endif

// Builds typed programs the way sema would: every operand already of its final type.
class ProgramBuilder {
 public:
  ProgramBuilder() { file_ = sources.add("kernels.py", "# test kernels\n"); }

  types::TypeContext types;
  SourceManager sources;
  sema::TypedProgram program;

  const Type* scalar(ScalarKind kind) { return types.scalar(kind); }
  const Type* i32() { return scalar(ScalarKind::Int32); }
  const Type* i64() { return scalar(ScalarKind::Int64); }
  const Type* f32() { return scalar(ScalarKind::Float32); }
  const Type* boolean() { return scalar(ScalarKind::Bool); }

  // Starts a function; later calls add to it until the next function().
  int function(const std::string& name, bool kernel, const Type* returnType) {
    TypedFunction& f = program.functions.emplace_back();
    f.name = name;
    f.pythonName = name;
    f.isKernel = kernel;
    f.returnType = returnType ? returnType : types.none();
    f.loc = loc();
    current_ = static_cast<int>(program.functions.size()) - 1;
    if (kernel) {
      program.kernel = current_;
      program.entries.push_back(current_);
    }
    return current_;
  }
  TypedFunction& fn() { return program.functions[current_]; }
  int param(const std::string& name, const Type* type) {
    int index = local(name, type);
    fn().params.push_back(index);
    return index;
  }
  int local(const std::string& name, const Type* type) {
    fn().locals.push_back(sema::Local{name, type, loc()});
    return static_cast<int>(fn().locals.size()) - 1;
  }

  TypedExpr* make(TypedExprKind kind, const Type* type, std::vector<TypedExpr*> operands = {}) {
    TypedExpr* e = program.makeExpr();
    e->kind = kind;
    e->type = type;
    e->operands = std::move(operands);
    e->loc = loc();
    return e;
  }
  TypedExpr* get(int index) {
    TypedExpr* e = make(TypedExprKind::Local, fn().locals[index].type);
    e->local = index;
    return e;
  }
  TypedExpr* integer(int64_t value, const Type* type = nullptr) {
    TypedExpr* e = make(TypedExprKind::Literal, type ? type : i32());
    e->literal.intValue = value;
    return e;
  }
  TypedExpr* real(double value, const Type* type = nullptr) {
    TypedExpr* e = make(TypedExprKind::Literal, type ? type : f32());
    e->literal.floatValue = value;
    return e;
  }
  TypedExpr* binary(BinaryOp op, TypedExpr* a, TypedExpr* b) {
    TypedExpr* e = make(TypedExprKind::Binary, a->type, {a, b});
    e->binaryOp = op;
    return e;
  }
  TypedExpr* compare(CompareOp op, TypedExpr* a, TypedExpr* b) {
    TypedExpr* e = make(TypedExprKind::CompareChain, boolean(), {a, b});
    e->compareOps = {op};
    e->compareTypes = {a->type};
    return e;
  }
  TypedExpr* cast(TypedExpr* a, const Type* type) { return make(TypedExprKind::Cast, type, {a}); }
  TypedExpr* builtin(Builtin which, const Type* type, std::vector<TypedExpr*> operands = {}) {
    TypedExpr* e = make(TypedExprKind::BuiltinCall, type, std::move(operands));
    e->builtin = which;
    return e;
  }
  TypedExpr* element(TypedExpr* array, std::vector<TypedExpr*> indices) {
    std::vector<TypedExpr*> operands{array};
    operands.insert(operands.end(), indices.begin(), indices.end());
    TypedExpr* e = make(TypedExprKind::ArrayElement, types.scalar(array->type->scalar), operands);
    e->wrapNegative.assign(indices.size(), true);
    return e;
  }
  TypedExpr* call(int callee, std::vector<TypedExpr*> arguments) {
    TypedExpr* e = make(TypedExprKind::Call, program.functions[callee].returnType, std::move(arguments));
    e->callee = callee;
    return e;
  }
  TypedExpr* size(TypedExpr* array) { return make(TypedExprKind::ArraySize, i64(), {array}); }

  TypedStmt* stmt(TypedStmtKind kind, std::vector<TypedExpr*> operands = {}) {
    TypedStmt* s = program.makeStmt();
    s->kind = kind;
    s->operands = std::move(operands);
    s->loc = loc();
    return s;
  }
  TypedStmt* assign(int local, TypedExpr* value) {
    TypedStmt* s = stmt(TypedStmtKind::Assign, {value});
    s->local = local;
    return s;
  }
  TypedStmt* store(TypedExpr* element, TypedExpr* value) {
    return stmt(TypedStmtKind::Store, {element, value});
  }
  TypedStmt* ifStmt(TypedExpr* condition, std::vector<TypedStmt*> body, std::vector<TypedStmt*> orelse = {}) {
    TypedStmt* s = stmt(TypedStmtKind::If, {condition});
    s->body = std::move(body);
    s->orelse = std::move(orelse);
    return s;
  }
  TypedStmt* forRange(int local, TypedExpr* start, TypedExpr* stop, TypedExpr* step, int sign,
                      std::vector<TypedStmt*> body, std::vector<TypedStmt*> orelse = {}) {
    TypedStmt* s = stmt(TypedStmtKind::ForRange, {start, stop, step});
    s->local = local;
    s->stepSign = sign;
    s->body = std::move(body);
    s->orelse = std::move(orelse);
    return s;
  }
  TypedStmt* declareArray(int local, std::vector<int64_t> shape) {
    TypedStmt* s = stmt(TypedStmtKind::DeclareArray);
    s->local = local;
    s->shape = std::move(shape);
    return s;
  }
  TypedStmt* sync() { return stmt(TypedStmtKind::Evaluate, {builtin(Builtin::Syncthreads, types.none())}); }

  codegen::EmittedUnit emit() { return codegen::emitCuda(program, sources); }

 private:
  SourceLoc loc() { return SourceLoc{file_, nextLine_++, 4, 1}; }
  uint32_t file_ = 0;
  uint32_t nextLine_ = 2;
  int current_ = -1;
};

std::filesystem::path scratchDirectory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "weft_codegen_XXXXXX").string();
  char* made = mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  return made ? std::filesystem::path(made) : std::filesystem::temp_directory_path();
}

// A host-compiled unit loaded with dlopen; `checks`: compiled as the runtime compiles a checked
// unit (WEFT_CHECKS), with its error record in `record`.
class HostKernel {
 public:
  explicit HostKernel(const codegen::EmittedUnit& unit, bool checks = false) {
    std::filesystem::path dir = scratchDirectory();
    std::ofstream(dir / "unit.cpp") << unit.source;
    const char* cxx = std::getenv("CXX");
    std::string command = std::string(cxx && *cxx ? cxx : "c++") + " -std=c++20 -O1 -DWEFT_HOST " +
                          (checks ? "-DWEFT_CHECKS " : "") + "-fPIC -shared -I" +
                          WEFT_SOURCE_DIR "/include " + (dir / "unit.cpp").string() + " -o " +
                          (dir / "unit.so").string();
    if (std::system((command + " 2> " + (dir / "log.txt").string()).c_str()) != 0) {
      std::ifstream log(dir / "log.txt");
      std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
      ADD_FAILURE() << "host compile failed:\n" << text << "\n--- unit ---\n" << unit.source;
      return;
    }
    handle_ = dlopen((dir / "unit.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(handle_, nullptr) << dlerror();
    if (handle_) entry = reinterpret_cast<host::KernelEntry>(dlsym(handle_, unit.hostEntrySymbol.c_str()));
    EXPECT_NE(entry, nullptr) << unit.hostEntrySymbol;
    if (handle_ && checks) record = static_cast<ErrorRecord*>(dlsym(handle_, "weft_error_record"));
    EXPECT_EQ(record != nullptr, checks);
    std::filesystem::remove_all(dir);
  }
  ~HostKernel() {
    if (handle_) dlclose(handle_);
  }
  HostKernel(const HostKernel&) = delete;
  HostKernel& operator=(const HostKernel&) = delete;

  // Runs a grid: blocks one after another, the threads of a block as OS threads meeting at a
  // std::barrier (the real runner uses fibers; the contract is the same).
  void launch(void** args, host::Dim3 grid, host::Dim3 block, uint64_t sharedBytes) const {
    ASSERT_NE(entry, nullptr);
    uint32_t threads = block.x * block.y * block.z;
    for (uint32_t bz = 0; bz < grid.z; ++bz) {
      for (uint32_t by = 0; by < grid.y; ++by) {
        for (uint32_t bx = 0; bx < grid.x; ++bx) {
          std::vector<unsigned char> shared(sharedBytes + 16, 0xcd);
          std::barrier<> barrier(threads);
          std::vector<host::ThreadContext> contexts(threads);
          std::vector<std::thread> workers;
          for (uint32_t t = 0; t < threads; ++t) {
            host::ThreadContext& c = contexts[t];
            c.threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
            c.blockIdx = {bx, by, bz};
            c.blockDim = block;
            c.gridDim = grid;
            c.sharedMemory = shared.data();
            c.barrier = [](host::ThreadContext* self) {
              static_cast<std::barrier<>*>(self->runner)->arrive_and_wait();
            };
            c.runner = &barrier;
            workers.emplace_back([this, &c, args] { entry(&c, args); });
          }
          for (std::thread& worker : workers) worker.join();
        }
      }
    }
  }

  host::KernelEntry entry = nullptr;
  ErrorRecord* record = nullptr;

 private:
  void* handle_ = nullptr;
};

// The descriptor of weft::Array<T, N> as the runtime packs it.
template <int N>
struct Descriptor {
  void* data;
  uint64_t shape[N];
  uint64_t strides[N];
};

template <class T>
Descriptor<1> vector(std::vector<T>& values) {
  return Descriptor<1>{values.data(), {values.size()}, {1}};
}

const char* kNvcc = "/usr/local/cuda/bin/nvcc";

// Compiles the unit for sm_90 as the runtime does (NVRTC; `checks`: a checked unit) and returns
// its PTX; empty (the test skipped) when NVRTC is not installed.
std::string nvrtcPtxForSm90(const codegen::EmittedUnit& unit, bool checks) {
  backend::Toolchain toolchain = backend::discoverToolchain(std::string(WEFT_SOURCE_DIR) + "/include");
  if (backend::nvrtcVersion(toolchain).empty()) return {};
  backend::CompileOptions options;
  options.target = {90};
  options.checks = checks;
  backend::Artifact cubin = backend::compileWithNvrtc(toolchain, unit.source, "unit.cu", options);
  EXPECT_TRUE(cubin.ok) << cubin.log << "\n--- unit ---\n" << unit.source;
  options.output = backend::DeviceCode::Ptx;
  backend::Artifact ptx = backend::compileWithNvrtc(toolchain, unit.source, "unit.cu", options);
  EXPECT_TRUE(ptx.ok) << ptx.log;
  return ptx.bytes;
}

// Compiles the unit for sm_90 through ptxas when nvcc is installed.
void expectCompilesForSm90(const codegen::EmittedUnit& unit) {
  if (access(kNvcc, X_OK) != 0) GTEST_SKIP() << "nvcc not installed";
  std::filesystem::path dir = scratchDirectory();
  std::ofstream(dir / "unit.cu") << unit.source;
  std::string command = std::string(kNvcc) + " -std=c++17 -arch=sm_90 -cubin -I" WEFT_SOURCE_DIR "/include " +
                        (dir / "unit.cu").string() + " -o " + (dir / "unit.cubin").string() + " 2> " +
                        (dir / "log.txt").string();
  if (std::system(command.c_str()) != 0) {
    std::ifstream log(dir / "log.txt");
    std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    ADD_FAILURE() << "nvcc failed:\n" << text << "\n--- unit ---\n" << unit.source;
  }
  std::filesystem::remove_all(dir);
}

// vec_add: i = tid(1); if i < c.size: c[i] = a[i] + b[i]
void buildVecAdd(ProgramBuilder& b) {
  b.function("vec_add", true, nullptr);
  const Type* array = b.types.array(ScalarKind::Float32, 1);
  int a = b.param("a", array), bb = b.param("b", array), c = b.param("c", array);
  int i = b.local("i", b.i32());
  b.fn().body = {
      b.assign(i, b.builtin(Builtin::TidX, b.i32())),
      b.ifStmt(
          b.compare(CompareOp::Lt, b.cast(b.get(i), b.i64()), b.size(b.get(c))),
          {b.store(b.element(b.get(c), {b.get(i)}), b.binary(BinaryOp::Add, b.element(b.get(a), {b.get(i)}),
                                                             b.element(b.get(bb), {b.get(i)})))}),
  };
}

TEST(Codegen, VecAddText) {
  ProgramBuilder b;
  buildVecAdd(b);
  codegen::EmittedUnit unit = b.emit();
  EXPECT_EQ(unit.kernelSymbol.rfind("weft_vec_add_", 0), 0u) << unit.kernelSymbol;
  EXPECT_EQ(unit.hostEntrySymbol, unit.kernelSymbol + "_host");
  EXPECT_EQ(unit.hostSharedBytes, 0u);
  const std::string& s = unit.source;
  EXPECT_NE(s.find("#include <weft/device/runtime.h>"), std::string::npos);
  EXPECT_NE(s.find("WEFT_KERNEL void " + unit.kernelSymbol +
                   "(weft::Array<float, 1> v_a_0, weft::Array<float, 1> v_b_1, "
                   "weft::Array<float, 1> v_c_2)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("#line 2 \"kernels.py\""), std::string::npos) << s;
  EXPECT_NE(s.find("weft::tid_x()"), std::string::npos);
  // Every element access names its check site (bounds are checked where the lowering says).
  EXPECT_NE(s.find("u, v_c_2, v_i_3) = weft::add<float>(weft::at<true>("), std::string::npos) << s;
  ASSERT_EQ(unit.checkSites.size(), 3u);
  for (const codegen::EmittedUnit::CheckSite& site : unit.checkSites) {
    EXPECT_EQ(site.file, "kernels.py");
    EXPECT_EQ(site.function, "vec_add");
    EXPECT_GT(site.line, 0u);
  }
  EXPECT_NE(s.find("extern \"C\" void " + unit.hostEntrySymbol +
                   "(weft::host::ThreadContext* context, void** args)"),
            std::string::npos);
  EXPECT_EQ(s.find('\x01'), std::string::npos);
  // The same program emits the same unit; a different one gets another symbol.
  EXPECT_EQ(b.emit().source, s);
  ProgramBuilder other;
  buildVecAdd(other);
  other.program.functions[0].body[1]->body[0]->operands[1]->binaryOp = BinaryOp::Sub;
  EXPECT_NE(other.emit().kernelSymbol, unit.kernelSymbol);
}

TEST(Codegen, VecAddRunsOnHost) {
  ProgramBuilder b;
  buildVecAdd(b);
  codegen::EmittedUnit unit = b.emit();
  HostKernel kernel(unit);
  std::mt19937 random(7);
  std::uniform_real_distribution<float> uniform(-10, 10);
  size_t n = 37;  // not a multiple of the block: the bounds test matters
  std::vector<float> a(n), bv(n), c(n, -1.0f);
  for (size_t k = 0; k < n; ++k) a[k] = uniform(random), bv[k] = uniform(random);
  Descriptor<1> da = vector(a), db = vector(bv), dc = vector(c);
  void* args[] = {&da, &db, &dc};
  kernel.launch(args, {3, 1, 1}, {16, 1, 1}, unit.hostSharedBytes);
  for (size_t k = 0; k < n; ++k) EXPECT_EQ(c[k], a[k] + bv[k]) << k;
}

TEST(Codegen, VecAddCompilesForSm90) {
  ProgramBuilder b;
  buildVecAdd(b);
  expectCompilesForSm90(b.emit());
}

// def last_multiple(n, k):            # a device function with a range loop with else
//     for j in range(n - 1, -1, -1):
//         if j % k == 0: break
//     else:
//         j = -100
//     return j
// kernel: out[i] = last_multiple(i, 3) + total where total sums range(0, i, 2)
void buildLoops(ProgramBuilder& b) {
  int helper = b.function("last_multiple", false, b.i32());
  int n = b.param("n", b.i32()), k = b.param("k", b.i32());
  int j = b.local("j", b.i32());
  TypedStmt* loop = b.forRange(
      j, b.binary(BinaryOp::Sub, b.get(n), b.integer(1)), b.integer(-1), b.integer(-1), -1,
      {b.ifStmt(b.compare(CompareOp::Eq, b.binary(BinaryOp::Mod, b.get(j), b.get(k)), b.integer(0)),
                {b.stmt(TypedStmtKind::Break)})},
      {b.assign(j, b.integer(-100))});
  b.fn().body = {b.assign(j, b.integer(-7)), loop, b.stmt(TypedStmtKind::Return, {b.get(j)})};

  b.function("loops", true, nullptr);
  int out = b.param("out", b.types.array(ScalarKind::Int32, 1));
  int step = b.param("step", b.i32());
  int i = b.local("i", b.i32()), total = b.local("total", b.i32()), m = b.local("m", b.i32());
  b.fn().body = {
      b.assign(i, b.builtin(Builtin::TidX, b.i32())),
      b.assign(total, b.integer(0)),
      // step is a parameter: its sign is unknown to sema.
      b.forRange(m, b.integer(0), b.get(i), b.get(step), 0,
                 {b.assign(total, b.binary(BinaryOp::Add, b.get(total), b.get(m)))}),
      b.store(b.element(b.get(out), {b.get(i)}),
              b.binary(BinaryOp::Add, b.call(helper, {b.get(i), b.integer(3)}), b.get(total))),
  };
}

TEST(Codegen, RangeLoopsWithElseRunOnHost) {
  ProgramBuilder b;
  buildLoops(b);
  codegen::EmittedUnit unit = b.emit();
  EXPECT_NE(unit.source.find("WEFT_DEVICE_FN int32_t wf_last_multiple_0(int32_t v_n_0, int32_t v_k_1);"),
            std::string::npos)
      << unit.source;
  EXPECT_NE(unit.source.find("weft::range_continues("), std::string::npos);
  HostKernel kernel(unit);
  std::vector<int32_t> out(20, 0);
  Descriptor<1> d = vector(out);
  int32_t step = 2;
  void* args[] = {&d, &step};
  kernel.launch(args, {1, 1, 1}, {20, 1, 1}, 0);
  for (int32_t i = 0; i < 20; ++i) {
    // Python: the last j in n-1..0 divisible by 3 (0 always is), or -100 if the loop is empty
    // (n == 0); total = sum(range(0, i, 2)).
    int32_t expected = i == 0 ? -100 : (i - 1) / 3 * 3;
    int32_t total = 0;
    for (int32_t m = 0; m < i; m += 2) total += m;
    EXPECT_EQ(out[i], expected + total) << i;
  }
  expectCompilesForSm90(unit);
}

// Block reverse through shared memory:
//   s = shared_array(64, float32); t = thread_idx.x; s[t] = a[tid]; syncthreads()
//   out[tid] = s[block_dim.x - 1 - t]
void buildReverse(ProgramBuilder& b) {
  b.function("block_reverse", true, nullptr);
  const Type* array = b.types.array(ScalarKind::Float32, 1);
  int a = b.param("a", array), out = b.param("out", array);
  int s = b.local("s", b.types.array(ScalarKind::Float32, 1, MemorySpace::Shared));
  int scratch = b.local("scratch", b.types.array(ScalarKind::Float64, 2, MemorySpace::Local));
  const Type* u32 = b.scalar(ScalarKind::UInt32);
  int t = b.local("t", u32);
  int g = b.local("g", b.i32());
  TypedExpr* mirrored =
      b.binary(BinaryOp::Sub, b.binary(BinaryOp::Sub, b.builtin(Builtin::BlockDimX, u32), b.integer(1, u32)),
               b.get(t));
  b.fn().body = {
      b.declareArray(s, {64}),
      b.declareArray(scratch, {2, 3}),
      b.assign(t, b.builtin(Builtin::ThreadIdxX, u32)),
      b.assign(g, b.builtin(Builtin::TidX, b.i32())),
      b.store(b.element(b.get(s), {b.get(t)}), b.element(b.get(a), {b.get(g)})),
      b.store(b.element(b.get(scratch), {b.integer(-1), b.integer(2)}),
              b.real(2.5, b.scalar(ScalarKind::Float64))),
      b.sync(),
      b.store(b.element(b.get(out), {b.get(g)}), b.element(b.get(s), {mirrored})),
  };
}

TEST(Codegen, SharedArrayAndSyncthreadsRunOnHost) {
  ProgramBuilder b;
  buildReverse(b);
  codegen::EmittedUnit unit = b.emit();
  EXPECT_EQ(unit.hostSharedBytes, 64u * 4u);
  EXPECT_NE(unit.source.find("WEFT_SHARED_STORAGE(float, w_shared_0, 64, 0);"), std::string::npos)
      << unit.source;
  EXPECT_NE(unit.source.find("WEFT_LOCAL_STORAGE(double, w_local_1, 6);"), std::string::npos) << unit.source;
  EXPECT_NE(unit.source.find("weft::Array<double, 2>{w_local_1, {2ull, 3ull}, {3ull, 1ull}}"),
            std::string::npos);
  EXPECT_NE(unit.source.find("weft::syncthreads()"), std::string::npos);
  HostKernel kernel(unit);
  std::mt19937 random(11);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> a(64), out(64, 0);
  for (float& x : a) x = uniform(random);
  Descriptor<1> da = vector(a), dout = vector(out);
  void* args[] = {&da, &dout};
  kernel.launch(args, {2, 1, 1}, {32, 1, 1}, unit.hostSharedBytes);
  for (int k = 0; k < 64; ++k) EXPECT_EQ(out[k], a[(k / 32) * 32 + 31 - k % 32]) << k;
  expectCompilesForSm90(unit);
}

// Tiled matrix multiply C = A @ B with 4x4 tiles in shared memory (n a multiple of 4).
void buildMatmul(ProgramBuilder& b) {
  constexpr int kTile = 4;
  b.function("matmul", true, nullptr);
  const Type* matrix = b.types.array(ScalarKind::Float32, 2);
  const Type* tile = b.types.array(ScalarKind::Float32, 2, MemorySpace::Shared);
  int A = b.param("A", matrix), B = b.param("B", matrix), C = b.param("C", matrix);
  int sA = b.local("sA", tile), sB = b.local("sB", tile);
  int tx = b.local("tx", b.i32()), ty = b.local("ty", b.i32()), x = b.local("x", b.i32()),
      y = b.local("y", b.i32());
  int acc = b.local("acc", b.f32()), i = b.local("i", b.i32()), j = b.local("j", b.i32());
  int tiles = b.local("tiles", b.i32());
  const Type* u32 = b.scalar(ScalarKind::UInt32);
  auto add = [&](TypedExpr* l, TypedExpr* r) { return b.binary(BinaryOp::Add, l, r); };
  auto mul = [&](TypedExpr* l, TypedExpr* r) { return b.binary(BinaryOp::Mul, l, r); };
  TypedStmt* inner =
      b.forRange(j, b.integer(0), b.integer(kTile), b.integer(1), 1,
                 {b.assign(acc, add(b.get(acc), mul(b.element(b.get(sA), {b.get(ty), b.get(j)}),
                                                    b.element(b.get(sB), {b.get(j), b.get(tx)}))))});
  TypedStmt* outer =
      b.forRange(i, b.integer(0), b.get(tiles), b.integer(1), 1,
                 {b.store(b.element(b.get(sA), {b.get(ty), b.get(tx)}),
                          b.element(b.get(A), {b.get(y), add(b.get(tx), mul(b.get(i), b.integer(kTile)))})),
                  b.store(b.element(b.get(sB), {b.get(ty), b.get(tx)}),
                          b.element(b.get(B), {add(b.get(ty), mul(b.get(i), b.integer(kTile))), b.get(x)})),
                  b.sync(), inner, b.sync()});
  b.fn().body = {
      b.declareArray(sA, {kTile, kTile}),
      b.declareArray(sB, {kTile, kTile}),
      b.assign(tx, b.cast(b.builtin(Builtin::ThreadIdxX, u32), b.i32())),
      b.assign(ty, b.cast(b.builtin(Builtin::ThreadIdxY, u32), b.i32())),
      b.assign(x, b.builtin(Builtin::TidX, b.i32())),
      b.assign(y, b.builtin(Builtin::TidY, b.i32())),
      b.assign(acc, b.real(0.0)),
      b.assign(tiles,
               b.cast(b.binary(BinaryOp::FloorDiv, b.make(TypedExprKind::ArrayShape, b.i64(), {b.get(A)}),
                               b.integer(kTile, b.i64())),
                      b.i32())),
      outer,
      b.store(b.element(b.get(C), {b.get(y), b.get(x)}), b.get(acc)),
  };
  b.fn().body[7]->operands[0]->operands[0]->operands[0]->index = 1;  // A.shape[1]
}

TEST(Codegen, TiledMatmulRunsOnHost) {
  ProgramBuilder b;
  buildMatmul(b);
  codegen::EmittedUnit unit = b.emit();
  EXPECT_EQ(unit.hostSharedBytes, 2u * 16u * 4u);
  EXPECT_NE(unit.source.find("WEFT_SHARED_STORAGE(float, w_shared_1, 16, 64);"), std::string::npos)
      << unit.source;
  EXPECT_NE(unit.source.find("weft::shape(v_A_0, 1)"), std::string::npos);
  HostKernel kernel(unit);
  constexpr int n = 8;
  std::mt19937 random(3);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> A(n * n), B(n * n), C(n * n, 0);
  for (float& v : A) v = uniform(random);
  for (float& v : B) v = uniform(random);
  Descriptor<2> dA{A.data(), {n, n}, {n, 1}}, dB{B.data(), {n, n}, {n, 1}}, dC{C.data(), {n, n}, {n, 1}};
  void* args[] = {&dA, &dB, &dC};
  kernel.launch(args, {2, 2, 1}, {4, 4, 1}, unit.hostSharedBytes);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      float expected = 0;
      for (int k = 0; k < n; ++k) expected += A[r * n + k] * B[k * n + c];
      EXPECT_NEAR(C[r * n + c], expected, 1e-5f) << r << "," << c;
    }
  }
  expectCompilesForSm90(unit);
}

// Block sum: s[t] = a[tid]; stride = block_dim.x // 2
//   while stride > 0: if t < stride: s[t] += s[t + stride]; syncthreads(); stride //= 2
//   if t == 0: out[block_idx.x] = s[0]
void buildBlockSum(ProgramBuilder& b) {
  b.function("block_sum", true, nullptr);
  const Type* ints = b.types.array(ScalarKind::Int64, 1);
  int a = b.param("a", ints), out = b.param("out", ints);
  int s = b.local("s", b.types.array(ScalarKind::Int64, 1, MemorySpace::Shared));
  int t = b.local("t", b.i32()), stride = b.local("stride", b.i32());
  TypedStmt* loop = b.stmt(TypedStmtKind::While, {b.compare(CompareOp::Gt, b.get(stride), b.integer(0))});
  loop->body = {
      b.ifStmt(b.compare(CompareOp::Lt, b.get(t), b.get(stride)),
               {b.store(b.element(b.get(s), {b.get(t)}),
                        b.binary(BinaryOp::Add, b.element(b.get(s), {b.get(t)}),
                                 b.element(b.get(s), {b.binary(BinaryOp::Add, b.get(t), b.get(stride))})))}),
      b.sync(),
      b.assign(stride, b.binary(BinaryOp::FloorDiv, b.get(stride), b.integer(2))),
  };
  b.fn().body = {
      b.declareArray(s, {128}),
      b.assign(t, b.cast(b.builtin(Builtin::ThreadIdxX, b.scalar(ScalarKind::UInt32)), b.i32())),
      b.store(b.element(b.get(s), {b.get(t)}), b.element(b.get(a), {b.builtin(Builtin::TidX, b.i32())})),
      b.sync(),
      b.assign(stride, b.cast(b.binary(BinaryOp::FloorDiv,
                                       b.builtin(Builtin::BlockDimX, b.scalar(ScalarKind::UInt32)),
                                       b.integer(2, b.scalar(ScalarKind::UInt32))),
                              b.i32())),
      loop,
      b.ifStmt(b.compare(CompareOp::Eq, b.get(t), b.integer(0)),
               {b.store(b.element(b.get(out), {b.builtin(Builtin::BlockIdxX, b.scalar(ScalarKind::UInt32))}),
                        b.element(b.get(s), {b.integer(0)}))}),
  };
}

TEST(Codegen, BlockSumRunsOnHost) {
  ProgramBuilder b;
  buildBlockSum(b);
  codegen::EmittedUnit unit = b.emit();
  EXPECT_EQ(unit.hostSharedBytes, 128u * 8u);
  HostKernel kernel(unit);
  std::mt19937_64 random(5);
  std::vector<int64_t> a(3 * 64), out(3, 0);
  for (int64_t& v : a) v = static_cast<int64_t>(random() % 2000001) - 1000000;
  Descriptor<1> da = vector(a), dout = vector(out);
  void* args[] = {&da, &dout};
  kernel.launch(args, {3, 1, 1}, {64, 1, 1}, unit.hostSharedBytes);
  for (int blockIndex = 0; blockIndex < 3; ++blockIndex) {
    int64_t expected = 0;
    for (int k = 0; k < 64; ++k) expected += a[blockIndex * 64 + k];
    EXPECT_EQ(out[blockIndex], expected) << blockIndex;
  }
  expectCompilesForSm90(unit);
}

// A tuple returned by a device function: def divmod_(p, q): return (p // q, p % q)
// kernel: t = divmod_(a[i], 7); out[i] = t[0] * 100 + t[1]; and/or and a chained comparison
TEST(Codegen, TuplesAndPythonOperatorsRunOnHost) {
  ProgramBuilder b;
  const Type* pair = b.types.tuple({b.i32(), b.i32()});
  int helper = b.function("divmod_", false, pair);
  int p = b.param("p", b.i32()), q = b.param("q", b.i32());
  b.fn().body = {b.stmt(TypedStmtKind::Return, {b.make(TypedExprKind::TupleMake, pair,
                                                       {b.binary(BinaryOp::FloorDiv, b.get(p), b.get(q)),
                                                        b.binary(BinaryOp::Mod, b.get(p), b.get(q))})})};
  b.function("tuples", true, nullptr);
  const Type* ints = b.types.array(ScalarKind::Int32, 1);
  int a = b.param("a", ints), out = b.param("out", ints), flags = b.param("flags", ints);
  int i = b.local("i", b.i32()), t = b.local("t", pair), v = b.local("v", b.i32());
  TypedExpr* first = b.make(TypedExprKind::TupleGet, b.i32(), {b.get(t)});
  TypedExpr* second = b.make(TypedExprKind::TupleGet, b.i32(), {b.get(t)});
  second->index = 1;
  TypedExpr* chain =
      b.make(TypedExprKind::CompareChain, b.boolean(), {b.integer(-3), b.get(v), b.integer(3)});
  chain->compareOps = {CompareOp::LtE, CompareOp::Lt};
  chain->compareTypes = {b.i32(), b.i32()};
  // flags[i] = (v and 5) + (v or 9) + (-3 <= v < 3)
  TypedExpr* andValue = b.make(TypedExprKind::And, b.i32(), {b.get(v), b.integer(5)});
  TypedExpr* orValue = b.make(TypedExprKind::Or, b.i32(), {b.get(v), b.integer(9)});
  b.fn().body = {
      b.assign(i, b.builtin(Builtin::TidX, b.i32())),
      b.assign(v, b.element(b.get(a), {b.get(i)})),
      b.assign(t, b.call(helper, {b.get(v), b.integer(7)})),
      b.store(b.element(b.get(out), {b.get(i)}),
              b.binary(BinaryOp::Add, b.binary(BinaryOp::Mul, first, b.integer(100)), second)),
      b.store(b.element(b.get(flags), {b.get(i)}),
              b.binary(BinaryOp::Add, b.binary(BinaryOp::Add, andValue, orValue), b.cast(chain, b.i32()))),
  };
  codegen::EmittedUnit unit = b.emit();
  EXPECT_NE(unit.source.find("struct weft_tuple_0 { int32_t f0; int32_t f1; };"), std::string::npos)
      << unit.source;
  HostKernel kernel(unit);
  std::vector<int32_t> values = {-15, -14, -7, -6, -3, -1, 0, 1, 2, 3, 6, 7, 13, 100, -100, 2147483647};
  std::vector<int32_t> outs(values.size()), flagValues(values.size());
  Descriptor<1> da = vector(values), dout = vector(outs), dflags = vector(flagValues);
  void* args[] = {&da, &dout, &dflags};
  kernel.launch(args, {1, 1, 1}, {static_cast<uint32_t>(values.size()), 1, 1}, 0);
  for (size_t k = 0; k < values.size(); ++k) {
    int64_t x = values[k];
    int64_t floor = x >= 0 ? x / 7 : -((-x + 6) / 7);  // Python's floor division
    int64_t remainder = x - floor * 7;
    EXPECT_EQ(outs[k], static_cast<int32_t>(floor * 100 + remainder)) << x;
    int64_t expected = (x ? 5 : x) + (x ? x : 9) + (-3 <= x && x < 3);
    EXPECT_EQ(flagValues[k], static_cast<int32_t>(expected)) << x;
  }
  expectCompilesForSm90(unit);
}

// Literals must survive printing exactly, including the ones C++ cannot spell directly.
TEST(Codegen, LiteralsAreExact) {
  ProgramBuilder b;
  b.function("literals", true, nullptr);
  const Type* f64 = b.scalar(ScalarKind::Float64);
  int outI = b.param("oi", b.types.array(ScalarKind::Int64, 1));
  int outF = b.param("of", b.types.array(ScalarKind::Float64, 1));
  int outU = b.param("ou", b.types.array(ScalarKind::UInt64, 1));
  int outS = b.param("os", b.types.array(ScalarKind::Float32, 1));
  std::vector<int64_t> ints = {INT64_MIN, INT64_MAX, -1, 0, 123456789012345};
  std::vector<double> floats = {0.1, -0.0, 1e300, 5e-324, -2.5, std::numeric_limits<double>::infinity()};
  std::vector<float> singles = {0.1f, 3.4028235e38f, 1e-45f, -7.0f};
  uint64_t big = 18446744073709551615ull;
  std::vector<TypedStmt*> body;
  for (size_t k = 0; k < ints.size(); ++k) {
    body.push_back(
        b.store(b.element(b.get(outI), {b.integer(static_cast<int64_t>(k))}), b.integer(ints[k], b.i64())));
  }
  for (size_t k = 0; k < floats.size(); ++k) {
    body.push_back(
        b.store(b.element(b.get(outF), {b.integer(static_cast<int64_t>(k))}), b.real(floats[k], f64)));
  }
  for (size_t k = 0; k < singles.size(); ++k) {
    body.push_back(b.store(b.element(b.get(outS), {b.integer(static_cast<int64_t>(k))}), b.real(singles[k])));
  }
  body.push_back(b.store(b.element(b.get(outU), {b.integer(0)}),
                         b.integer(static_cast<int64_t>(big), b.scalar(ScalarKind::UInt64))));
  TypedExpr* int32Min = b.integer(INT32_MIN);
  body.push_back(b.store(b.element(b.get(outI), {b.integer(5)}), b.cast(int32Min, b.i64())));
  b.fn().body = body;
  codegen::EmittedUnit unit = b.emit();
  EXPECT_NE(unit.source.find("0.1f"), std::string::npos) << unit.source;
  EXPECT_NE(unit.source.find("(-0.0)"), std::string::npos);
  EXPECT_NE(unit.source.find("weft::inf<double>()"), std::string::npos);
  HostKernel kernel(unit);
  std::vector<int64_t> oi(6);
  std::vector<double> of(floats.size());
  std::vector<uint64_t> ou(1);
  std::vector<float> os(singles.size());
  Descriptor<1> di = vector(oi), df = vector(of), du = vector(ou), ds = vector(os);
  void* args[] = {&di, &df, &du, &ds};
  kernel.launch(args, {1, 1, 1}, {1, 1, 1}, 0);
  for (size_t k = 0; k < ints.size(); ++k) EXPECT_EQ(oi[k], ints[k]);
  EXPECT_EQ(oi[5], INT32_MIN);
  for (size_t k = 0; k < floats.size(); ++k) {
    EXPECT_EQ(of[k], floats[k]) << k;
    EXPECT_EQ(std::signbit(of[k]), std::signbit(floats[k])) << k;
  }
  for (size_t k = 0; k < singles.size(); ++k) EXPECT_EQ(os[k], singles[k]) << k;
  EXPECT_EQ(ou[0], big);
  expectCompilesForSm90(unit);
}

// A recursive device function is not force-inlined and is declared before use.
TEST(Codegen, RecursionIsForwardDeclared) {
  ProgramBuilder b;
  int fact = b.function("fact", false, b.i64());
  int n = b.param("n", b.i64());
  b.fn().body = {
      b.ifStmt(b.compare(CompareOp::LtE, b.get(n), b.integer(1, b.i64())),
               {b.stmt(TypedStmtKind::Return, {b.integer(1, b.i64())})}),
      b.stmt(TypedStmtKind::Return,
             {b.binary(BinaryOp::Mul, b.get(n),
                       b.call(fact, {b.binary(BinaryOp::Sub, b.get(n), b.integer(1, b.i64()))}))}),
  };
  b.function("facts", true, nullptr);
  int out = b.param("out", b.types.array(ScalarKind::Int64, 1));
  b.fn().body = {b.store(b.element(b.get(out), {b.builtin(Builtin::TidX, b.i32())}),
                         b.call(fact, {b.cast(b.builtin(Builtin::TidX, b.i32()), b.i64())}))};
  codegen::EmittedUnit unit = b.emit();
  EXPECT_NE(unit.source.find("WEFT_DEVICE_FN_NOINLINE int64_t wf_fact_0(int64_t v_n_0);"), std::string::npos)
      << unit.source;
  HostKernel kernel(unit);
  std::vector<int64_t> values(21);
  Descriptor<1> d = vector(values);
  void* args[] = {&d};
  kernel.launch(args, {1, 1, 1}, {21, 1, 1}, 0);
  int64_t expected = 1;
  for (int k = 0; k <= 20; ++k) {
    if (k > 1) expected *= k;
    EXPECT_EQ(values[k], expected) << k;
  }
  expectCompilesForSm90(unit);
}

// Operands are evaluated left to right as in Python even where C++ leaves the order open
// (g++ evaluates call arguments right to left): a[1] + bump(a) reads a[1] before bump
// writes it.
TEST(Codegen, OperandsAreEvaluatedLeftToRight) {
  ProgramBuilder b;
  const Type* ints = b.types.array(ScalarKind::Int32, 1);
  int bump = b.function("bump", false, b.i32());
  int array = b.param("array", ints);
  b.fn().body = {b.store(b.element(b.get(array), {b.integer(1)}), b.integer(42)),
                 b.stmt(TypedStmtKind::Return, {b.integer(1)})};
  b.function("ordered", true, nullptr);
  int a = b.param("a", ints);
  b.fn().body = {
      b.store(b.element(b.get(a), {b.integer(0)}),
              b.binary(BinaryOp::Add, b.element(b.get(a), {b.integer(1)}), b.call(bump, {b.get(a)}))),
      b.store(b.element(b.get(a), {b.integer(2)}),
              b.binary(BinaryOp::Sub, b.call(bump, {b.get(a)}), b.element(b.get(a), {b.integer(3)}))),
  };
  codegen::EmittedUnit unit = b.emit();
  EXPECT_NE(unit.source.find("[&]() -> int32_t {"), std::string::npos) << unit.source;
  HostKernel kernel(unit);
  std::vector<int32_t> values = {0, 7, 0, 5};
  Descriptor<1> d = vector(values);
  void* args[] = {&d};
  kernel.launch(args, {1, 1, 1}, {1, 1, 1}, 0);
  EXPECT_EQ(values[0], 7 + 1);
  EXPECT_EQ(values[2], 1 - 5);
  EXPECT_EQ(values[1], 42);
}

// One kernel using every operator on every scalar type it applies to, every conversion,
// every builtin and every statement kind: it must compile for both targets.
TEST(Codegen, EveryOperationCompilesForBothTargets) {
  ProgramBuilder b;
  const Type* pair = b.types.tuple({b.i64(), b.types.tuple({b.f32(), b.boolean()})});
  int helper = b.function("helper", false, pair);
  int h = b.param("h", b.i64());
  b.fn().body = {
      b.stmt(TypedStmtKind::Return,
             {b.make(TypedExprKind::TupleMake, pair,
                     {b.get(h), b.make(TypedExprKind::TupleMake, pair->elements[1],
                                       {b.real(1.5), b.make(TypedExprKind::Literal, b.boolean())})})})};
  int procedure = b.function("procedure", false, nullptr);
  b.param("p", b.i32());
  b.fn().body = {b.stmt(TypedStmtKind::Return)};
  b.function("everything", true, nullptr);
  std::vector<TypedStmt*> body;
  const ScalarKind kinds[] = {ScalarKind::Bool,      ScalarKind::Int8,    ScalarKind::Int16,
                              ScalarKind::Int32,     ScalarKind::Int64,   ScalarKind::UInt8,
                              ScalarKind::UInt16,    ScalarKind::UInt32,  ScalarKind::UInt64,
                              ScalarKind::Float32,   ScalarKind::Float64, ScalarKind::Complex64,
                              ScalarKind::Complex128};
  std::map<ScalarKind, int> value;
  for (ScalarKind kind : kinds)
    value[kind] = b.param(std::string("x_") + types::pythonName(kind), b.scalar(kind));
  int matrix = b.param("m", b.types.array(ScalarKind::Float64, 3));
  for (ScalarKind kind : kinds) {
    const Type* type = b.scalar(kind);
    int result = b.local(std::string("r_") + types::pythonName(kind), type);
    int flag = b.local(std::string("f_") + types::pythonName(kind), b.boolean());
    auto x = [&] { return b.get(value[kind]); };
    std::vector<BinaryOp> ops;
    if (types::isBool(kind)) ops = {BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor};
    if (types::isInteger(kind)) {
      ops = {BinaryOp::Add,    BinaryOp::Sub,   BinaryOp::Mul,    BinaryOp::FloorDiv,
             BinaryOp::Mod,    BinaryOp::Pow,   BinaryOp::LShift, BinaryOp::RShift,
             BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor};
    }
    if (types::isFloating(kind)) {
      ops = {BinaryOp::Add,      BinaryOp::Sub, BinaryOp::Mul, BinaryOp::TrueDiv,
             BinaryOp::FloorDiv, BinaryOp::Mod, BinaryOp::Pow};
    }
    if (types::isComplex(kind)) ops = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::TrueDiv};
    for (BinaryOp op : ops) body.push_back(b.assign(result, b.binary(op, x(), x())));
    if (types::isInteger(kind)) {
      body.push_back(b.assign(result, b.binary(BinaryOp::LShift, x(), b.get(value[ScalarKind::UInt8]))));
      body.push_back(b.assign(result, b.binary(BinaryOp::Pow, x(), b.integer(3, type))));
    }
    if (types::isFloating(kind) || types::isComplex(kind)) {
      body.push_back(b.assign(result, b.binary(BinaryOp::Pow, x(), b.cast(b.integer(4), type))));
    }
    std::vector<sema::UnaryOp> unaries = {sema::UnaryOp::Not};
    if (!types::isBool(kind)) unaries.insert(unaries.end(), {sema::UnaryOp::Neg, sema::UnaryOp::Pos});
    if (types::isInteger(kind)) unaries.push_back(sema::UnaryOp::Invert);
    for (sema::UnaryOp op : unaries) {
      TypedExpr* e = b.make(TypedExprKind::Unary, op == sema::UnaryOp::Not ? b.boolean() : type, {x()});
      e->unaryOp = op;
      body.push_back(op == sema::UnaryOp::Not ? b.assign(flag, e) : b.assign(result, e));
    }
    for (ScalarKind to : kinds) {
      if (types::isComplex(kind) && !types::isComplex(to) && !types::isBool(to)) continue;
      body.push_back(b.assign(result, b.cast(b.cast(x(), b.scalar(to)), type)));
    }
    body.push_back(b.assign(flag, b.make(TypedExprKind::Truth, b.boolean(), {x()})));
    body.push_back(b.assign(result, b.make(TypedExprKind::Conditional, type, {x(), x(), x()})));
    body.push_back(b.assign(result, b.make(TypedExprKind::And, type, {x(), x()})));
    body.push_back(b.assign(
        result,
        b.make(TypedExprKind::Or, type, {b.make(TypedExprKind::Conditional, type, {x(), x(), x()}), x()})));
    std::vector<CompareOp> compares = {CompareOp::Eq, CompareOp::NotEq};
    if (!types::isComplex(kind))
      compares.insert(compares.end(), {CompareOp::Lt, CompareOp::LtE, CompareOp::Gt, CompareOp::GtE});
    for (CompareOp op : compares) {
      // Each link converts its operands to its own type: here the middle operand keeps its
      // type, converted to x's for the first link, and x to the middle's for the second.
      TypedExpr* middle =
          types::isComplex(kind) ? x() : b.element(b.get(matrix), {b.integer(0), b.integer(1), b.integer(2)});
      TypedExpr* chain = b.make(TypedExprKind::CompareChain, b.boolean(), {x(), middle, x()});
      chain->compareOps = {op, op};
      chain->compareTypes = {chain->operands[0]->type, middle->type};
      body.push_back(b.assign(flag, chain));
      if (!types::isComplex(kind))
        body.push_back(b.assign(flag, b.compare(op, x(), b.get(value[ScalarKind::UInt64]))));
    }
    if (!types::isBool(kind))
      body.push_back(b.assign(
          result,
          b.builtin(Builtin::Abs,
                    types::isComplex(kind)
                        ? b.scalar(kind == ScalarKind::Complex64 ? ScalarKind::Float32 : ScalarKind::Float64)
                        : type,
                    {x()})));
    if (!types::isComplex(kind) && !types::isBool(kind)) {
      body.push_back(b.assign(result, b.builtin(Builtin::Min, type, {x(), x()})));
      body.push_back(b.assign(result, b.builtin(Builtin::Max, type, {x(), x(), x()})));
    }
  }
  // Abs of a complex assigned to a complex local would be ill-typed: fix those up to casts.
  for (TypedStmt* stmt : body) {
    if (stmt->kind == TypedStmtKind::Assign && stmt->operands[0]->type != b.fn().locals[stmt->local].type) {
      stmt->operands[0] = b.cast(stmt->operands[0], b.fn().locals[stmt->local].type);
    }
  }
  int real64 = b.local("real64", b.scalar(ScalarKind::Float64));
  int real32 = b.local("real32", b.f32());
  int integer = b.local("integer", b.i64());
  int truth = b.local("truth", b.boolean());
  int u32 = b.local("u32", b.scalar(ScalarKind::UInt32));
  int i32 = b.local("i32", b.i32());
  for (int k = 0; k <= static_cast<int>(Builtin::AssertFail); ++k) {
    Builtin which = static_cast<Builtin>(k);
    if (which <= Builtin::GridDimZ) {
      body.push_back(b.assign(u32, b.builtin(which, b.scalar(ScalarKind::UInt32))));
    } else if (which <= Builtin::LaneId) {
      body.push_back(b.assign(i32, b.builtin(which, b.i32())));
    } else if (which == Builtin::Syncthreads) {
      body.push_back(b.sync());
    } else if (which == Builtin::Abs || which == Builtin::Min || which == Builtin::Max) {
      continue;
    } else if (which == Builtin::AssertFail) {
      body.push_back(
          b.ifStmt(b.get(truth), {b.stmt(TypedStmtKind::Evaluate, {b.builtin(which, b.types.none())})}));
    } else if (which == Builtin::IsNan || which == Builtin::IsInf) {
      body.push_back(b.assign(truth, b.builtin(which, b.boolean(), {b.get(value[ScalarKind::Float32])})));
      body.push_back(b.assign(truth, b.builtin(which, b.boolean(), {b.get(value[ScalarKind::Int32])})));
    } else {
      bool two = which == Builtin::Atan2 || which == Builtin::Pow || which == Builtin::Copysign ||
                 which == Builtin::Fmod;
      auto operands = [&](ScalarKind kind) {
        std::vector<TypedExpr*> list = {b.get(value[kind])};
        if (two) list.push_back(b.get(value[kind]));
        return list;
      };
      body.push_back(b.assign(real32, b.builtin(which, b.f32(), operands(ScalarKind::Float32))));
      body.push_back(
          b.assign(real64, b.builtin(which, b.scalar(ScalarKind::Float64), operands(ScalarKind::Float64))));
      body.push_back(
          b.assign(real64, b.builtin(which, b.scalar(ScalarKind::Float64), operands(ScalarKind::Int16))));
      body.push_back(b.assign(integer, b.builtin(which, b.i64(), operands(ScalarKind::Float32))));
    }
  }
  // Arrays, tuples, calls and the remaining statements.
  int t = b.local("t", pair);
  int k = b.local("k", b.i32());
  TypedExpr* shape = b.make(TypedExprKind::ArrayShape, b.i64(), {b.get(matrix)});
  shape->index = 2;
  TypedExpr* stride = b.make(TypedExprKind::ArrayStride, b.i32(), {b.get(matrix)});
  stride->index = 1;
  TypedExpr* inner = b.make(TypedExprKind::TupleGet, pair->elements[1], {b.get(t)});
  inner->index = 1;
  TypedExpr* innerFlag = b.make(TypedExprKind::TupleGet, b.boolean(), {inner});
  innerFlag->index = 1;
  const Type* index3 = b.types.tuple({b.i32(), b.i64(), b.scalar(ScalarKind::UInt8)});
  TypedExpr* tupleIndexed =
      b.make(TypedExprKind::ArrayElement, b.scalar(ScalarKind::Float64),
             {b.get(matrix),
              b.make(TypedExprKind::TupleMake, index3,
                     {b.integer(1), b.integer(-1, b.i64()), b.integer(0, b.scalar(ScalarKind::UInt8))})});
  TypedStmt* whileLoop = b.stmt(TypedStmtKind::While, {b.get(k)});
  whileLoop->body = {
      b.assign(k, b.binary(BinaryOp::Sub, b.get(k), b.integer(1))),
      b.ifStmt(b.get(truth), {b.stmt(TypedStmtKind::Continue)}, {b.stmt(TypedStmtKind::Break)})};
  whileLoop->orelse = {b.assign(k, b.integer(9))};
  body.insert(body.end(),
              {
                  b.assign(t, b.call(helper, {b.make(TypedExprKind::ArraySize, b.i64(), {b.get(matrix)})})),
                  b.assign(integer, b.binary(BinaryOp::Add, shape, b.cast(stride, b.i64()))),
                  b.assign(truth, innerFlag),
                  b.store(tupleIndexed,
                          b.binary(BinaryOp::Add,
                                   b.element(b.get(matrix), {b.integer(0), b.integer(0), b.integer(0)}),
                                   b.cast(b.call(helper, {b.get(integer)}), b.scalar(ScalarKind::Float64)))),
                  b.stmt(TypedStmtKind::Evaluate, {b.call(procedure, {b.get(i32)})}),
                  b.assign(k, b.integer(3)),
                  whileLoop,
                  b.forRange(k, b.integer(10), b.integer(0), b.integer(-3), -1,
                             {b.stmt(TypedStmtKind::Continue)}, {b.assign(k, b.integer(1))}),
                  b.stmt(TypedStmtKind::Return),
              });
  body.back()->operands.clear();
  // helper(...) returns a tuple, not a float64: take its first element.
  TypedStmt* store = body[body.size() - 6];
  TypedExpr* call = store->operands[1]->operands[1]->operands[0];
  TypedExpr* first = b.make(TypedExprKind::TupleGet, b.i64(), {call});
  store->operands[1]->operands[1]->operands[0] = first;
  b.fn().body = body;
  codegen::EmittedUnit unit = b.emit();
  HostKernel kernel(unit);
  expectCompilesForSm90(unit);
}

// Runs the kernel's host entry as thread 0 of a one-thread grid; true when a failed check
// stopped it (the record then says what failed).
bool stoppedByCheck(const HostKernel& kernel, void** args) {
  host::ThreadContext context{};
  context.blockDim = {1, 1, 1};
  context.gridDim = {1, 1, 1};
  *kernel.record = ErrorRecord{};
  try {
    kernel.entry(&context, args);
  } catch (...) {
    EXPECT_NE(kernel.record->kind, static_cast<uint32_t>(CheckKind::None));
    return true;
  }
  EXPECT_EQ(kernel.record->kind, static_cast<uint32_t>(CheckKind::None));
  return false;
}

// A failed debug assert records its check site (whose table entry has the line) and stops the
// thread before anything after it runs.
TEST(Codegen, AssertFailRecordsItsSiteAndStops) {
  ProgramBuilder b;
  b.function("checked", true, nullptr);
  int a = b.param("a", b.types.array(ScalarKind::Int32, 1));
  TypedExpr* fail = b.builtin(Builtin::AssertFail, b.types.none());
  fail->text = "a[0] must not be negative";
  TypedStmt* check = b.ifStmt(b.compare(CompareOp::Lt, b.element(b.get(a), {b.integer(0)}), b.integer(0)),
                              {b.stmt(TypedStmtKind::Evaluate, {fail})});
  b.fn().body = {check, b.store(b.element(b.get(a), {b.integer(0)}), b.integer(1))};
  codegen::EmittedUnit unit = b.emit();
  EXPECT_NE(unit.source.find("weft::assert_failed("), std::string::npos) << unit.source;
  HostKernel kernel(unit, true);
  ASSERT_NE(kernel.record, nullptr);
  std::vector<int32_t> values = {5};
  Descriptor<1> d = vector(values);
  void* args[] = {&d};
  EXPECT_FALSE(stoppedByCheck(kernel, args));
  EXPECT_EQ(values[0], 1);
  values[0] = -5;
  ASSERT_TRUE(stoppedByCheck(kernel, args));
  EXPECT_EQ(values[0], -5);
  EXPECT_EQ(kernel.record->kind, static_cast<uint32_t>(CheckKind::Assert));
  ASSERT_LT(kernel.record->site, unit.checkSites.size());
  const codegen::EmittedUnit::CheckSite& site = unit.checkSites[kernel.record->site];
  EXPECT_EQ(site.line, fail->loc.line);
  EXPECT_EQ(site.message, "a[0] must not be negative");
  EXPECT_EQ(site.function, "checked");
  nvrtcPtxForSm90(unit, true);
}

// Checked element access (WEFT_CHECKS): an index out of bounds, negative ones after wrapping,
// stops the thread before the store and records the index, the shape and the failing axis;
// indices in bounds run as before.
TEST(Codegen, CheckedElementAccessStopsBeforeTheStore) {
  ProgramBuilder b;
  b.function("store2d", true, nullptr);
  int m = b.param("m", b.types.array(ScalarKind::Int32, 2));
  int i = b.param("i", b.i64()), j = b.param("j", b.i64());
  b.fn().body = {b.store(b.element(b.get(m), {b.get(i), b.get(j)}), b.integer(7))};
  codegen::EmittedUnit unit = b.emit();
  HostKernel kernel(unit, true);
  ASSERT_NE(kernel.record, nullptr);
  std::vector<int32_t> storage(12, 0);
  Descriptor<2> d{storage.data(), {3, 4}, {4, 1}};
  int64_t row = -1, column = -4;
  void* args[] = {&d, &row, &column};
  EXPECT_FALSE(stoppedByCheck(kernel, args));
  EXPECT_EQ(storage[8], 7);  // m[-1, -4] is m[2, 0]
  const std::pair<int64_t, int64_t> outside[] = {{3, 0}, {0, 4}, {-4, 0}, {1, -5}};
  for (auto [r, c] : outside) {
    row = r;
    column = c;
    std::vector<int32_t> before = storage;
    ASSERT_TRUE(stoppedByCheck(kernel, args)) << r << ", " << c;
    EXPECT_EQ(storage, before);
    const ErrorRecord& record = *kernel.record;
    EXPECT_EQ(record.kind, static_cast<uint32_t>(CheckKind::Bounds));
    EXPECT_EQ(record.detail, (r >= 3 || r < -3) ? 0u : 1u);
    EXPECT_EQ(record.axisIndex, (r >= 3 || r < -3) ? r : c);
    EXPECT_EQ(record.axisSize, (r >= 3 || r < -3) ? 3u : 4u);
    EXPECT_EQ(record.rank, 2u);
    EXPECT_EQ(record.indexCount, 2u);
    EXPECT_EQ(record.index[0], r);
    EXPECT_EQ(record.index[1], c);
    EXPECT_EQ(record.shape[0], 3u);
    EXPECT_EQ(record.shape[1], 4u);
  }
  // Unchecked (no WEFT_CHECKS), the same unit has no record and no check.
  HostKernel unchecked(unit);
  EXPECT_EQ(unchecked.record, nullptr);
}

// Without WEFT_CHECKS the bounds checks compile away: the GPU code of an unchecked lowering has
// no error record. A checked lowering of a debug program (every kind of check) has it, stops
// failing threads with exit and never traps.
TEST(Codegen, ChecksCompileAwayOnTheGpuUnlessEnabled) {
  const std::string source =
      "from cuda import device\n"
      "\n"
      "@device.kernel\n"
      "def k(a, m, out, d):\n"
      "    i = device.tid(1)\n"
      "    assert d != 3, 'three'\n"
      "    out[i] = a[-i] // d + m[i, :][0] % d\n";
  const std::vector<std::string> arguments = {"int32[:]", "int32[:, :]", "int32[:]", "int32"};
  auto plain = testing::checkKernel(source, "k", arguments, false);
  auto debug = testing::checkKernel(source, "k", arguments, true);
  ASSERT_TRUE(plain->ok() && debug->ok()) << plain->errors << debug->errors;
  codegen::EmittedUnit accesses = codegen::emitCuda(plain->program, plain->sources);
  codegen::EmittedUnit everything = codegen::emitCuda(debug->program, debug->sources);
  EXPECT_EQ(accesses.checkSites.size(), 4u);    // 3 element accesses and a slicing
  EXPECT_EQ(everything.checkSites.size(), 7u);  // and 2 divisions and an assert
  std::string unchecked = nvrtcPtxForSm90(accesses, false);
  if (unchecked.empty()) GTEST_SKIP() << "NVRTC is not installed";
  EXPECT_EQ(unchecked.find("weft_error_record"), std::string::npos);
  EXPECT_NE(nvrtcPtxForSm90(accesses, true).find("weft_error_record"), std::string::npos);
  std::string checked = nvrtcPtxForSm90(everything, true);
  EXPECT_NE(checked.find("weft_error_record"), std::string::npos);
  EXPECT_NE(checked.find("exit;"), std::string::npos);
  EXPECT_EQ(checked.find("trap;"), std::string::npos);
}

// Views from Python source through sema (debug=True: checked) and codegen: their values on the
// host, a failed precondition stopping the thread with its site and reason, and sm_90.
TEST(Codegen, CheckedArrayViewsRunOnHost) {
  auto checked = testing::checkKernel(
      "from cuda import device\n"
      "\n"
      "@device.kernel\n"
      "def k(a, out, step, flag):\n"
      "    v = a[6:1:step]\n"
      "    out[0] = len(v)\n"
      "    out[1] = v[0]\n"
      "    out[2] = a.reshape(2, -1)[1, 0]\n"
      "    out[3] = a[::2].reshape(2, 2)[1, 1]\n"
      "    out[4] = a.view(device.int32)[2]\n"
      "    if flag:\n"
      "        out[5] = a.reshape(2, 4)[:, :3].reshape(-1)[0]\n",
      "k", {"int64[:]", "int64[:]", "int64", "bool"}, true);
  ASSERT_TRUE(checked->ok()) << checked->errors;
  codegen::EmittedUnit unit = codegen::emitCuda(checked->program, checked->sources);
  EXPECT_NE(unit.source.find("weft::slice<1>(weft::ViewSite<true>{"), std::string::npos) << unit.source;
  HostKernel kernel(unit, true);
  ASSERT_NE(kernel.entry, nullptr);
  std::vector<int64_t> a = {0, 1, 2, 3, 4, 5, 6, 7}, out(6, -1);
  Descriptor<1> da = vector(a), dout = vector(out);
  int64_t step = -2;
  bool flag = false;
  void* args[] = {&da, &dout, &step, &flag};
  EXPECT_FALSE(stoppedByCheck(kernel, args));
  EXPECT_EQ(out, (std::vector<int64_t>{3, 6, 4, 6, 1, -1}));
  auto expectStop = [&](uint32_t line, ViewFailure failure, const std::string& source) {
    ASSERT_TRUE(stoppedByCheck(kernel, args));
    EXPECT_EQ(kernel.record->kind, static_cast<uint32_t>(CheckKind::View));
    EXPECT_EQ(kernel.record->detail, static_cast<uint32_t>(failure));
    ASSERT_LT(kernel.record->site, unit.checkSites.size());
    EXPECT_EQ(unit.checkSites[kernel.record->site].line, line);
    EXPECT_EQ(unit.checkSites[kernel.record->site].source, source);
  };
  step = 0;
  expectStop(5, ViewFailure::ZeroStep, "v = a[6:1:step]");
  // a[6:1:1] is empty: its element 0 is out of bounds.
  step = 1;
  ASSERT_TRUE(stoppedByCheck(kernel, args));
  EXPECT_EQ(kernel.record->kind, static_cast<uint32_t>(CheckKind::Bounds));
  EXPECT_EQ(kernel.record->axisSize, 0u);
  EXPECT_EQ(unit.checkSites[kernel.record->site].source, "out[1] = v[0]");
  step = -1;
  flag = true;
  expectStop(12, ViewFailure::ReshapeCopy, "out[5] = a.reshape(2, 4)[:, :3].reshape(-1)[0]");
  nvrtcPtxForSm90(unit, true);
}

// Something codegen cannot spell is an internal compiler error, never broken C++.
TEST(Codegen, UnsupportedInputIsAnInternalError) {
  ProgramBuilder b;
  b.function("bad", true, nullptr);
  b.param("h", b.types.error());
  EXPECT_THROW(b.emit(), InternalCompilerError);
  ProgramBuilder noKernel;
  noKernel.function("helper", false, nullptr);
  EXPECT_THROW(noKernel.emit(), InternalCompilerError);
}

// Every user-chosen name is <kind prefix>_<readable ASCII>_<index>: never a keyword, macro or
// reserved identifier, and two entities of one kind and scope never share a name.
TEST(Codegen, UserNamesAreMangled) {
  using codegen::NameKind;
  using codegen::userName;
  EXPECT_EQ(userName(NameKind::Local, "x", 3), "v_x_3");
  EXPECT_EQ(userName(NameKind::Local, "NAN", 0), "v_NAN_0");
  EXPECT_EQ(userName(NameKind::Function, "helper__f32_f32", 2), "wf_helper_f32_f32_2");
  EXPECT_EQ(userName(NameKind::Struct, "int32_t", 0), "s_int32_t_0");
  EXPECT_EQ(userName(NameKind::Member, "errno", 1), "m_errno_1");
  EXPECT_EQ(userName(NameKind::Kernel, "saxpy", 4), "weft_saxpy_4");
  EXPECT_EQ(userName(NameKind::Local, "__CUDA_ARCH__", 1), "v_CUDA_ARCH_1");
  EXPECT_EQ(userName(NameKind::Local, "_", 2), "v_2");
  EXPECT_EQ(userName(NameKind::Local, "$t0", 5), "v_t0_5");  // sema's temporaries
  EXPECT_EQ(userName(NameKind::Local, "\u03c0", 1), "v_u03c0_1");
  EXPECT_EQ(userName(NameKind::Local, "caf\u00e9_x", 1), "v_caf_u00e9_x_1");
  EXPECT_EQ(userName(NameKind::Member, "a b.c", 1), "m_a_b_c_1");  // NumPy field names are any string
  EXPECT_EQ(userName(NameKind::Member, "\U0001D538", 0), "m_u1d538_0");
  EXPECT_EQ(userName(NameKind::Local, std::string(300, 'y'), 7), "v_" + std::string(64, 'y') + "_7");
  const char* clashing[] = {"a_1", "a", "a__1", "_a_1_", "a_1_2", "a\u00e9", "a_u00e9", "a1", "", "_", "1"};
  std::set<std::string> names;
  for (size_t i = 0; i < std::size(clashing); ++i) {
    std::string name = userName(NameKind::Local, clashing[i], i);
    EXPECT_EQ(name.find("__"), std::string::npos) << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), std::size(clashing));
  EXPECT_EQ(codegen::commentText("a\nb\\c\x7f"), "a?b?c?");
}

}  // namespace
}  // namespace weft
