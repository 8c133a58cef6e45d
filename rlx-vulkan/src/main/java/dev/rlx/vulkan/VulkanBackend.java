package dev.rlx.vulkan;

import dev.rlx.ir.DType;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.opt.Capabilities;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.DeviceRuntime;
import dev.rlx.runtime.spi.Executable;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The Vulkan compute backend: graphs run as GLSL compute shaders on the device {@link VulkanContext#choose}
 * picks. It claims the primitive ops it has shaders for, in the dtypes the device's shaders can hold; the
 * pipeline decomposes composites into them.
 */
public final class VulkanBackend implements Backend {
    private final VulkanContext ctx;
    private final VulkanMemory memory;
    private final Pipelines pipelines;
    private final Capabilities capabilities;

    VulkanBackend(VulkanContext ctx) {
        this.ctx = ctx;
        this.memory = new VulkanMemory(ctx);
        this.pipelines = new Pipelines(ctx, ShaderCompiler.atDefaultDirectory());
        this.capabilities = capabilities(dtypes(ctx));
    }

    /** Opens the device chosen by {@code RLX_VULKAN_DEVICE} or by type. */
    public static VulkanBackend open() {
        return new VulkanBackend(VulkanContext.open());
    }

    /** Every Vulkan device the loader sees (for {@code rlx hw}); empty when there is no loader. */
    public static List<VulkanDeviceInfo> devices() {
        try {
            return VulkanContext.listDevices();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    private static Set<DType> dtypes(VulkanContext ctx) {
        Set<DType> s = EnumSet.of(DType.F32, DType.I8, DType.I32, DType.I64, DType.U8, DType.U32, DType.BOOL);
        if (ctx.float64) {
            s.add(DType.F64);
        }
        if (ctx.int16) {
            s.add(DType.I16);
            s.add(DType.BF16);
        }
        if (ctx.float16) {
            s.add(DType.F16);
        }
        return s;
    }

    /** What the shaders run on a device whose buffers hold {@code dtypes}. */
    static Capabilities capabilities(Set<DType> dtypes) {
        DType[] ts = dtypes.toArray(DType[]::new);
        DType first = ts[0];
        DType[] rest = java.util.Arrays.copyOfRange(ts, 1, ts.length);
        Capabilities.Builder b = Capabilities.builder().claimCompositeUnary();
        for (OpKind k : List.of(OpKind.INPUT, OpKind.PARAM, OpKind.CONSTANT, OpKind.UNARY, OpKind.BINARY,
                OpKind.COMPARE, OpKind.WHERE, OpKind.CAST, OpKind.MATMUL, OpKind.REDUCE, OpKind.RESHAPE,
                OpKind.TRANSPOSE, OpKind.SLICE, OpKind.CONCAT, OpKind.EXPAND, OpKind.GATHER, OpKind.ARG_REDUCE,
                OpKind.CUMSUM, OpKind.CONV, OpKind.CONV_TRANSPOSE, OpKind.POOL,
                OpKind.SCATTER_ADD, OpKind.TOP_K)) {
            b.claim(k, first, rest);
        }
        for (OpKind k : List.of(OpKind.UNARY, OpKind.BINARY, OpKind.COMPARE, OpKind.WHERE, OpKind.CAST,
                OpKind.TRANSPOSE, OpKind.SLICE, OpKind.EXPAND, OpKind.CONCAT, OpKind.REDUCE, OpKind.GATHER,
                OpKind.SCATTER_ADD)) {
            b.refuse(k, "rank<=8", VulkanBackend::rankRule);
        }
        b.refuse(OpKind.UNARY, "f64-transcendentals", (op, in) ->
                in.get(0).dtype() == DType.F64 && ElementwiseExpressions.SINGLE_PRECISION_ONLY.contains(
                        ((Op.Unary) op).op()) ? "no f64 " + op.label() + " (GLSL has it in single precision)" : null);
        b.refuse(OpKind.CAST, "cast-types", (op, in) -> {
            DType to = ((Op.Cast) op).to();
            return dtypes.contains(to) ? null : "no " + to.label() + " buffers on this device";
        });
        DType[] otherFloats = dtypes.stream().filter(t -> t.isFloat() && t != DType.F32).toArray(DType[]::new);
        for (OpKind k : List.of(OpKind.SOFTMAX, OpKind.LOG_SOFTMAX, OpKind.LAYER_NORM, OpKind.RMS_NORM,
                OpKind.ADD_NORM, OpKind.GROUP_NORM)) {
            b.claim(k, DType.F32, otherFloats); // rownorm.comp
        }
        if (dtypes.contains(DType.F64)) { // rng.comp computes in double, as the CPU does
            DType[] floats = dtypes.stream().filter(t -> t.isFloat() && t != DType.F32).toArray(DType[]::new);
            b.claim(OpKind.RNG_NORMAL, DType.F32, floats);
            b.claim(OpKind.RNG_UNIFORM, DType.F32, floats);
        }
        b.claim(OpKind.ATTENTION, DType.F32); // attention.comp
        b.refuse(OpKind.ATTENTION, "keys<=" + VulkanLowering.MAX_ATTENTION_KEYS, (op, in) -> {
            Shape k = in.get(1);
            int sk = ((Op.Attention) op).layout() == dev.rlx.ir.HeadLayout.BHSD && k.rank() == 4 ? k.dim(2) : k.dim(1);
            return sk > VulkanLowering.MAX_ATTENTION_KEYS
                    ? sk + " keys per row (the kernel holds up to " + VulkanLowering.MAX_ATTENTION_KEYS + ")" : null;
        });
        b.claim(OpKind.FUSED, DType.F32, otherFloats); // fused.comp
        b.claim(OpKind.FUSED_MATMUL, DType.F32, otherFloats); // matmul.comp with the program as its epilogue
        b.refuse(OpKind.FUSED, "fused-operands", (op, in) -> in.size() > VulkanLowering.MAX_FUSED_INPUTS
                ? "more than " + VulkanLowering.MAX_FUSED_INPUTS + " operands" : programRule(((Op.Fused) op).program(), in));
        b.refuse(OpKind.FUSED_MATMUL, "epilogue-operands", (op, in) -> in.size() > VulkanLowering.MAX_FUSED_INPUTS
                ? "more than " + (VulkanLowering.MAX_FUSED_INPUTS - 2) + " epilogue operands"
                : programRule(((Op.FusedMatMul) op).epilogue(), in));
        b.refuse(OpKind.FUSED, "rank<=8", VulkanBackend::rankRule);
        b.refuse(OpKind.FUSED_MATMUL, "rank<=8", VulkanBackend::rankRule);
        b.refuse(OpKind.TOP_K, "selection<=60000", (op, in) -> {
            Op.TopK t = (Op.TopK) op;
            long work = (long) t.k() * in.get(0).dim(t.axis());
            return work > 60_000 ? "k x axis length " + work + " is over 60,000 (top-k selects per line)" : null;
        });
        for (OpKind k : List.of(OpKind.MATMUL, OpKind.FUSED_MATMUL)) {
            b.refuse(k, "batch<=6", (op, in) ->
                    Math.max(in.get(0).rank(), in.get(1).rank()) > 8 ? "more than 6 batch dims" : null);
        }
        b.refuse(OpKind.MATMUL, "no-bool", (op, in) ->
                in.get(0).dtype() == DType.BOOL ? "no bool matmul" : null);
        return b.build();
    }

    /**
     * Why the generated shader cannot run {@code program} on operands {@code in}, or null: it has no mask values
     * (programs with compare/where steps run as their compare and where ops), and GLSL has some functions in
     * single precision only.
     */
    private static String programRule(dev.rlx.ir.ElementwiseProgram program, List<Shape> in) {
        if (program.hasMasks()) {
            return "compare/where steps in a fused program";
        }
        if (in.get(0).dtype() == DType.F64) {
            for (dev.rlx.ir.ElementwiseProgram.Step s : program.steps()) {
                if (s.isUnary() && ElementwiseExpressions.SINGLE_PRECISION_ONLY.contains(s.unary())) {
                    return "no f64 " + s.unary().label() + " (GLSL has it in single precision)";
                }
            }
        }
        return null;
    }

    private static String rankRule(Op op, List<Shape> in) {
        List<Shape> all = new ArrayList<>(in);
        all.addAll(op.outputShapes(in));
        for (Shape s : all) {
            if (s.rank() > VulkanLowering.MAX_RANK) {
                return "rank " + s.rank() + " (the shaders index up to rank " + VulkanLowering.MAX_RANK + ")";
            }
        }
        return null;
    }

    @Override
    public Device device() {
        return Device.VULKAN;
    }

    @Override
    public String name() {
        return "vulkan (" + ctx.info.name() + ", " + ctx.info.driver() + ")";
    }

    /** The device this backend runs on. */
    public VulkanDeviceInfo deviceInfo() {
        return ctx.info;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public DeviceRuntime runtime() {
        return memory;
    }

    @Override
    public Executable compile(CompileRequest request) {
        return new VulkanExecutable(ctx, memory, pipelines, request.graph(), request.plan(), request.params(),
                request.options().rng());
    }

    @Override
    public void close() {
        ctx.waitIdle();
        pipelines.close();
    }
}
