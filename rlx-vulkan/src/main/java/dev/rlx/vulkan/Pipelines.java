package dev.rlx.vulkan;

import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.vulkan.VK10.*;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.VkComputePipelineCreateInfo;
import org.lwjgl.vulkan.VkPipelineLayoutCreateInfo;
import org.lwjgl.vulkan.VkPushConstantRange;
import org.lwjgl.vulkan.VkShaderModuleCreateInfo;

/**
 * Compute pipelines of one device, one per shader variant (shader and macros), built on first use and kept for the
 * backend's life. Every pipeline has the same layout: no descriptor sets, an 8-byte push constant holding the
 * address of the dispatch's argument block.
 */
final class Pipelines implements AutoCloseable {
    static final int PUSH_BYTES = 8;

    private final VulkanContext ctx;
    private final ShaderCompiler compiler;
    private final long layout;
    private final Map<String, Long> pipelines = new ConcurrentHashMap<>();

    Pipelines(VulkanContext ctx, ShaderCompiler compiler) {
        this.ctx = ctx;
        this.compiler = compiler;
        try (MemoryStack stack = stackPush()) {
            VkPushConstantRange.Buffer range = VkPushConstantRange.calloc(1, stack)
                    .stageFlags(VK_SHADER_STAGE_COMPUTE_BIT).offset(0).size(PUSH_BYTES);
            LongBuffer p = stack.mallocLong(1);
            VulkanException.check(vkCreatePipelineLayout(ctx.device, VkPipelineLayoutCreateInfo.calloc(stack)
                    .sType$Default().pPushConstantRanges(range), null, p), "creating a pipeline layout");
            layout = p.get(0);
        }
    }

    long layout() {
        return layout;
    }

    /** The pipeline of {@code shader} specialised by {@code macros}; {@code what} names the op for errors. */
    long get(String shader, Map<String, String> macros, String what) {
        String key = shader + new TreeMap<>(macros);
        Long p = pipelines.get(key);
        if (p != null) {
            return p;
        }
        synchronized (this) {
            return pipelines.computeIfAbsent(key, k -> build(shader, macros, what));
        }
    }

    private long build(String shader, Map<String, String> macros, String what) {
        byte[] spv = compiler.compile(shader, macros, what);
        try (MemoryStack stack = stackPush()) {
            ByteBuffer code = stack.malloc(spv.length);
            code.put(spv).flip();
            LongBuffer p = stack.mallocLong(1);
            VulkanException.check(vkCreateShaderModule(ctx.device, VkShaderModuleCreateInfo.calloc(stack)
                    .sType$Default().pCode(code), null, p), "loading shader " + shader + " for " + what);
            long module = p.get(0);
            try {
                VkComputePipelineCreateInfo.Buffer ci = VkComputePipelineCreateInfo.calloc(1, stack).sType$Default()
                        .layout(layout);
                ci.stage().sType$Default().stage(VK_SHADER_STAGE_COMPUTE_BIT).module(module).pName(stack.UTF8("main"));
                VulkanException.check(vkCreateComputePipelines(ctx.device, VK_NULL_HANDLE, ci, null, p),
                        "creating the pipeline of shader " + shader + " for " + what + " on " + ctx.info.name());
                return p.get(0);
            } finally {
                vkDestroyShaderModule(ctx.device, module, null);
            }
        }
    }

    @Override
    public void close() {
        pipelines.values().forEach(p -> vkDestroyPipeline(ctx.device, p, null));
        pipelines.clear();
        vkDestroyPipelineLayout(ctx.device, layout, null);
    }
}
