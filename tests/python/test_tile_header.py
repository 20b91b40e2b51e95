"""The C++ tile header (include/weft/tiles.h, exposed as cuda::tiles by <weft/cuda_tile.h>).

Its test programs (tests/tiles/*.cu) check every operation against a scalar reference computed
in the program on seeded random data (WEFT_TEST_SEED). Each program is
(a) built by the host compiler with -DWEFT_HOST and run: the CPU target, one thread per tile
    block, and again with -DWEFT_TILES_EMULATE_BLOCK, where kBlockThreads host threads run the
    GPU algorithms (layouts, shared-memory exchanges, warp shuffles, barriers);
(b) compiled for sm_90 by nvcc (ptxas accepts the device code) and by NVRTC with no standard
    library headers (main() is skipped there);
(c) on the GPU (marked `gpu`): built by nvcc and run.
The Hopper building blocks' programs (tests/tiles/test_sm90_*.cu, <weft/tiles/sm90.h>) are GPU
only: compiled for sm_90a by nvcc (ptxas accepts them) and built and run on an sm_90 GPU; their
layout arithmetic (test_sm90_layout.cu) runs on the host, as does where the TMA store of an epilogue
puts an accumulator in its box (test_store_tma.cu).
Ill-formed uses must fail to compile with the header's static_assert message.
"""

import ctypes
import os
import pathlib
import shutil
import subprocess

import pytest

from conftest import SEED

REPO = pathlib.Path(__file__).resolve().parents[2]
TILES = REPO / "tests" / "tiles"
INCLUDE = REPO / "include"
CUDA = pathlib.Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
NVCC = CUDA / "bin" / "nvcc"
CXX = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")

PROGRAMS = ["seed_examples", "test_elementwise", "test_numeric", "test_memory", "test_shape_reduce", "test_atomic",
            "test_mma", "test_mma_rows", "test_mma_columns"]
SM90_PROGRAMS = ["test_sm90_sync", "test_sm90_tma", "test_sm90_wgmma", "test_sm90_stage_wgmma"]
EXAMPLES = [REPO / "examples" / "cpp" / "tile_softmax.cu"]

HOST_FLAGS = ["-std=c++20", "-O0", "-Wall", "-Wextra", "-Werror", "-DWEFT_HOST", f"-I{INCLUDE}", f"-I{TILES}"]
NVCC_FLAGS = ["-std=c++20", "-arch=sm_90", f"-I{INCLUDE}", f"-I{TILES}", "-Werror", "all-warnings"]
SM90A_FLAGS = ["-std=c++20", "-arch=sm_90a", f"-I{INCLUDE}", f"-I{TILES}", "-Werror", "all-warnings"]

needs_toolkit = pytest.mark.skipif(not NVCC.exists(), reason=f"no CUDA toolkit at {CUDA}")


def source_of(name):
    return TILES / f"{name}.cu"


def compiler():
    """The host compiler, through ccache when there is one (the programs are template-heavy)."""
    if CXX is None:
        pytest.skip("no host C++ compiler")
    launcher = shutil.which("ccache")
    return [launcher, CXX] if launcher else [CXX]


def run_program(executable):
    result = subprocess.run([str(executable)], capture_output=True, text=True, timeout=600,
                            env={**os.environ, "WEFT_TEST_SEED": str(SEED)})
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "0 failures" in result.stdout


# Layout-sensitive programs also run with the largest tile block weft's code generator uses.
WIDE_BLOCK = ["test_memory", "test_shape_reduce", "test_mma", "test_mma_rows", "test_mma_columns"]
HOST_MODES = {"serial": [], "emulated": ["-DWEFT_TILES_EMULATE_BLOCK"],
              "emulated512": ["-DWEFT_TILES_EMULATE_BLOCK", "-DWEFT_TILE_THREADS=512"],
              # The vector weft's code generator gives kernels that move 16-bit elements.
              "emulated512v8": ["-DWEFT_TILES_EMULATE_BLOCK", "-DWEFT_TILE_THREADS=512", "-DWEFT_TILE_MAX_VECTOR=8"]}


