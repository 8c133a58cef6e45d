package dev.rlx.vulkan;

import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.vulkan.VK10.*;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.CompileException;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.spi.CommandStream;
import dev.rlx.runtime.spi.DeviceBuffer;
import dev.rlx.runtime.spi.Executable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.VkCommandBuffer;
import org.lwjgl.vulkan.VkCommandBufferBeginInfo;
import org.lwjgl.vulkan.VkMemoryBarrier;

/**
 * A graph compiled for Vulkan: its arena and constant pool in device memory, one argument block per dispatch in a
 * host-visible buffer written once, and one command buffer holding every dispatch, recorded at compile time and
 * enqueued whole by each {@link #run}. A barrier separates two dispatches only where the later one reads or
 * writes bytes an earlier one since the last barrier wrote.
 */
final class VulkanExecutable implements Executable {
    private static final int ARG_BLOCK_PTRS = 8;

    private final VulkanContext ctx;
    private final VulkanMemory memory;
    private final VulkanBuffer arena;
    private final VulkanBuffer constants;
    private final VulkanBuffer args;
    /** Host-visible: the run counter of RNG streams that advance across runs (rng.comp), reset by setRng. */
    private final VulkanBuffer runCounter;
    private final List<RngSite> rngSites;
    private final Map<Dispatch, Long> argsAt = new java.util.IdentityHashMap<>();
    private final Map<Value, Loc> locs = new HashMap<>();
    private final VkCommandBuffer commands;
    private final int kernels;
    private final int barriers;
    private boolean closed;

    VulkanExecutable(VulkanContext ctx, VulkanMemory memory, Pipelines pipelines, Graph graph, MemoryPlan plan,
                     Map<Value, DeviceBuffer> params, RngOptions rng) {
        this.ctx = ctx;
        this.memory = memory;
        this.arena = (VulkanBuffer) memory.allocate(plan.arenaBytes());
        VulkanBuffer cpool = null;
        VulkanBuffer argBuffer = null;
        VulkanBuffer counter = null;
        VkCommandBuffer cb = null;
        try {
            counter = memory.allocateHostVisible(16);
            cpool = (VulkanBuffer) memory.allocate(plan.constantBytes());
            for (Map.Entry<Value, MemoryPlan.Slot> e : plan.slots().entrySet()) {
                MemoryPlan.Slot s = e.getValue();
                VulkanBuffer base = switch (s.storage()) {
                    case ARENA -> arena;
                    case CONSTANTS -> cpool;
                    case PARAM -> paramBuffer(params, s.root());
                };
                locs.put(e.getKey(), new Loc(base, s.offset(), s.bytes()));
            }
            for (Node n : graph.nodes()) {
                if (n.op() instanceof Op.Constant c && c.value().byteLength() > 0) {
                    Loc l = locs.get(n.output());
                    memory.copyToDevice(c.value().segment(), l.buffer(), l.offset());
                }
            }
            VulkanLowering lowering = new VulkanLowering(pipelines, this::loc, new Loc(counter, 0, 8));
            for (Node n : graph.nodes()) {
                if (n.outputs().size() == 1 && plan.slot(n.output()).view()) {
                    continue; // a view: the planner aliased its bytes, nothing computes it
                }
                lowering.lower(n);
            }
            for (RngSite site : lowering.rngSites()) {
                site.apply(rng);
            }
            if (!lowering.rngSites().isEmpty()) {
                lowering.advanceRunCounter();
            }
            List<Dispatch> ds = lowering.dispatches();
            long argBytes = 0;
            long[] at = new long[ds.size()];
            for (int i = 0; i < ds.size(); i++) {
                at[i] = argBytes;
                argBytes += align(8L * ARG_BLOCK_PTRS + 4L * ds.get(i).ints().length, 16);
            }
            argBuffer = memory.allocateHostVisible(Math.max(16, argBytes));
            for (int i = 0; i < ds.size(); i++) {
                writeArgs(argBuffer.mapped, at[i], ds.get(i));
                argsAt.put(ds.get(i), at[i]);
            }
            rngSites = List.copyOf(lowering.rngSites());
            cb = ctx.newCommandBuffer();
            barriers = record(cb, ds, argBuffer, at, pipelines.layout());
            kernels = ds.size();
        } catch (RuntimeException e) {
            memory.free(arena);
            if (cpool != null) {
                memory.free(cpool);
            }
            if (argBuffer != null) {
                memory.release(argBuffer);
            }
            if (counter != null) {
                memory.release(counter);
            }
            if (cb != null) {
                ctx.freeCommandBuffer(cb);
            }
            throw e;
        }
        this.constants = cpool;
        this.args = argBuffer;
        this.runCounter = counter;
        this.commands = cb;
    }

