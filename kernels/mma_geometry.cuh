// mma_geometry.cuh — the tensor-core kernel's shapes (blur_mma.cu), written once and compiled
// twice: by the host compiler for codegen, which chooses the schedule and sizes the launch's
// shared memory from them, and by NVRTC for the kernel, which lays its shared memory out by them.
// Plain constexpr C++ without library headers.
//
// Shared memory: per warp a ring of `stages` input slots (32-byte rows; a step's 16 + 2 ry rows
// rounded up to 16) and two byte planes (low and high byte of the intermediate) of 16 rows x (32
// bytes per window chunk + 16), with two more chunks for the narrow horizontal product; per block
// the horizontal taps, as ready B fragments (2 KiB per window chunk) up to kFragmentChunks chunks,
// else as the window table (2 x 4 bytes per window column), none for the narrow product (its taps
// stay in registers); and past kMaxRegisterWeightChunks vertical chunks the vertical weights as A
// fragments (1 KiB per chunk).
#ifndef GB_MMA_GEOMETRY_INCLUDED
#define GB_MMA_GEOMETRY_INCLUDED 1
#ifndef GB_HOST_DEVICE_INCLUDED
#include "host_device.cuh"
#endif

namespace gb_mma {

// A horizontal halo of at most kNarrowLead bytes (7 x 7 up to RGBA) takes the narrow horizontal
// product: one k32 window chunk per 8-output N-tile, starting kNarrowLead bytes before it.
constexpr int kNarrowLead = 12;
// A halo of at most kTinyLead bytes (gray up to 9 x 9) takes its k16 form.
constexpr int kTinyLead = 4;
// Up to this many window chunks, the block's horizontal taps are ready B fragments.
constexpr int kFragmentChunks = 5;
// Up to this many vertical chunks (radius 56), the vertical weights stay in registers.
constexpr int kMaxRegisterWeightChunks = 4;

// Intermediate columns each side of a tile: the halo rounded up to 16. The narrow product's is 32,
// so that the staged pieces (tile start - pad + 32 s) are whole 32-byte sectors (a pad of 16 made
// every piece half of two).
GB_HD_CONSTEXPR int pad_for(int halo_x) {
  return halo_x <= kNarrowLead ? 32 : (halo_x + 15) / 16 * 16;  // > kNarrowLead: at least 16
}

// A tap, or an intermediate of exact sums, is two bytes of the products' operands: 0 .. 2^16 - 1
// (both bytes u8), or, where it may be negative, -2^15 .. 2^15 - 1 (the high byte s8).
GB_HD_CONSTEXPR bool fits_two_bytes(long long q, bool is_signed) {
  return is_signed ? q >= -32768 && q <= 32767 : q >= 0 && q <= 65535;
}
// Exact sums (a convolution matrix of rank one): the intermediate, a vertical sum of samples 0 ..
// 255 under taps whose positive ones sum to `positive` and negative ones to -`negative`, lies in
// -255 negative .. 255 positive, and is signed where any tap is negative.
GB_HD_CONSTEXPR bool exact_mid_fits(long long positive, long long negative) {
  return fits_two_bytes(255 * positive, negative > 0) &&
         fits_two_bytes(-255 * negative, negative > 0);
}

// One kernel's shapes, from its vertical radius, horizontal halo (radius x channels, bytes), pad
// (pad_for) and input stages.
struct Geometry {
  int radius_y;
  int halo_x;
  int pad;
  int stages;

  GB_HD_CONSTEXPR int rows_needed() const { return 16 + 2 * radius_y; }  // input rows of a step
  GB_HD_CONSTEXPR int chunks_y() const { return (rows_needed() + 31) / 32; }  // vertical k32 steps
  GB_HD_CONSTEXPR int copy_rounds() const { return (2 * rows_needed() + 31) / 32; }  // pieces/lane
  GB_HD_CONSTEXPR int chunks_x() const { return 1 + pad / 16; }  // horizontal window's k32 steps
  GB_HD_CONSTEXPR int slot_rows() const { return (rows_needed() + 15) / 16 * 16; }
  GB_HD_CONSTEXPR int stage_bytes() const { return 32 * slot_rows(); }
  GB_HD_CONSTEXPR bool narrow() const { return halo_x <= kNarrowLead && pad == 32; }
  GB_HD_CONSTEXPR bool tiny() const { return narrow() && halo_x <= kTinyLead; }
  // The narrow product reads a window as one run of columns, so the ring keeps copies of its
  // first two chunks after the last.
  GB_HD_CONSTEXPR int plane_slots() const { return chunks_x() + (narrow() ? 2 : 0); }
  GB_HD_CONSTEXPR int plane_stride() const { return 32 * plane_slots() + 16; }  // 16 x odd bytes
  GB_HD_CONSTEXPR int plane_bytes() const { return 16 * plane_stride(); }
  GB_HD_CONSTEXPR int warp_bytes() const { return stages * stage_bytes() + 2 * plane_bytes(); }
  // The horizontal tap windows: window columns -31 - pad .. 31 + pad around an output.
  GB_HD_CONSTEXPR int tap_columns() const { return 63 + 2 * pad; }
  GB_HD_CONSTEXPR bool fragment_table() const { return chunks_x() <= kFragmentChunks; }
  GB_HD_CONSTEXPR int tap_fragments() const { return chunks_x() * 4 * 2; }  // chunk, N-tile, byte
  GB_HD_CONSTEXPR int tap_bytes() const {
    return narrow()           ? 0
           : fragment_table() ? tap_fragments() * 32 * 8
                              : (2 * tap_columns() * 4 + 15) / 16 * 16;
  }
  GB_HD_CONSTEXPR bool weights_in_registers() const {
    return chunks_y() <= kMaxRegisterWeightChunks;
  }
  GB_HD_CONSTEXPR int weight_bytes() const {
    return weights_in_registers() ? 0 : chunks_y() * 2 * 32 * 16;  // chunk, byte, lane: a uint4
  }
  // The block's tables (taps and weights), shared by its warps.
  GB_HD_CONSTEXPR int table_bytes() const { return tap_bytes() + weight_bytes(); }
  GB_HD_CONSTEXPR int shared_bytes(int warps) const { return table_bytes() + warps * warp_bytes(); }
};

}  // namespace gb_mma

#endif  // GB_MMA_GEOMETRY_INCLUDED
