"""The peer of bench/tile_header/bench_tiles.cu's row softmax (run on the GPU machine, in the same run):
Triton's fused row softmax written the same way (one program per row, the whole row in one
block) and torch.softmax, on 8192 x 8192 float32; prints GB/s (bytes read + written)."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    mask = offsets < cols
    x = tl.load(x_ptr + row * cols + offsets, mask=mask, other=-float("inf"))
    shifted = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * cols + offsets, shifted / tl.sum(shifted, axis=0), mask=mask)


def main():
    rows = cols = 8192
    x = torch.randn(rows, cols, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    gigabytes = 2 * x.numel() * x.element_size() / 1e9
    for warps in (4, 8, 16):
        ms = triton.testing.do_bench(lambda: softmax_kernel[(rows,)](x, y, cols, BLOCK=8192, num_warps=warps))
        print(f"triton softmax 8192x8192 f32, {warps} warps: {gigabytes / (ms * 1e-3):8.1f} GB/s")
    assert torch.allclose(y, torch.softmax(x, dim=1), atol=1e-6)
    ms = triton.testing.do_bench(lambda: torch.softmax(x, dim=1))
    print(f"torch softmax 8192x8192 f32:           {gigabytes / (ms * 1e-3):8.1f} GB/s")


if __name__ == "__main__":
    main()