@pytest.mark.parametrize("mode", sorted(HOST_MODES))
@pytest.mark.parametrize("name", PROGRAMS)
def test_host(name, mode, tmp_path):
    """(a) The program on the CPU target (one thread per tile block) and with the GPU algorithms
    emulated by kBlockThreads host threads (128, and 512 with vectors of 4 and 8 elements for the
    layout-sensitive programs); every check passes."""
    if mode.startswith("emulated512") and name not in WIDE_BLOCK:
        pytest.skip("the element-wise programs do not depend on the block size")
    executable = tmp_path / name
    flags = HOST_FLAGS + HOST_MODES[mode]
    build = subprocess.run([*compiler(), *flags, "-x", "c++", str(source_of(name)), "-o", str(executable)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-8000:]
    run_program(executable)


@needs_toolkit
@pytest.mark.parametrize("path", [source_of(name) for name in PROGRAMS + ["nvrtc_unit"]] + EXAMPLES, ids=lambda p: p.stem)
def test_nvcc_sm90(path, tmp_path):
    """(b) nvcc compiles the program for sm_90 (ptxas accepts every kernel) without warnings."""
    build = subprocess.run([str(NVCC), *NVCC_FLAGS, "-c", str(path), "-o", str(tmp_path / "unit.o")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-6000:] + build.stderr[-6000:]


def nvrtc_library():
    for folder in ("lib64", "lib", "targets/x86_64-linux/lib"):
        for candidate in sorted((CUDA / folder).glob("libnvrtc.so*")) if (CUDA / folder).is_dir() else []:
            if "builtins" not in candidate.name and "alt" not in candidate.name:
                return ctypes.CDLL(str(candidate))
    pytest.skip("no NVRTC in the CUDA toolkit")


def nvrtc_compile(source, name, options):
    """Compiles `source` with NVRTC; returns (status, log)."""
    nvrtc = nvrtc_library()
    program = ctypes.c_void_p()
    assert nvrtc.nvrtcCreateProgram(ctypes.byref(program), source.encode(), name.encode(), 0, None, None) == 0
    encoded = [option.encode() for option in options]
    status = nvrtc.nvrtcCompileProgram(program, len(encoded), (ctypes.c_char_p * len(encoded))(*encoded))
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(program, log)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    return status, log.value.decode(errors="replace")


@needs_toolkit
@pytest.mark.parametrize("path", [source_of("nvrtc_unit"), source_of("seed_examples")] + EXAMPLES, ids=lambda p: p.stem)
def test_nvrtc_sm90(path):
    """(b) NVRTC compiles kernels using every part of the header (tests/tiles/nvrtc_unit.cu: the
    test programs' kernels are templates only their main() instantiates) to sm_90 machine code,
    with no standard library headers and without -default-device."""
    options = ["-std=c++20", "-arch=sm_90", f"-I{INCLUDE}", f"-I{TILES}", f"-I{CUDA / 'include'}"]
    status, log = nvrtc_compile(path.read_text(), path.name, options)
    assert status == 0, log[-8000:]


@needs_toolkit
@pytest.mark.gpu
@pytest.mark.parametrize("name", PROGRAMS)
def test_gpu(name, tmp_path):
    """(c) The program built by nvcc and run on the GPU; every check passes."""
    executable = tmp_path / name
    build = subprocess.run([str(NVCC), "-std=c++20", "-arch=native", "-O3", f"-I{INCLUDE}", f"-I{TILES}",
                            str(source_of(name)), "-o", str(executable)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-8000:]
    run_program(executable)


def test_sm90_layout_host(tmp_path):
    """(a) The Hopper blocks' constexpr layout arithmetic (swizzled smem tiles against TMA's
    swizzle, wgmma descriptors, the accumulator fragment) on the host."""
    executable = tmp_path / "test_sm90_layout"
    build = subprocess.run([*compiler(), *HOST_FLAGS, "-x", "c++", str(source_of("test_sm90_layout")), "-o",
                            str(executable)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-8000:]
    run_program(executable)


def test_store_tma_layout_host(tmp_path):
    """(a) Where the TMA store of a tile kernel's epilogue (weft/tiles/store_tma.h) puts each
    fragment element of wgmma's and mma.sync's accumulator layouts in its swizzled box, on the
    host with 256 emulated threads (the layouts' warps)."""
    executable = tmp_path / "test_store_tma"
    flags = HOST_FLAGS + ["-DWEFT_TILES_EMULATE_BLOCK", "-DWEFT_TILE_THREADS=256"]
    build = subprocess.run([*compiler(), *flags, "-x", "c++", str(source_of("test_store_tma")), "-o", str(executable)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-8000:]
    run_program(executable)


@needs_toolkit
@pytest.mark.parametrize("name", SM90_PROGRAMS)
def test_nvcc_sm90a(name, tmp_path):
    """(b) nvcc compiles the Hopper building blocks' program for sm_90a without warnings: ptxas
    accepts every wgmma, TMA, mbarrier, cluster, setmaxnreg and stmatrix form it instantiates."""
    build = subprocess.run([str(NVCC), *SM90A_FLAGS, "-c", str(source_of(name)), "-o", str(tmp_path / "unit.o")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-6000:] + build.stderr[-6000:]


BENCH_WGMMA = REPO / "bench" / "tile_header" / "bench_gemm_wgmma.cu"


@needs_toolkit
def test_nvcc_bench_gemm_wgmma(tmp_path):
    """The warp-specialized wgmma GEMM benchmark built from the Hopper blocks compiles for sm_90a
    without warnings."""
    build = subprocess.run([str(NVCC), *SM90A_FLAGS, "-O3", "-c", str(BENCH_WGMMA), "-o", str(tmp_path / "bench.o")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-6000:] + build.stderr[-6000:]


SM90_NVRTC_UNIT = r"""
#include <weft/cuda_tile.h>
namespace s = ::weft::tiles::sm90;
extern "C" __global__ void __launch_bounds__(256, 1) hopper_unit(const __grid_constant__ s::tensor_map map, float* out) {
  __shared__ __align__(1024) unsigned char tile[2 * 8192];
  __shared__ s::mbarrier_ring<2> ring;
  using L = s::smem_tile<64, 64, 2, s::swizzle::b128>;
  if (threadIdx.x == 0) ring.init(1, 1);
  __syncthreads();
  s::ring_position<2> p;
  if (threadIdx.x < 128) {
    s::setmaxnreg_dec<40>();
    if (threadIdx.x < 32 && s::elect_one()) {
      ring.acquire(p);
      ring.commit(p, 2 * L::kBytes);
      s::tma_load(tile, &map, ring.full_barrier(p), 0, 0);
      s::tma_load_multicast(tile + L::kBytes, &map, ring.full_barrier(p), 1, 0, 64);
    }
    return;
  }
  s::setmaxnreg_inc<232>();
  ring.wait(p);
  float d[64];
  const uint32_t a = s::shared_address(tile), b = a + L::kBytes;
  s::wgmma_fence();
  for (uint32_t k = 0; k < 4; ++k) {
    s::wgmma<s::wgmma_type::bf16, 128, true>(d, L::k_major_descriptor(a, k), L::mn_major_descriptor(b, k), k > 0);
  }
  s::wgmma_commit();
  s::wgmma_wait<0>();
  if (threadIdx.x == 128) ring.release(p);
  uint32_t r[4] = {__float_as_uint(d[0]), __float_as_uint(d[1]), __float_as_uint(d[2]), __float_as_uint(d[3])};
  s::stmatrix<4, true>(tile + (threadIdx.x % 32) * 16, r);
  s::fence_proxy_async();
  asm volatile("bar.sync 1, 128;");
  if (threadIdx.x == 128) {
    s::tma_store(&map, tile, 0, s::cluster_ctarank());
    s::tma_store_commit();
    s::tma_store_wait<0>();
  }
  out[threadIdx.x] = d[s::wgmma_row(threadIdx.x % 128, 5) % 64];
}
"""


@needs_toolkit
def test_nvrtc_sm90a():
    """(b) For sm_90a NVRTC compiles the tile header with the Hopper building blocks in it (the
    header includes <weft/tiles/sm90.h> where __CUDA_ARCH_FEAT_SM90_ALL is defined), with no
    standard library headers, beside every other part of the header (tests/tiles/nvrtc_unit.cu);
    for plain sm_90 they are absent."""
    source = SM90_NVRTC_UNIT
    options = ["-std=c++20", f"-I{INCLUDE}", f"-I{CUDA / 'include'}"]
    status, log = nvrtc_compile(source, "hopper_unit.cu", options + ["-arch=sm_90a"])
    assert status == 0, log[-8000:]
    status, log = nvrtc_compile(source, "hopper_unit.cu", options + ["-arch=sm_90"])
    assert status != 0 and "sm90" in log, log[-4000:]
    # The whole tile header next to the Hopper blocks.
    unit = source_of("nvrtc_unit")
    status, log = nvrtc_compile(unit.read_text(), unit.name, options + [f"-I{TILES}", "-arch=sm_90a"])
    assert status == 0, log[-8000:]


def gpu_is_sm90():
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    query = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True, text=True)
    return query.returncode == 0 and query.stdout.split()[:1] == ["9.0"]


@needs_toolkit
@pytest.mark.gpu
@pytest.mark.parametrize("name", SM90_PROGRAMS)
def test_gpu_sm90a(name, tmp_path):
    """(c) The Hopper building blocks' program built for sm_90a and run on an sm_90 GPU; every
    check passes."""
    if not gpu_is_sm90():
        pytest.skip("needs an sm_90 GPU (H100 / H200)")
    executable = tmp_path / name
    build = subprocess.run([str(NVCC), "-std=c++20", "-arch=sm_90a", "-O3", f"-I{INCLUDE}", f"-I{TILES}",
                            str(source_of(name)), "-o", str(executable)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-8000:]
    run_program(executable)


@needs_toolkit
@pytest.mark.gpu
def test_gpu_bench_gemm_wgmma(tmp_path):
    """The wgmma GEMM benchmark on an sm_90 GPU: every element of each product (square, odd and
    small shapes) agrees with cuBLAS's fp32 result to bf16 precision (it prints its TFLOP/s)."""
    if not gpu_is_sm90():
        pytest.skip("needs an sm_90 GPU (H100 / H200)")
    executable = tmp_path / "bench_gemm_wgmma"
    build = subprocess.run([str(NVCC), "-std=c++20", "-arch=sm_90a", "-O3", f"-I{INCLUDE}", str(BENCH_WGMMA),
                            "-lcublas", "-o", str(executable)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-8000:]
    result = subprocess.run([str(executable)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0 and "0 failures" in result.stdout, result.stdout[-6000:] + result.stderr[-2000:]


@pytest.mark.parametrize("mode", ["serial", "emulated"])
def test_example_softmax_host(mode, tmp_path):
    """examples/cpp/tile_softmax.cu runs on the CPU and checks itself against a scalar softmax."""
    executable = tmp_path / "tile_softmax"
    flags = HOST_FLAGS + HOST_MODES[mode]
    build = subprocess.run([*compiler(), *flags, "-x", "c++", str(EXAMPLES[0]), "-o", str(executable)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-8000:]
    result = subprocess.run([str(executable)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0 and "max error" in result.stdout, result.stdout + result.stderr


@needs_toolkit
@pytest.mark.gpu
def test_example_softmax_gpu(tmp_path):
    """The softmax example on the GPU (prints its bandwidth)."""
    executable = tmp_path / "tile_softmax"
    build = subprocess.run([str(NVCC), "-std=c++20", "-arch=native", "-O3", f"-I{INCLUDE}", str(EXAMPLES[0]), "-o",
                            str(executable)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-8000:]
    result = subprocess.run([str(executable)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


# ---- Ill-formed uses: the header's static_assert messages ----------------------------------------

ILL_FORMED = {
    "non_power_of_2": ("ct::tile<float, ct::shape<4, 7>> t;", "every dimension of a tile shape must be a power of 2"),
    "index_type": ("ct::tile<float, ct::extents<int16_t, 4, 8>> t;", "index type must be uint32_t"),
    "dynamic_shape": ("ct::tile<float, ct::extents<uint32_t, ct::dynamic_extent>> t;", "static dimensions only"),
    "too_big": ("ct::tile<char, ct::shape<2048, 1024>> t;", "more elements than weft::tiles::kMaxTileSize"),
    "element_type": ("struct S { int a; }; ct::tile<S, ct::shape<4>> t;", "a tile's element type must be a scalar"),
    "narrowing_scalar": ("auto x = ct::full<ct::tile<int, ct::shape<8>>>(42); auto y = 2.0 * x;",
                         "the arithmetic conversion narrows an operand"),
    "narrowing_sign": ("auto x = ct::full<ct::tile<int, ct::shape<8>>>(42); auto y = x + 1u;",
                       "the arithmetic conversion narrows an operand"),
    "unordered_ranks": ("auto x = ct::zeros<ct::tile<weft::float16, ct::shape<8>>>();"
                        "auto y = ct::zeros<ct::tile<weft::bfloat16, ct::shape<8>>>(); auto z = x + y;",
                        "no arithmetic common type"),
    "broadcast": ("auto x = ct::zeros<ct::tile<float, ct::shape<4, 2>>>();"
                  "auto y = ct::zeros<ct::tile<float, ct::shape<8, 2>>>(); auto z = x + y;",
                  "not broadcast compatible"),
    "restricted": ("auto x = ct::zeros<ct::tile<ct::tfloat32, ct::shape<8>>>(); auto y = ct::neg(x);",
                   "restricted floating point types"),
    "math_on_int": ("auto x = ct::zeros<ct::tile<int, ct::shape<8>>>(); auto y = ct::exp(x);",
                    "math functions take tiles of float16, bfloat16, float or double"),
    "rounding_on_int": ("auto x = ct::zeros<ct::tile<int, ct::shape<8>>>();"
                        "auto y = ct::add(x, x, ct::round_toward_zero_t{});",
                        "rounding and subnormal modes apply to floating point operands only"),
    "approximate_add": ("auto x = ct::zeros<ct::tile<float, ct::shape<8>>>();"
                        "auto y = ct::add(x, x, ct::round_approximate_t{});",
                        "only the precise rounding modes"),
    "bitwise_on_float": ("auto x = ct::zeros<ct::tile<float, ct::shape<8>>>(); auto y = x & x;",
                         "bitwise operations and shifts take integral tiles"),
    "reduce_axis": ("auto x = ct::zeros<ct::tile<float, ct::shape<8>>>(); auto y = ct::sum<1>(x);",
                    "the axis must be less than the tile's rank"),
    "reshape_size": ("auto x = ct::zeros<ct::tile<float, ct::shape<8>>>(); auto y = ct::reshape<ct::shape<4>>(x);",
                     "ct::reshape keeps the number of elements"),
    "permutation": ("auto x = ct::zeros<ct::tile<float, ct::shape<8, 4>>>(); auto y = ct::permute<0, 0>(x);",
                    "must be a permutation"),
    "cat_length": ("auto x = ct::zeros<ct::tile<float, ct::shape<8, 4>>>();"
                   "auto y = ct::zeros<ct::tile<float, ct::shape<8, 2>>>(); auto z = ct::cat<1>(x, y);",
                   "joined length along the axis must be a power of 2"),
    "broadcast_to": ("auto x = ct::zeros<ct::tile<float, ct::shape<8, 4>>>(); auto y = ct::broadcast_to<ct::shape<8, 8>>(x);",
                     "not broadcastable to the target shape"),
    "padding_int": ("int* p = nullptr; auto s = ct::tensor_span{p, ct::extents{8}};"
                    "auto v = ct::partition_view<decltype(s), ct::shape<8>>(s, ct::padding_nan_t{});",
                    "infinity and NaN paddings need a floating point span"),
    "store_const": ("const float* p = nullptr; auto s = ct::tensor_span{p, ct::extents{8}};"
                    "auto v = ct::partition_view<decltype(s), ct::shape<8>>(s);"
                    "ct::store(v, ct::zeros<ct::tile<float, ct::shape<8>>>(), 0);",
                    "the span's elements are const"),
    "store_type": ("float* p = nullptr; auto s = ct::tensor_span{p, ct::extents{8}};"
                   "auto v = ct::partition_view<decltype(s), ct::shape<8>>(s);"
                   "ct::store(v, ct::zeros<ct::tile<double, ct::shape<8>>>(), 0);",
                   "the tile's element type must be the span's"),
    "view_indices": ("float* p = nullptr; auto s = ct::tensor_span{p, ct::extents{8}};"
                     "auto v = ct::partition_view<decltype(s), ct::shape<8>>(s); auto t = ct::load(v, 0, 0);",
                     "one block index per dimension"),
    "atomic_bitwise_float": ("float* p = nullptr; auto t = ct::atomic_and(p + ct::iota<ct::tile<int, ct::shape<4>>>(), 1.0f);",
                             "atomic_and / atomic_or / atomic_xor take integers"),
    "atomic_small": ("short* p = nullptr; auto t = ct::atomic_add(p + ct::iota<ct::tile<int, ct::shape<4>>>(), short(1));",
                     "atomic operations take 32- or 64-bit integers"),
    "atomic_load_order": ("int* p = nullptr; auto t = ct::atomic_load(p, ct::memory_order_release_t{});",
                          "atomic_load takes memory_order_relaxed_t or memory_order_acquire_t"),
    "mma_shapes": ("auto a = ct::zeros<ct::tile<float, ct::shape<16, 8>>>(); auto b = ct::zeros<ct::tile<float, ct::shape<16, 8>>>();"
                   "auto c = ct::zeros<ct::tile<float, ct::shape<16, 8>>>(); auto d = ct::mma(a, b, c);",
                   "ct::mma(a, b, acc): a is M x K, b is K x N and acc is M x N"),
    "mma_accumulator": ("auto a = ct::zeros<ct::tile<weft::float16, ct::shape<16, 16>>>();"
                        "auto c = ct::zeros<ct::tile<weft::float16, ct::shape<16, 16>>>(); auto d = ct::mma(a, a, c);",
                        "accumulator"),
}


@pytest.mark.parametrize("case", sorted(ILL_FORMED))
def test_ill_formed(case, tmp_path):
    """An ill-formed use fails to compile with the header's message (host compiler)."""
    body, message = ILL_FORMED[case]
    unit = tmp_path / f"{case}.cpp"
    unit.write_text("#include <weft/cuda_tile.h>\nnamespace ct = ::cuda::tiles;\nvoid f() {\n" + body + "\n}\n")
    build = subprocess.run([*compiler(), "-std=c++20", "-DWEFT_HOST", f"-I{INCLUDE}", "-fsyntax-only", str(unit)],
                           capture_output=True, text=True)
    assert build.returncode != 0, f"{case} compiled"
    assert message in build.stderr, build.stderr[-4000:]


def test_emulation_reports_divergent_collective(tmp_path):
    """Under WEFT_TILES_EMULATE_BLOCK a tile operation that not every thread of the block reaches
    (a deadlock or corruption on the GPU) aborts with a message."""
    unit = tmp_path / "divergent.cpp"
    unit.write_text(
        "#include <weft/cuda_tile.h>\n"
        "namespace ct = ::cuda::tiles;\n"
        "__tile_global__ void kernel(float* out) {\n"
        "  if (ct::detail::thread_rank() == 3) return;\n"
        "  out[0] = ct::sum(ct::iota<ct::tile<float, ct::shape<256>>>());\n"
        "}\n"
        "int main() { float out = 0; ct::host_launch({1, 1, 1}, kernel, &out); }\n")
    executable = tmp_path / "divergent"
    build = subprocess.run([*compiler(), *HOST_FLAGS, *HOST_MODES["emulated"], str(unit), "-o", str(executable)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    result = subprocess.run([str(executable)], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "a tile operation not called by every thread of the block" in result.stderr
