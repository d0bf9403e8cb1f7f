// planes.cu — interleaved pixels to one plane per channel and back, for a blur that runs a
// one-channel kernel on each channel (codegen: KernelSchedule::planes). Such a blur's horizontal
// taps are 1 byte apart instead of C, so its tensor-core products skip the zeros between them:
// at 255 x 255 RGBA a quarter of the products. Plane c of a w x h image is rows c h .. c h + h - 1
// of a planar buffer of w-byte rows, `plane_pitch` apart. A stack of n images (common.cuh,
// layer_image; grid layer blockIdx.z is image blockIdx.z) has planes of n h rows: plane c of
// image i is rows (c n + i) h .. (c n + i) h + h - 1, the blur's grid layer c n + i.
//
// A thread moves 4 pixels: GB_PLANES words of the interleaved row, one word of each plane; the
// row's last pixels (width not a multiple of 4), byte by byte.
#ifndef GB_PLANES
#define GB_PLANES 4
#endif

namespace gb {

constexpr int kPlanes = GB_PLANES;

// A thread's 4 pixels: where they lie in the interleaved image and in plane 0 of the planar
// buffer (plane k is k plane_bytes further on).
struct PlaneCopy {
  int group;  // pixels 4 group .. 4 group + 3 of row blockIdx.y of image blockIdx.z
  bool whole;  // all 4 inside the row
  bool any;    // at least one inside
  size_t interleaved, planar, plane_bytes;
};

__device__ __forceinline__ PlaneCopy plane_copy(int interleaved_pitch, int plane_pitch, int width, int height) {
  PlaneCopy c;
  c.group = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  c.whole = 4 * c.group + 4 <= width && y < height;
  c.any = 4 * c.group < width && y < height;
  const size_t row = static_cast<size_t>(blockIdx.z) * height + y;  // of the stack
  c.interleaved = row * interleaved_pitch + 4 * kPlanes * c.group;
  c.planar = row * plane_pitch + 4 * c.group;
  c.plane_bytes = static_cast<size_t>(plane_pitch) * height * gridDim.z;
  return c;
}

}  // namespace gb

extern "C" __global__ void gb_split_planes(const unsigned char* __restrict__ in, int in_pitch,
                                           unsigned char* __restrict__ planes, int plane_pitch, int width,
                                           int height) {
  using namespace gb;
  const PlaneCopy c = plane_copy(in_pitch, plane_pitch, width, height);
  if (!c.any) return;
  const unsigned char* row = in + c.interleaved;
  unsigned char* plane_row = planes + c.planar;
  const size_t plane_bytes = c.plane_bytes;
  if (c.whole) {
    unsigned w[kPlanes];  // pixel p, channel k: byte p * kPlanes + k of the run
#pragma unroll
    for (int i = 0; i < kPlanes; ++i) w[i] = __ldg(reinterpret_cast<const unsigned*>(row) + i);
#pragma unroll
    for (int k = 0; k < kPlanes; ++k) {
      unsigned v = 0;
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        const int b = p * kPlanes + k;
        v |= ((w[b / 4] >> (8 * (b % 4))) & 255u) << (8 * p);
      }
      *reinterpret_cast<unsigned*>(plane_row + k * plane_bytes) = v;
    }
    return;
  }
  for (int p = 0; 4 * c.group + p < width; ++p) {
    for (int k = 0; k < kPlanes; ++k) plane_row[k * plane_bytes + p] = row[p * kPlanes + k];
  }
}

extern "C" __global__ void gb_merge_planes(const unsigned char* __restrict__ planes, int plane_pitch,
                                           unsigned char* __restrict__ out, int out_pitch, int width,
                                           int height) {
  using namespace gb;
  const PlaneCopy c = plane_copy(out_pitch, plane_pitch, width, height);
  if (!c.any) return;
  const unsigned char* plane_row = planes + c.planar;
  unsigned char* row = out + c.interleaved;
  const size_t plane_bytes = c.plane_bytes;
  if (c.whole) {
    unsigned v[kPlanes];  // channel k of pixels 0..3
#pragma unroll
    for (int k = 0; k < kPlanes; ++k) v[k] = __ldg(reinterpret_cast<const unsigned*>(plane_row + k * plane_bytes));
#pragma unroll
    for (int i = 0; i < kPlanes; ++i) {
      unsigned w = 0;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int b = 4 * i + e, p = b / kPlanes, k = b % kPlanes;
        w |= ((v[k] >> (8 * p)) & 255u) << (8 * e);
      }
      reinterpret_cast<unsigned*>(row)[i] = w;
    }
    return;
  }
  for (int p = 0; 4 * c.group + p < width; ++p) {
    for (int k = 0; k < kPlanes; ++k) row[p * kPlanes + k] = plane_row[k * plane_bytes + p];
  }
}
