// Shared by every RLX kernel (the compiler puts it after the #version line).
//
// Operands are reached by buffer device address: the push constant is the address of the dispatch's argument
// block, which holds the operand addresses (ptr) and the integer arguments (i) the kernel's Java side wrote.
// Each operand's element type comes from macros the compiler defines per pipeline:
//   <X>_S     the storage type (float, float16_t, uint16_t for bf16, int8_t, uint8_t for bool, ...)
//   <X>_C     the type arithmetic is done in (float, double, int, uint, int64_t)
//   <X>_LOAD  storage -> compute conversion, <X>_STORE compute -> storage
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require

layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer Args {
    uint64_t ptr[8];
    int i[];
};

layout(push_constant, scalar) uniform Push {
    Args args;
} pc;

#define ARG(k) pc.args.i[k]
#define PTR(k) pc.args.ptr[k]

// Conversions between storage and compute types.
#define LOAD_SAME(x) (x)
#define LOAD_F16(x) float(x)
#define STORE_F16(x) float16_t(x)
#define LOAD_BF16(x) uintBitsToFloat(uint(x) << 16)
#define STORE_BF16(x) uint16_t(bf16Bits(x))
#define LOAD_SMALL_INT(x) int(x)
#define LOAD_SMALL_UINT(x) uint(x)
#define STORE_I8(x) int8_t(x)
#define STORE_I16(x) int16_t(x)
#define STORE_U8(x) uint8_t(x)
#define STORE_BOOL(x) uint8_t((x) != 0 ? 1 : 0)

// Round to nearest even, as the CPU's f32 -> bf16 conversion (NaN stays a quiet NaN).
uint bf16Bits(float f) {
    uint u = floatBitsToUint(f);
    if (isnan(f)) {
        return (u >> 16) | 0x40u;
    }
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

// Element types of buffers (one reference type per storage type).
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Buf_float { float v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Buf_double { double v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 2) buffer Buf_float16_t { float16_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 2) buffer Buf_uint16_t { uint16_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 2) buffer Buf_int16_t { int16_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 1) buffer Buf_int8_t { int8_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 1) buffer Buf_uint8_t { uint8_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Buf_int { int v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Buf_uint { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Buf_int64_t { int64_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Buf_uint64_t { uint64_t v[]; };

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
// A typed view of operand k: BUF(A_S, 1).v[i]
#define BUF(S, k) CAT(Buf_, S)(PTR(k))

// The linear invocation index of 1-d kernels (local size LOCAL, as VulkanLowering dispatches them) over a 2-d
// grid of workgroups: dispatches past 65,535 groups spill into y.
#define LOCAL 128
#define linearIndex() (gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * uint(LOCAL))
