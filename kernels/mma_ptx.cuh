// mma_ptx.cuh — the PTX the tensor-core kernel is built from: integer mma (k32 and k16, u8 or s8
// operands), ldmatrix, shared-memory accesses by 32-bit address, cp.async, global stores, and
// opaque() to keep values the compiler would re-derive in registers. No kernel constants; the files that use
// them say why each is used the way it is.
#ifndef GB_MMA_PTX_INCLUDED
#define GB_MMA_PTX_INCLUDED 1

namespace gb {

// The integer products, each operand's bytes unsigned (u8) or signed (s8): kSA for a, kSB for b.
// Every product but a convolution matrix's high bytes (mma_layout.cuh's kSignedX, kSignedY,
// kSignedMid) is u8 x u8. GB_MMA_CASES writes the instruction once for each of the four pairs.
#define GB_MMA_CASES(SHAPE, OPERANDS, ...)                                                    \
  if constexpr (!kSA && !kSB) {                                                               \
    asm("mma.sync.aligned." SHAPE ".row.col.s32.u8.u8.s32 " OPERANDS : __VA_ARGS__);        \
  } else if constexpr (!kSA) {                                                                \
    asm("mma.sync.aligned." SHAPE ".row.col.s32.u8.s8.s32 " OPERANDS : __VA_ARGS__);        \
  } else if constexpr (!kSB) {                                                                \
    asm("mma.sync.aligned." SHAPE ".row.col.s32.s8.u8.s32 " OPERANDS : __VA_ARGS__);        \
  } else {                                                                                    \
    asm("mma.sync.aligned." SHAPE ".row.col.s32.s8.s8.s32 " OPERANDS : __VA_ARGS__);        \
  }

// d += a (16x32 bytes, row-major) x b (32x8 bytes, column-major), sums in s32.
template <bool kSA = false, bool kSB = false>
__device__ __forceinline__ void mma_k32(unsigned (&d)[4], const unsigned (&a)[4], unsigned b0,
                                       unsigned b1) {
  GB_MMA_CASES("m16n8k32", "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};",
               "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))
}
// d = a x b + c for one constant c in every element (0, or a rounding term the product then
// carries for free): one register for all four accumulator inputs.
template <bool kSA = false, bool kSB = false>
__device__ __forceinline__ void mma_k32_first(unsigned (&d)[4], const unsigned (&a)[4], unsigned b0,
                                             unsigned b1, unsigned c = 0u) {
  GB_MMA_CASES("m16n8k32", "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};",
               "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(c))
}

// The k16 forms: d (+)= a (16x16 bytes, a0 row g and a1 row g + 8, k = 4t .. 4t + 3) x b (16x8
// bytes, k = 4t .. 4t + 3, column g).
template <bool kSA = false, bool kSB = false>
__device__ __forceinline__ void mma_k16(unsigned (&d)[4], unsigned a0, unsigned a1, unsigned b) {
  GB_MMA_CASES("m16n8k16", "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};",
               "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a0), "r"(a1), "r"(b))
}
template <bool kSA = false, bool kSB = false>
__device__ __forceinline__ void mma_k16_first(unsigned (&d)[4], unsigned a0, unsigned a1,
                                               unsigned b, unsigned c = 0u) {
  GB_MMA_CASES("m16n8k16", "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%7,%7,%7};",
               "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(a0), "r"(a1), "r"(b), "r"(c))
}
#undef GB_MMA_CASES

// Four 8 x 8 matrices of 16-bit elements: lane (g, t) gets, of each, the element pair 2t, 2t + 1
// of row g. `address` is a shared address (lane 8m + j: row j of matrix m, 16-byte aligned).
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address)
               : "memory");
}
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const unsigned char* p) {
  ldmatrix_x4(r, static_cast<unsigned>(__cvta_generic_to_shared(p)));
}
// Two such matrices (lanes 0-15 give the rows' addresses: lane 8m + j, row j of matrix m).
__device__ __forceinline__ void ldmatrix_x2(unsigned (&r)[2], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(address)
               : "memory");
}

// Four 8 x 8 matrices of 16-bit elements, transposed: lane (g, t) gets, of each, the element
// pair of rows 2t and 2t + 1 in column g. `address` is a shared address (lane 8m + j: row j of
// matrix m).
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address)
               : "memory");
}

// Shared memory by 32-bit address. The step's addresses are a lane constant plus an immediate,
// worked out once (opaque keeps them in registers): through generic pointers the compiler
// re-derived them, and the shared window's base, every step.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void sts32(unsigned address, unsigned v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(address), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned lds32(unsigned address) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(address) : "memory");
  return v;
}
__device__ __forceinline__ uint2 lds64(unsigned address) {
  uint2 v;
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(address) : "memory");
  return v;
}
__device__ __forceinline__ void sts64(unsigned address, unsigned v0, unsigned v1) {
  asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(address), "r"(v0), "r"(v1) : "memory");
}
__device__ __forceinline__ void sts128(unsigned address, const unsigned (&v)[4]) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(address), "r"(v[0]), "r"(v[1]),
               "r"(v[2]), "r"(v[3])
               : "memory");
}
__device__ __forceinline__ unsigned lds8(unsigned address) {
  unsigned v;
  asm volatile("ld.shared.u8 %0, [%1];" : "=r"(v) : "r"(address) : "memory");
  return v;
}
__device__ __forceinline__ void sts8(unsigned address, unsigned v) {
  asm volatile("st.shared.u8 [%0], %1;" ::"r"(address), "r"(v) : "memory");
}
__device__ __forceinline__ void opaque(unsigned& v) { asm volatile("" : "+r"(v)); }
__device__ __forceinline__ void opaque(int& v) { asm volatile("" : "+r"(v)); }

// A 16-byte copy from global to shared memory through L1 (.ca) or around it (.cg). `copy` false:
// the copy goes out switched off (a predicate, not a branch).
template <bool kThroughL1>
__device__ __forceinline__ void cp_async16_if(unsigned address, const unsigned char* src,
                                              bool copy) {
  if (kThroughL1) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p cp.async.ca.shared.global [%0], [%1], "
        "16;\n}\n" ::"r"(address),
        "l"(src), "r"(static_cast<int>(copy))
        : "memory");
  } else {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p cp.async.cg.shared.global [%0], [%1], "
        "16;\n}\n" ::"r"(address),
        "l"(src), "r"(static_cast<int>(copy))
        : "memory");
  }
}
template <bool kThroughL1>
__device__ __forceinline__ void cp_async16(unsigned address, const unsigned char* src) {
  cp_async16_if<kThroughL1>(address, src, true);
}
// An 8-byte copy from global to shared memory (through L1: .cg takes 16 bytes only).
__device__ __forceinline__ void cp_async8(unsigned address, const unsigned char* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(address), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}

// lane_out goes through opaque(), after which the compiler no longer knows it points to global
// memory and would use generic stores.
__device__ __forceinline__ void store_global8(unsigned char* p, unsigned w0, unsigned w1) {
  asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(__cvta_generic_to_global(p)), "r"(w0),
               "r"(w1)
               : "memory");
}

// Hides a value's origin from the compiler, so that a pointer carried from step to step stays
// in its register instead of being worked out again from the kernel's parameters every step.
template <typename T>
__device__ __forceinline__ void opaque(T*& p) {
  asm volatile("" : "+l"(p));
}

}  // namespace gb

#endif  // GB_MMA_PTX_INCLUDED
