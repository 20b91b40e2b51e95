// The CUDA C++ side of the interop test: declares weft's interoperable functions and kernel
// (tests/interop/kernels.py) with the CUDA C++ types the specification names, and calls them.
//
// Device part (compiled by nvcc -rdc=true, or by NVRTC when `weftc --link` links it with the
// weft unit through nvJitLink): the kernel call_weft evaluates every interoperable function.
// Host part (nvcc only): main() reads the inputs from stdin, runs call_weft and weft's kernel
// scale_rows, and prints every result, one per line, for tests/python/test_interop.py.
#include <cuda/std/complex>
#include <cuda_fp16.h>
#include <weft/interop.h>

struct alignas(16) Particle {
  float x;
  double mass;
};
struct IntDouble {
  int f0;
  double f1;
};
struct DoubleInt {
  double f0;
  int f1;
};

extern "C" __host__ __device__ cuda::std::complex<float> cmul(cuda::std::complex<float> a, cuda::std::complex<float> b);
extern "C" __host__ __device__ __half hdiff(__half a, __half b);
extern "C" __host__ __device__ int dot2(int2 a, int2 b);
extern "C" __host__ __device__ double momentum(Particle p);
extern "C" __host__ __device__ DoubleInt swap(IntDouble t);
extern "C" __host__ __device__ float total(cuda::interoperable_array_descriptor<float, 1> a);
extern "C" __host__ __device__ bool is_null(void* p);
extern "C" __global__ void scale_rows(cuda::interoperable_array_descriptor<double, 2> m, double k);

constexpr int kInputs = 8;  // floats; then 5 ints
constexpr int kResults = 10;

// in: kInputs floats, ints: 5 ints, vector: n floats; out: kResults doubles.
extern "C" __global__ void call_weft(const float* in, const int* ints, float* vector, int n, double* out) {
  cuda::std::complex<float> product = cmul({in[0], in[1]}, {in[2], in[3]});
  out[0] = product.real();
  out[1] = product.imag();
  out[2] = __half2float(hdiff(__float2half(in[4]), __float2half(in[5])));
  out[3] = dot2(make_int2(ints[0], ints[1]), make_int2(ints[2], ints[3]));
  out[4] = momentum(Particle{in[6], static_cast<double>(in[7])});
  DoubleInt swapped = swap(IntDouble{ints[4], static_cast<double>(in[0])});
  out[5] = swapped.f0;
  out[6] = swapped.f1;
  // Every other element of `vector`: a strided view.
  cuda::interoperable_array_descriptor<float, 1> evens;
  evens.data = vector;
  evens.shape[0] = static_cast<unsigned long long>((n + 1) / 2);
  evens.strides[0] = 2;
  out[7] = total(evens);
  // The host half of an interoperable function, called from the device here for comparison.
  out[8] = total(cuda::interoperable_array_descriptor<float, 1>(
      cuda::std::mdspan<float, cuda::std::dextents<cuda::std::uint64_t, 1>>(vector, n)));
  out[9] = is_null(nullptr);
}

#if !defined(__CUDACC_RTC__)
#include <cstdio>
#include <vector>

#define CHECK_CUDA(call)                                                                  \
  do {                                                                                    \
    cudaError_t status = (call);                                                          \
    if (status != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(status));         \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

// stdin: kInputs floats, 5 ints, n, n floats, rows, cols, rows*cols doubles, k.
int main() {
  std::vector<float> in(kInputs);
  std::vector<int> ints(5);
  int n = 0;
  for (float& x : in) std::scanf("%f", &x);
  for (int& x : ints) std::scanf("%d", &x);
  std::scanf("%d", &n);
  std::vector<float> vector(static_cast<size_t>(n));
  for (float& x : vector) std::scanf("%f", &x);
  int rows = 0, cols = 0;
  std::scanf("%d %d", &rows, &cols);
  std::vector<double> matrix(static_cast<size_t>(rows) * cols);
  for (double& x : matrix) std::scanf("%lf", &x);
  double k = 0;
  std::scanf("%lf", &k);

  // The host halves of weft's interoperable functions.
  cuda::std::complex<float> product = cmul({in[0], in[1]}, {in[2], in[3]});
  std::printf("host %.9g %.9g %d\n", product.real(), product.imag(), dot2(make_int2(ints[0], ints[1]), make_int2(ints[2], ints[3])));

  float *dIn, *dVector;
  int* dInts;
  double *dOut, *dMatrix;
  CHECK_CUDA(cudaMalloc(&dIn, sizeof(float) * kInputs));
  CHECK_CUDA(cudaMalloc(&dInts, sizeof(int) * 5));
  CHECK_CUDA(cudaMalloc(&dVector, sizeof(float) * n));
  CHECK_CUDA(cudaMalloc(&dOut, sizeof(double) * kResults));
  CHECK_CUDA(cudaMalloc(&dMatrix, sizeof(double) * matrix.size()));
  CHECK_CUDA(cudaMemcpy(dIn, in.data(), sizeof(float) * kInputs, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dInts, ints.data(), sizeof(int) * 5, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dVector, vector.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dMatrix, matrix.data(), sizeof(double) * matrix.size(), cudaMemcpyHostToDevice));
  call_weft<<<1, 1>>>(dIn, dInts, dVector, n, dOut);
  CHECK_CUDA(cudaGetLastError());
  // weft's kernel, launched with a descriptor of the row-major matrix (strides in elements).
  cuda::interoperable_array_descriptor<double, 2> m;
  m.data = dMatrix;
  m.shape[0] = static_cast<unsigned long long>(rows);
  m.shape[1] = static_cast<unsigned long long>(cols);
  m.strides[0] = static_cast<unsigned long long>(cols);
  m.strides[1] = 1;
  scale_rows<<<dim3((rows + 15) / 16, (cols + 15) / 16), dim3(16, 16)>>>(m, k);
  CHECK_CUDA(cudaGetLastError());
  std::vector<double> out(kResults);
  CHECK_CUDA(cudaMemcpy(out.data(), dOut, sizeof(double) * kResults, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(matrix.data(), dMatrix, sizeof(double) * matrix.size(), cudaMemcpyDeviceToHost));
  for (double x : out) std::printf("%.17g\n", x);
  for (double x : matrix) std::printf("%.17g\n", x);
  return 0;
}
#endif
