// The timing of the tile header's GPU benchmarks: the mean of 20 launches after a warm-up.
#pragma once

#include <cuda_runtime.h>

template <class Launch>
float time_ms(Launch launch) {
  launch();
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  for (int i = 0; i < 20; ++i) launch();
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / 20;
}
