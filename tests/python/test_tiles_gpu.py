"""Tile kernels on the GPU: every test of test_tiles_cpu.py and test_tile_surface_cpu.py again
with target "gpu" (marker `gpu`, skipped without a GPU), and the GPU's results against the CPU
target's."""

import numpy as np
import pytest

import weft
from test_tiles_cpu import (  # noqa: F401  (the tests are collected again under this module)
    run_tiles,
    softmax_rows,
    test_astype_truncates_toward_zero,
    test_atomics_in_both_faces,
    test_block_positions_in_both_spellings,
    test_comparisons_and_where,
    test_creation,
    test_cutile_face_runs_a_cutile_program,
    test_cutile_padding_mode,
    test_debug_k_loops_keep_their_load_checks,
    test_element_wise_operators_follow_python,
    test_function_decorator_options_and_hints,
    test_gather_and_scatter_with_bounds_and_masks,
    test_helpers_take_and_return_annotated_tiles,
    test_every_padding_mode,
    test_integer_sums_wrap_in_the_element_type,
    test_math_functions,
    matmul_pipelined,
    test_matmul_operator,
    test_max_min_of_narrow_floats_suppress_nan,
    test_max_min_order_negative_zero_below_positive_zero,
    test_mma_k_loop_against_numpy,
    test_nan_propagation_modes,
    test_narrow_loads_are_exact_at_edges_offsets_and_strides,
    test_narrowing_is_reported_at_the_users_line,
    test_pipelined_k_loop_against_numpy_and_the_plain_loop,
    test_rounding_modes_are_exact,
    test_reductions_along_every_axis,
    test_row_softmax,
    test_row_softmax_and_layernorm_as_bench_tiles_writes_them,
    test_row_tiles_check_each_piece_at_edges_offsets_and_strides,
    test_scalar_stores_and_print_happen_once_per_tile_block,
    test_scans,
    test_shape_operations,
    test_tile_kernels_take_a_grid_only,
    test_true_division_of_integer_tiles_gives_floats,
    test_vec_add_with_edge_tiles,
)
from test_tile_surface_cpu import (  # noqa: F401
    test_assumption_errors,
    test_assumptions_are_hints,
    test_bad_order_is_an_error,
    test_cutile_fp8_type_names,
    test_cutile_load_order_transposes_with_edge_tiles,
    test_false_assumptions_raise_under_debug,
    test_fp8_e4m3_has_no_infinite_padding,
    test_fp8_elsewhere_is_an_error_at_the_users_line,
    test_fp8_load_store_and_convert,
    test_fp8_load_with_order,
    test_fp8_mma_against_numpy,
    test_integer_and_3d_partition_views,
    test_load_and_store_orders_of_every_axis,
    test_partition_view_errors,
    test_partition_views_with_edge_tiles,
    test_cutile_reduce_and_scan_keywords,
    test_reduce_every_axis_of_a_3d_tile,
    test_reverse_scans_along_every_axis,
    test_reduce_errors_at_the_users_line,
    test_seed_reduce_and_scan_with_functions,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"


def test_gpu_and_cpu_targets_agree_on_a_softmax(rng):
    x = (rng.standard_normal((64, 1000)) * 5).astype(np.float32)
    on_gpu, on_cpu = np.zeros_like(x), np.zeros_like(x)
    run_tiles("gpu", softmax_rows, x, on_gpu, 1024, grid=64)
    run_tiles("cpu", softmax_rows, x, on_cpu, 1024, grid=64)
    np.testing.assert_allclose(on_gpu, on_cpu, rtol=1e-5, atol=1e-8)
    assert weft.gpu_available()


@pytest.mark.parametrize("layout", ["transposed", "offset"])
def test_pipelined_k_loop_takes_arrays_it_cannot_stream(rng, layout):
    """Operands whose rows are not contiguous or do not start on 16 bytes run the loop as written."""
    torch = pytest.importorskip("torch")
    m, n, k, tm, tn, tk = 96, 80, 100, 64, 64, 32
    a = torch.from_numpy(rng.standard_normal((m, k + 1)).astype(np.float16)).cuda()
    b = torch.from_numpy(rng.standard_normal((n, k)).astype(np.float16)).cuda()
    x = a[:, 1:] if layout == "offset" else a[:, :k]
    y = b.T if layout == "transposed" else b.T.contiguous()
    c = torch.zeros((m, n), dtype=torch.float32, device="cuda")
    weft.launch(matmul_pipelined, x, y, c, tm, tn, tk, 0, grid=((m + tm - 1) // tm, (n + tn - 1) // tn), target="gpu")
    torch.cuda.synchronize()
    want = x.double().cpu().numpy() @ y.double().cpu().numpy()
    np.testing.assert_allclose(c.cpu().numpy(), want, rtol=1e-3, atol=1e-2)
