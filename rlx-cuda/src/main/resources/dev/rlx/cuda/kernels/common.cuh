// Shared by every RLX CUDA kernel (KernelSources puts it after the per-variant #defines). No #include: NVRTC
// compiles it without the toolkit's headers.
//
// Every kernel takes one by-value argument block: the operand addresses (ptr) and the integer arguments (i) its
// Java side wrote, as Vulkan's argument blocks. Each operand's element type comes from macros defined per variant:
//   <X>_S     the storage type (float, u16 for f16 and bf16 bits, i8, u8 for bool, ...)
//   <X>_C     the type arithmetic is done in (float, double, int, uint, i64)
//   <X>_LOAD  storage -> compute conversion, <X>_STORE compute -> storage
#ifndef RLX_COMMON_CUH
#define RLX_COMMON_CUH

// Fixed-width types under names of RLX's own: nvcc includes <stdint.h> and NVRTC has none, so the standard names
// could clash with one compiler's or be missing in the other's.
typedef signed char i8;
typedef unsigned char u8;
typedef short i16;
typedef unsigned short u16;
typedef unsigned int uint;
typedef long i64;
typedef unsigned long u64;

struct Args {
    u64 ptr[8];
    int i[72];
};

#define ARG(k) args.i[k]
#define PTR(k) args.ptr[k]
// A typed view of operand k: BUF(A_S, 1)[i]
#define BUF(S, k) ((S*) PTR(k))

// Threads per block of the 1-d kernels (CudaLowering launches them so).
#define LOCAL 128
#define linearIndex() ((u64) blockIdx.x * blockDim.x + threadIdx.x)

#define KERNEL extern "C" __global__ void KERNEL_NAME(const Args args)

__device__ __forceinline__ float rlxHalfToFloat(u16 h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}

__device__ __forceinline__ u16 rlxFloatToHalf(float f) {
    u16 h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

// Round to nearest even, as the CPU's f32 -> bf16 conversion (NaN stays a quiet NaN).
__device__ __forceinline__ u16 rlxBf16Bits(float f) {
    uint u = __float_as_uint(f);
    if (f != f) {
        return (u16) ((u >> 16) | 0x40u);
    }
    return (u16) ((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// Conversions between storage and compute types.
#define LOAD_SAME(x) (x)
#define LOAD_F16(x) rlxHalfToFloat(x)
#define STORE_F16(x) rlxFloatToHalf(x)
#define LOAD_BF16(x) __uint_as_float(((uint) (x)) << 16)
#define STORE_BF16(x) rlxBf16Bits(x)
#define LOAD_SMALL_INT(x) ((int) (x))
#define LOAD_SMALL_UINT(x) ((uint) (x))
#define STORE_I8(x) ((i8) (x))
#define STORE_I16(x) ((i16) (x))
#define STORE_U8(x) ((u8) (x))
#define STORE_BOOL(x) ((u8) ((x) != 0 ? 1 : 0))

#endif
