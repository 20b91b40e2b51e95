// Structs with atomic fields (the specification's ticket_mutex) and WarpMask lanes: the layout
// of Atomic members, sema's in-place rules (methods and parameters bind by reference, atomic
// fields read as AtomicRefs, copies are errors with the fix in the message), the fiber
// requirement of a wait inside a method, and the emitted C++ compiled for the CPU and sm_90.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "codegen/codegen.h"
#include "sema/sema.h"
#include "sema/static_environment.h"
#include "sema/typed_dump.h"
#include "syntax/syntax.h"
#include "sema_test_support.h"
#include "types/layout.h"

namespace weft {
namespace {

using types::ScalarKind;

#ifndef WEFT_SOURCE_DIR
#error "WEFT_SOURCE_DIR must name the repository (CMake defines it for weft_tests)"
#endif

using Checked = testing::CheckedKernel;

const char* kPrelude = R"(from cuda import device

@device.struct
class ticket_mutex:
    line: device.Atomic(int, align=16)
    current: device.Atomic(int, align=16)

    @device.func
    def lock(self):
        my = self.line.add(1)
        while True:
            now = self.current.load()
            if now == my:
                break
            self.current.wait(now)

    @device.func
    def unlock(self):
        self.current.add(1)
        self.current.notify_all()

@device.struct
class guarded:
    mutex: ticket_mutex
    count: device.int64

)";

std::unique_ptr<Checked> check(const std::string& body) {
  return testing::checkAnnotated(std::string(kPrelude) + body, "k", "atomic.py");
}

int preludeLines() {
  int lines = 0;
  for (char c : std::string(kPrelude)) lines += c == '\n' ? 1 : 0;
  return lines;
}

// Expects the first diagnostic to be `kind` on line `line` of `body`, its text containing `text`.
void expectError(const std::string& body, const std::string& kind, const std::string& text, int line) {
  auto checked = check(body);
  ASSERT_FALSE(checked->diagnostics.all().empty()) << body;
  EXPECT_EQ(checked->kinds().front(), kind) << checked->errors;
  EXPECT_NE(checked->errors.find(text), std::string::npos) << checked->errors;
  EXPECT_EQ(static_cast<int>(checked->diagnostics.all().front().loc.line), preludeLines() + line)
      << checked->errors;
}


TEST(AtomicStructLayout, AtomicMembersAreAlignedAndPadded) {
  types::TypeContext types;
  const types::Type* line = types.atomic(ScalarKind::Int32, 16);
  types::Type mutex;
  mutex.kind = types::TypeKind::Struct;
  mutex.name = "ticket_mutex";
  mutex.identity = 1;
  mutex.fieldNames = {"line", "current"};
  mutex.elements = {line, line};
  types::Layout layout = types::layoutOf(types.structType(mutex));
  EXPECT_EQ(layout.offsets, (std::vector<uint64_t>{0, 16}));
  EXPECT_EQ(layout.size, 32u);
  EXPECT_EQ(layout.align, 16u);
  // An Atomic occupies its alignment: the next field starts after the padding.
  types::Type flag;
  flag.kind = types::TypeKind::Struct;
  flag.name = "flag";
  flag.identity = 2;
  flag.fieldNames = {"set", "tag"};
  flag.elements = {types.atomic(ScalarKind::Int8, 4), types.scalar(ScalarKind::Int8)};
  const types::Type* flagType = types.structType(flag);
  EXPECT_EQ(types::layoutOf(flagType).offsets, (std::vector<uint64_t>{0, 4}));
  EXPECT_EQ(types::layoutOf(flagType).size, 8u);
  EXPECT_TRUE(types::holdsAtomic(flagType));
  EXPECT_TRUE(types::holdsAtomic(types.tuple({types.scalar(ScalarKind::Int32), flagType})));
  EXPECT_FALSE(types::holdsAtomic(types.array(flagType, 1)));  // an array is a descriptor
  EXPECT_FALSE(types::holdsAtomic(types.atomicRef(ScalarKind::Int32)));
}

TEST(AtomicStructSema, MethodsBindTheElementByReference) {
  auto checked = check(R"(
def locked_add(m, counter, value):
    m.lock()
    counter[0] = counter[0] + value
    m.unlock()

@device.kernel
def k(mutexes: ticket_mutex[:], gs: guarded[:], counter: device.int64[:]):
    if device.thread_idx.x == 0:
        mutexes[device.block_idx.x].lock()
        counter[0] = counter[0] + gs[0].count
        mutexes[device.block_idx.x].unlock()
        locked_add(gs[1].mutex, counter, 2)
    block = device.shared_array(1, guarded)
    if device.thread_idx.x == 0:
        block[0].mutex.line.store(0)
        block[0].mutex.current.store(0)
    device.syncthreads()
    r = block[0].mutex.line
    r.add(1, memory="relaxed", scope="block")
)");
  ASSERT_EQ(checked->errors, "");
  EXPECT_NE(checked->dump.find("local r: AtomicRef(int32)"), std::string::npos) << checked->dump;
  codegen::EmittedUnit unit = codegen::emitCuda(checked->program, checked->sources);
  EXPECT_NE(
      unit.source.find(
          "struct s_ticket_mutex_0 { weft::Atomic<int32_t, 16> m_line_0; weft::Atomic<int32_t, 16> m_current_1; };"),
      std::string::npos)
      << unit.source;
  EXPECT_NE(unit.source.find("static_assert(sizeof(s_ticket_mutex_0) == 32 && "
                             "alignof(s_ticket_mutex_0) == 16"),
            std::string::npos)
      << unit.source;
  EXPECT_NE(unit.source.find("__builtin_offsetof(s_ticket_mutex_0, m_current_1) == 16"),
            std::string::npos)
      << unit.source;
  // Parameters of such structs are references; self.line is the member's AtomicRef.
  EXPECT_NE(unit.source.find("(s_ticket_mutex_0& v_self_0)"), std::string::npos) << unit.source;
  EXPECT_NE(unit.source.find("(s_ticket_mutex_0& v_m_0, "), std::string::npos) << unit.source;
  EXPECT_NE(unit.source.find("weft::atomic_add<5, 3>(weft::atomic_ref_of((v_self_0).m_line_0), 1)"),
            std::string::npos)
      << unit.source;
  EXPECT_NE(unit.source.find("WEFT_SHARED_STORAGE(s_guarded_1, "), std::string::npos)
      << unit.source;
  testing::expectUnitCompiles(unit.source, "atomic");
}

TEST(AtomicStructSema, EvaluationOrderTemporariesReferTheElement) {
  // Two operands with effects and a call: codegen holds them in temporaries, which for a struct
  // with atomics must be references (a copy would lock a copy).
  auto checked = check(R"(
def take(m, n):
    m.lock()
    m.unlock()

def bump(counter):
    counter[0] = counter[0] + 1
    return 0

@device.kernel
def k(mutexes: ticket_mutex[:], counter: device.int32[:]):
    take(mutexes[counter[1]], bump(counter))
)");
  ASSERT_EQ(checked->errors, "");
  codegen::EmittedUnit unit = codegen::emitCuda(checked->program, checked->sources);
  EXPECT_NE(unit.source.find("s_ticket_mutex_0& w_"), std::string::npos) << unit.source;
  testing::expectUnitCompiles(unit.source, "atomic");
}

TEST(AtomicStructErrors, CopiesSayHowToUseItInPlace) {
  const std::string k = "@device.kernel\ndef k(ms: ticket_mutex[:], gs: guarded[:], out: device.int32[:]):\n";
  expectError(k + "    m = ms[0]\n", "AtomicStructCopy",
              "assigning it to variable 'm' would copy ticket_mutex, whose atomic fields must stay in memory",
              3);
  expectError(k + "    m = ms[0]\n", "AtomicStructCopy", "use it in place (m[i].lock(), m[i].field)", 3);
  expectError(k + "    ms[1] = ms[0]\n", "AtomicStructCopy",
              "storing into an array element would copy ticket_mutex", 3);
  expectError(k + "    t = (1, gs[0])\n", "AtomicStructCopy", "putting it in a tuple would copy guarded", 3);
  expectError(k + "    g = gs[0].replace(count=2)\n", "AtomicStructCopy", "replace() would copy guarded", 3);
  expectError("def give(m):\n    return m\n\n" + k + "    give(ms[0]).lock()\n", "AtomicStructCopy",
              "returning it would copy ticket_mutex", 2);
  expectError(k + "    n = ticket_mutex(0, 0)\n", "AtomicStructConstruct",
              "ticket_mutex(...) has atomic fields, so device code cannot make one as a value; give it "
              "memory and use "
              "it in place: s = device.shared_array(n, ticket_mutex)",
              3);
  expectError(k + "    ms[0].current = 1\n", "AtomicFieldAssign",
              "field 'current' of struct ticket_mutex is atomic: write it with an atomic method such as "
              "s.current.store(value)",
              3);
  expectError(k + "    gs[0].count = 1\n", "StructImmutable",
              "field 'count' of struct guarded cannot be assigned; to change it in place, make it atomic", 3);
  expectError("@device.kernel\ndef k(m: ticket_mutex, out: device.int32[:]):\n    out[0] = 1\n",
              "AtomicStructArgument",
              "kernel parameter 'm' would receive ticket_mutex by value, but atomics in a copy are seen by "
              "no other thread",
              2);
}

TEST(AtomicStructErrors, MalformedAtomicFields) {
  for (const char* annotation : {"device.Atomic(device.complex128)", "device.Atomic(int, align=3)",
                                 "device.Atomic(int, order=4)", "device.Atomic()"}) {
    auto checked =
        check(std::string("@device.struct\nclass bad:\n    x: ") + annotation +
              "\n\n@device.kernel\ndef k(out: device.int32[:]):\n    s = device.shared_array(1, bad)\n");
    ASSERT_FALSE(checked->diagnostics.all().empty()) << annotation;
    EXPECT_EQ(checked->kinds().front(), "StructField") << checked->errors;
    EXPECT_NE(checked->errors.find(std::string("field 'x' of struct 'bad' needs a type annotation")),
              std::string::npos)
        << checked->errors;
  }
}

// ---- WarpMask ----

TEST(WarpMaskSema, LanesOfMasksOnly) {
  auto checked = check(R"(
@device.kernel
def k(out: device.int32[:], flags: device.bool_[:]):
    mask = device.ballot_sync(0xFFFFFFFF, lambda: out[device.lane_id] > 0)
    lanes, same = device.match_all_sync(device.activemask(), out[0])
    explicit = device.WarpMask(out[1])
    below = device.lanemask_lt()
    mask[device.lane_id] = flags[0]
    explicit[3] = True
    plain = mask & 6
    inverted = ~mask
    reversed = device.brev(mask)
    moved = device.shfl_sync(0xFFFFFFFF, mask, 0)
    flags[0] = mask[0] and lanes[31] and explicit[3] and below[2] and device.match_any_sync(mask, 1)[4]
    out[2] = device.popc(mask) + plain
)");
  ASSERT_EQ(checked->errors, "");
  for (const char* local :
       {"local mask: WarpMask", "local lanes: WarpMask", "local explicit: WarpMask", "local below: WarpMask",
        "local plain: uint32", "local inverted: uint32", "local reversed: uint32", "local moved: WarpMask"}) {
    EXPECT_NE(checked->dump.find(local), std::string::npos) << local << "\n" << checked->dump;
  }
  codegen::EmittedUnit unit = codegen::emitCuda(checked->program, checked->sources);
  EXPECT_NE(unit.source.find("weft::with_lane_bit("), std::string::npos) << unit.source;
  EXPECT_NE(unit.source.find("weft::lane_bit("), std::string::npos) << unit.source;
  testing::expectUnitCompiles(unit.source, "atomic");

  const std::string k = "@device.kernel\ndef k(out: device.int32[:]):\n    mask = device.activemask()\n";
  expectError(k + "    out[0] = mask[32]\n", "WarpMaskLane",
              "lane 32 is out of range for a WarpMask, whose lanes are 0 to 31", 4);
  expectError(k + "    mask[-1] = False\n", "WarpMaskLane", "lane -1 is out of range", 4);
  expectError(k + "    out[0] = mask[1.5]\n", "ArgumentType",
              "argument 1 of WarpMask[] must be an integer lane, not float32", 4);
  expectError(k + "    n = device.uint32(mask)\n    out[0] = n[0]\n", "NotSubscriptable",
              "uint32 is not subscriptable", 5);
  expectError(k + "    device.activemask()[2] = True\n", "AssignTarget",
              "a lane of a WarpMask that is not in a variable", 4);
}

}  // namespace
}  // namespace weft