    /** Rewrites the stream words of every RNG dispatch and restarts the run counter, once the device is idle. */
    @Override
    public void setRng(RngOptions rng) {
        if (rngSites.isEmpty()) {
            return;
        }
        ctx.waitIdle(); // a submitted run may still read the argument blocks and the counter
        for (RngSite site : rngSites) {
            site.apply(rng);
            writeArgs(args.mapped, argsAt.get(site.dispatch()), site.dispatch());
        }
        runCounter.mapped.fill((byte) 0);
    }

    private static VulkanBuffer paramBuffer(Map<Value, DeviceBuffer> params, Value param) {
        DeviceBuffer b = params.get(param);
        if (b == null) {
            throw new CompileException("param " + param + " is not bound to a buffer");
        }
        if (!(b instanceof VulkanBuffer vb)) {
            throw new CompileException("param " + param + " is bound to memory that is not Vulkan device memory");
        }
        return vb;
    }

    private Loc loc(Value v) {
        Loc l = locs.get(v);
        if (l == null) {
            throw new CompileException("value " + v + " has no slot in the memory plan");
        }
        return l;
    }

    private static long align(long x, long a) {
        return (x + a - 1) / a * a;
    }

    private static void writeArgs(MemorySegment mem, long at, Dispatch d) {
        for (int i = 0; i < d.ptrs().length; i++) {
            mem.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8L * i, d.ptrs()[i]);
        }
        for (int i = 0; i < d.ints().length; i++) {
            mem.set(ValueLayout.JAVA_INT_UNALIGNED, at + 8L * ARG_BLOCK_PTRS + 4L * i, d.ints()[i]);
        }
    }

    /** Records every dispatch; returns the number of barriers between dispatches. */
    private int record(VkCommandBuffer cb, List<Dispatch> ds, VulkanBuffer argBuffer, long[] at, long layout) {
        int count = 0;
        try (MemoryStack stack = stackPush()) {
            VulkanException.check(vkBeginCommandBuffer(cb, VkCommandBufferBeginInfo.calloc(stack).sType$Default()
                    .flags(VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT)), "recording a graph on " + ctx.info.name());
            // Host writes and copies of inputs before the run are visible to the first kernels, and the last
            // kernels' writes to the copies and host reads after it.
            barrier(cb, stack, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                    VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT
                            | VK_ACCESS_SHADER_WRITE_BIT);
            List<Loc> written = new ArrayList<>();
            java.nio.ByteBuffer push = stack.malloc(Pipelines.PUSH_BYTES);
            for (int i = 0; i < ds.size(); i++) {
                Dispatch d = ds.get(i);
                if (hazard(written, d)) {
                    barrier(cb, stack, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
                    written.clear();
                    count++;
                }
                vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d.pipeline());
                push.putLong(0, argBuffer.address + at[i]);
                vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push);
                vkCmdDispatch(cb, d.groupsX(), d.groupsY(), d.groupsZ());
                written.addAll(d.writes());
            }
            barrier(cb, stack, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                    VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                    VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
            VulkanException.check(vkEndCommandBuffer(cb), "recording a graph on " + ctx.info.name());
        }
        return count;
    }

    /** Whether {@code d} reads or writes bytes written since the last barrier (or writes bytes read since). */
    private static boolean hazard(List<Loc> written, Dispatch d) {
        for (Loc w : written) {
            for (Loc r : d.reads()) {
                if (w.overlaps(r)) {
                    return true;
                }
            }
            for (Loc x : d.writes()) {
                if (w.overlaps(x)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void barrier(VkCommandBuffer cb, MemoryStack stack, int srcStage, int dstStage, int srcAccess,
                                int dstAccess) {
        VkMemoryBarrier.Buffer b = VkMemoryBarrier.calloc(1, stack).sType$Default().srcAccessMask(srcAccess)
                .dstAccessMask(dstAccess);
        vkCmdPipelineBarrier(cb, srcStage, dstStage, 0, b, null, null);
    }

    @Override
    public void run(CommandStream stream) {
        if (!(stream instanceof VulkanStream vs)) {
            throw new IllegalArgumentException("a Vulkan graph runs on a stream of the Vulkan runtime");
        }
        vs.enqueue(commands);
    }

    @Override
    public MemorySegment hostSlot(Value v) {
        return null;
    }

    @Override
    public void write(Value v, MemorySegment src) {
        Loc l = loc(v);
        memory.write(src, l.buffer(), l.offset(), l.bytes());
    }

    @Override
    public void read(Value v, MemorySegment dst) {
        Loc l = loc(v);
        memory.read(l.buffer(), l.offset(), dst, l.bytes());
    }

    @Override
    public int kernelCount() {
        return kernels;
    }

    /** Barriers recorded between dispatches (for tests of the barrier placement). */
    int barrierCount() {
        return barriers;
    }

    @Override
    public long deviceBytes() {
        return arena.byteSize() + constants.byteSize() + args.byteSize();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ctx.waitIdle();
        ctx.freeCommandBuffer(commands);
        memory.free(arena);
        memory.free(constants);
        memory.release(args);
        memory.release(runCounter);
    }
}
