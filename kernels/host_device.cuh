// host_device.cuh — GB_HD (and GB_HD_CONSTEXPR) mark a function that the host compiler (CPU path,
// codegen) and NVRTC (kernels) both compile from one source: arithmetic.cuh, border.cuh,
// mma_geometry.cuh.
#ifndef GB_HOST_DEVICE_INCLUDED
#define GB_HOST_DEVICE_INCLUDED 1

#if defined(__CUDACC__)
#define GB_HD __host__ __device__ __forceinline__
#define GB_HD_CONSTEXPR __host__ __device__ constexpr
#else
#define GB_HD inline
#define GB_HD_CONSTEXPR constexpr
#endif

#endif  // GB_HOST_DEVICE_INCLUDED
