// The CUDA C++ side of weft's interoperability: the specification's
// cuda::interoperable_array_descriptor<dtype, ndim>, the machine representation of a weft array
// in a call to an interoperable function or kernel, for CUDA C++ code that calls weft (or that
// weft's interoperable kernels are launched from). Include it in CUDA C++ (nvcc or NVRTC, with
// `weftc --print-include-dir` on the include path); weft's own units do not need it.
//
// The other machine representations are CUDA C++'s own types: bool, int8_t ... uint64_t, float,
// double, __half, __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2, cuda::std::complex<float> and
// <double>, CUDA's vector types (char2, int4, float3, double2, __half2 ...), void* for None, and
// for tuples and @struct classes standard-layout structs with one member per element or field.
#pragma once

#include <cuda/std/array>
#include <cuda/std/cstdint>
#include <cuda/std/mdspan>

namespace cuda {

// A strided view of `ndim` dimensions: `shape` and `strides` (counted in elements) per dimension,
// as weft passes arrays. Converts from and to a cuda::std::mdspan with layout_stride.
template <typename dtype, ::cuda::std::uint64_t ndim>
struct interoperable_array_descriptor {
  dtype* data;
  ::cuda::std::uint64_t shape[ndim];
  ::cuda::std::uint64_t strides[ndim];

  interoperable_array_descriptor() = default;

  // From any cuda::std::mdspan of `ndim` dimensions (its extents and strides). The
  // specification's forwarding `template <typename mdspan> (mdspan&&)` would also capture
  // copies of the descriptor itself, so it takes mdspans only.
  template <typename Element, typename Extents, typename Layout, typename Accessor>
  __host__ __device__ interoperable_array_descriptor(const ::cuda::std::mdspan<Element, Extents, Layout, Accessor>& ms)
      : data(ms.data_handle()) {
    static_assert(Extents::rank() == ndim, "an mdspan of as many dimensions as the descriptor");
    for (::cuda::std::uint64_t d = 0; d < ndim; ++d) {
      shape[d] = static_cast<::cuda::std::uint64_t>(ms.extent(d));
      strides[d] = static_cast<::cuda::std::uint64_t>(ms.stride(d));
    }
  }

  // The same elements as a cuda::std::mdspan<dtype, dextents<uint64_t, ndim>, layout_stride>.
  __host__ __device__ operator auto() const {
    using extents = ::cuda::std::dextents<::cuda::std::uint64_t, ndim>;
    ::cuda::std::array<::cuda::std::uint64_t, ndim> extent{}, stride{};
    for (::cuda::std::uint64_t d = 0; d < ndim; ++d) {
      extent[d] = shape[d];
      stride[d] = strides[d];
    }
    using mapping = typename ::cuda::std::layout_stride::template mapping<extents>;
    return ::cuda::std::mdspan<dtype, extents, ::cuda::std::layout_stride>(data, mapping(extents(extent), stride));
  }
};

// The layout weft's arrays have (include/weft/device/array.h asserts the same of weft::Array).
static_assert(sizeof(interoperable_array_descriptor<float, 1>) == 24 &&
                  alignof(interoperable_array_descriptor<float, 1>) == 8,
              "interoperable_array_descriptor<T, 1> is {T* data; uint64_t shape[1]; uint64_t strides[1];}");
static_assert(sizeof(interoperable_array_descriptor<double, 3>) == 56 &&
                  alignof(interoperable_array_descriptor<double, 3>) == 8,
              "interoperable_array_descriptor<T, 3> is {T* data; uint64_t shape[3]; uint64_t strides[3];}");

}  // namespace cuda
