package dev.rlx.vulkan;

import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.vulkan.VK10.*;
import static org.lwjgl.vulkan.VK11.*;
import static org.lwjgl.vulkan.VK12.*;

import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.VK;
import org.lwjgl.vulkan.VkApplicationInfo;
import org.lwjgl.vulkan.VkCommandBuffer;
import org.lwjgl.vulkan.VkCommandBufferAllocateInfo;
import org.lwjgl.vulkan.VkCommandBufferBeginInfo;
import org.lwjgl.vulkan.VkCommandPoolCreateInfo;
import org.lwjgl.vulkan.VkDevice;
import org.lwjgl.vulkan.VkDeviceCreateInfo;
import org.lwjgl.vulkan.VkDeviceQueueCreateInfo;
import org.lwjgl.vulkan.VkFenceCreateInfo;
import org.lwjgl.vulkan.VkInstance;
import org.lwjgl.vulkan.VkInstanceCreateInfo;
import org.lwjgl.vulkan.VkPhysicalDevice;
import org.lwjgl.vulkan.VkPhysicalDeviceFeatures2;
import org.lwjgl.vulkan.VkPhysicalDeviceMemoryProperties;
import org.lwjgl.vulkan.VkPhysicalDeviceProperties;
import org.lwjgl.vulkan.VkPhysicalDeviceSubgroupProperties;
import org.lwjgl.vulkan.VkPhysicalDeviceProperties2;
import org.lwjgl.vulkan.VkPhysicalDeviceVulkan11Features;
import org.lwjgl.vulkan.VkPhysicalDeviceVulkan12Features;
import org.lwjgl.vulkan.VkQueue;
import org.lwjgl.vulkan.VkQueueFamilyProperties;
import org.lwjgl.vulkan.VkSubmitInfo;

/**
 * One Vulkan instance and logical device: the physical device RLX chose (see {@link #choose}), its compute queue,
 * a command pool, and what its shaders may use (8/16/64-bit types). Queue submission and the pool are guarded by
 * this object's lock, so several compiling threads and streams share it.
 */
final class VulkanContext implements AutoCloseable {
    /** The environment variable naming the device to use: an index of {@code rlx hw}'s list, or part of a name. */
    static final String DEVICE_VARIABLE = "RLX_VULKAN_DEVICE";

    final VkInstance instance;
    final VkPhysicalDevice physical;
    final VulkanDeviceInfo info;
    final VkDevice device;
    final VkQueue queue;
    final int queueFamily;
    final long commandPool;
    final boolean float64;
    final boolean int16;
    final boolean float16;
    /** Memory type of device buffers; {@link #deviceMappable} when the host can map it (lavapipe, unified memory). */
    final int deviceMemoryType;
    final boolean deviceMappable;
    /** Host-visible, coherent memory for staging copies. */
    final int stagingMemoryType;

    private VulkanContext(VkInstance instance, VkPhysicalDevice physical, VulkanDeviceInfo info) {
        this.instance = instance;
        this.physical = physical;
        this.info = info;
        try (MemoryStack stack = stackPush()) {
            queueFamily = computeQueueFamily(physical, stack);
            VkPhysicalDeviceVulkan11Features f11 = VkPhysicalDeviceVulkan11Features.calloc(stack)
                    .sType$Default();
            VkPhysicalDeviceVulkan12Features f12 = VkPhysicalDeviceVulkan12Features.calloc(stack)
                    .sType$Default();
            VkPhysicalDeviceFeatures2 f = VkPhysicalDeviceFeatures2.calloc(stack).sType$Default();
            f.pNext(f11.address());
            f11.pNext(f12.address());
            vkGetPhysicalDeviceFeatures2(physical, f);
            float64 = f.features().shaderFloat64();
            int16 = f.features().shaderInt16() && f11.storageBuffer16BitAccess();
            float16 = f12.shaderFloat16() && f11.storageBuffer16BitAccess();

            VkPhysicalDeviceVulkan11Features e11 = VkPhysicalDeviceVulkan11Features.calloc(stack).sType$Default()
                    .storageBuffer16BitAccess(f11.storageBuffer16BitAccess());
            VkPhysicalDeviceVulkan12Features e12 = VkPhysicalDeviceVulkan12Features.calloc(stack).sType$Default()
                    .bufferDeviceAddress(true)
                    .shaderInt8(f12.shaderInt8())
                    .storageBuffer8BitAccess(f12.storageBuffer8BitAccess())
                    .shaderFloat16(f12.shaderFloat16());
            VkPhysicalDeviceFeatures2 enable = VkPhysicalDeviceFeatures2.calloc(stack).sType$Default();
            enable.features().shaderInt64(f.features().shaderInt64()).shaderFloat64(float64)
                    .shaderInt16(f.features().shaderInt16());
            enable.pNext(e11.address());
            e11.pNext(e12.address());

            VkDeviceQueueCreateInfo.Buffer queues = VkDeviceQueueCreateInfo.calloc(1, stack).sType$Default()
                    .queueFamilyIndex(queueFamily).pQueuePriorities(stack.floats(1f));
            VkDeviceCreateInfo dci = VkDeviceCreateInfo.calloc(stack).sType$Default().pQueueCreateInfos(queues)
                    .pNext(enable.address());
            PointerBuffer pd = stack.mallocPointer(1);
            VulkanException.check(vkCreateDevice(physical, dci, null, pd), "creating a device on " + info.name());
            device = new VkDevice(pd.get(0), physical, dci, VK_API_VERSION_1_2);
            PointerBuffer pq = stack.mallocPointer(1);
            vkGetDeviceQueue(device, queueFamily, 0, pq);
            queue = new VkQueue(pq.get(0), device);
            LongBuffer lp = stack.mallocLong(1);
            VulkanException.check(vkCreateCommandPool(device, VkCommandPoolCreateInfo.calloc(stack).sType$Default()
                    .queueFamilyIndex(queueFamily).flags(VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT), null, lp),
                    "creating a command pool on " + info.name());
            commandPool = lp.get(0);

            VkPhysicalDeviceMemoryProperties mp = VkPhysicalDeviceMemoryProperties.calloc(stack);
            vkGetPhysicalDeviceMemoryProperties(physical, mp);
            int local = -1;
            int staging = -1;
            for (int i = 0; i < mp.memoryTypeCount(); i++) {
                int flags = mp.memoryTypes(i).propertyFlags();
                if (local < 0 && (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0) {
                    local = i;
                }
                int hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
                if (staging < 0 && (flags & hv) == hv) {
                    staging = i;
                }
            }
            if (local < 0) {
                local = staging;
            }
            if (local < 0 || staging < 0) {
                throw new VulkanException("Vulkan: " + info.name() + " has no device-local or no host-visible memory");
            }
            deviceMemoryType = local;
            int hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
            deviceMappable = (mp.memoryTypes(local).propertyFlags() & hv) == hv;
            stagingMemoryType = staging;
        }
    }

    /**
     * Opens the device {@link #choose} picks.
     *
     * @throws VulkanException when there is no loader or no usable device
     */
    static VulkanContext open() {
        VkInstance instance = createInstance();
        try {
            List<VulkanDeviceInfo> all = describe(instance);
            VulkanDeviceInfo chosen = choose(all, System.getenv(DEVICE_VARIABLE));
            return new VulkanContext(instance, physicalDevices(instance).get(chosen.index()), chosen);
        } catch (RuntimeException e) {
            vkDestroyInstance(instance, null);
            throw e;
        }
    }

    /** Every physical device the loader sees, with why RLX cannot use one where it cannot. */
    static List<VulkanDeviceInfo> listDevices() {
        VkInstance instance = createInstance();
        try {
            return describe(instance);
        } finally {
            vkDestroyInstance(instance, null);
        }
    }

    /**
     * The device to use: the one {@code wanted} names (an index, or a case-insensitive part of a name) when set,
     * else the best usable one by type (discrete, integrated, virtual, CPU), the first listed among equals.
     *
     * @throws VulkanException naming the devices when none is usable or {@code wanted} matches none
     */
    static VulkanDeviceInfo choose(List<VulkanDeviceInfo> devices, String wanted) {
        List<VulkanDeviceInfo> usable = devices.stream().filter(VulkanDeviceInfo::usable).toList();
        if (wanted != null && !wanted.isBlank()) {
            String w = wanted.trim().toLowerCase(Locale.ROOT);
            for (VulkanDeviceInfo d : usable) {
                if (w.equals(Integer.toString(d.index())) || d.name().toLowerCase(Locale.ROOT).contains(w)) {
                    return d;
                }
            }
            throw new VulkanException("Vulkan: " + DEVICE_VARIABLE + "=" + wanted + " names no usable device; devices: "
                    + listing(devices));
        }
        return usable.stream().min(Comparator.comparingInt(VulkanDeviceInfo::rank)
                .thenComparingInt(VulkanDeviceInfo::index))
                .orElseThrow(() -> new VulkanException("Vulkan: no usable device; devices: " + listing(devices)));
    }

    private static String listing(List<VulkanDeviceInfo> devices) {
        if (devices.isEmpty()) {
            return "none (is a driver such as mesa-vulkan-drivers installed?)";
        }
        StringBuilder sb = new StringBuilder();
        for (VulkanDeviceInfo d : devices) {
            sb.append(sb.isEmpty() ? "" : "; ").append(d.describe());
        }
        return sb.toString();
    }

    private static VkInstance createInstance() {
        try {
            VK.getFunctionProvider();
        } catch (Throwable e) { // UnsatisfiedLinkError, IllegalStateException: the loader did not load
            throw new VulkanException("Vulkan: no Vulkan loader (libvulkan.so.1, package libvulkan1): " + e.getMessage(),
                    e);
        }
        if (VK.getInstanceVersionSupported() < VK_API_VERSION_1_2) {
            throw new VulkanException("Vulkan: the loader supports only Vulkan "
                    + version(VK.getInstanceVersionSupported()) + "; RLX needs 1.2");
        }
        try (MemoryStack stack = stackPush()) {
            VkApplicationInfo app = VkApplicationInfo.calloc(stack).sType$Default()
                    .pApplicationName(stack.UTF8("rlx")).pEngineName(stack.UTF8("rlx"))
                    .apiVersion(VK_API_VERSION_1_2);
            VkInstanceCreateInfo ci = VkInstanceCreateInfo.calloc(stack).sType$Default().pApplicationInfo(app);
            PointerBuffer p = stack.mallocPointer(1);
            VulkanException.check(vkCreateInstance(ci, null, p), "creating an instance");
            return new VkInstance(p.get(0), ci);
        }
    }

    private static List<VkPhysicalDevice> physicalDevices(VkInstance instance) {
        try (MemoryStack stack = stackPush()) {
            IntBuffer n = stack.mallocInt(1);
            VulkanException.check(vkEnumeratePhysicalDevices(instance, n, null), "listing devices");
            PointerBuffer p = stack.mallocPointer(n.get(0));
            VulkanException.check(vkEnumeratePhysicalDevices(instance, n, p), "listing devices");
            List<VkPhysicalDevice> out = new ArrayList<>();
            for (int i = 0; i < n.get(0); i++) {
                out.add(new VkPhysicalDevice(p.get(i), instance));
            }
            return out;
        }
    }

    private static List<VulkanDeviceInfo> describe(VkInstance instance) {
        List<VkPhysicalDevice> devices = physicalDevices(instance);
        List<VulkanDeviceInfo> out = new ArrayList<>();
        for (int i = 0; i < devices.size(); i++) {
            out.add(describe(i, devices.get(i)));
        }
        return out;
    }

    private static VulkanDeviceInfo describe(int index, VkPhysicalDevice pd) {
        try (MemoryStack stack = stackPush()) {
            VkPhysicalDeviceSubgroupProperties sub = VkPhysicalDeviceSubgroupProperties.calloc(stack).sType$Default();
            VkPhysicalDeviceProperties2 p2 = VkPhysicalDeviceProperties2.calloc(stack).sType$Default()
                    .pNext(sub.address());
            vkGetPhysicalDeviceProperties2(pd, p2);
            VkPhysicalDeviceProperties p = p2.properties();
            String type = switch (p.deviceType()) {
                case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU -> "discrete";
                case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU -> "integrated";
                case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU -> "virtual";
                case VK_PHYSICAL_DEVICE_TYPE_CPU -> "cpu";
                default -> "other";
            };
            VkPhysicalDeviceMemoryProperties mp = VkPhysicalDeviceMemoryProperties.calloc(stack);
            vkGetPhysicalDeviceMemoryProperties(pd, mp);
            List<VulkanDeviceInfo.Heap> heaps = new ArrayList<>();
            for (int h = 0; h < mp.memoryHeapCount(); h++) {
                heaps.add(new VulkanDeviceInfo.Heap(mp.memoryHeaps(h).size(),
                        (mp.memoryHeaps(h).flags() & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0));
            }
            VkPhysicalDeviceVulkan12Features f12 = VkPhysicalDeviceVulkan12Features.calloc(stack).sType$Default();
            VkPhysicalDeviceFeatures2 f = VkPhysicalDeviceFeatures2.calloc(stack).sType$Default().pNext(f12.address());
            String whyNot = null;
            if (p.apiVersion() < VK_API_VERSION_1_2) {
                whyNot = "Vulkan " + version(p.apiVersion()) + " (RLX needs 1.2)";
            } else {
                vkGetPhysicalDeviceFeatures2(pd, f);
                if (!f12.bufferDeviceAddress()) {
                    whyNot = "no buffer device addresses";
                } else if (!f.features().shaderInt64()) {
                    whyNot = "no 64-bit integers in shaders";
                } else if (!f12.storageBuffer8BitAccess() || !f12.shaderInt8()) {
                    whyNot = "no 8-bit storage";
                } else if (computeQueueFamily(pd, stack) < 0) {
                    whyNot = "no compute queue";
                }
            }
            String driver = p.deviceNameString();
            return new VulkanDeviceInfo(index, p.deviceNameString(), type, driverName(pd, stack, driver),
                    version(p.apiVersion()), heaps, sub.subgroupSize(), p.limits().maxComputeSharedMemorySize(),
                    p.limits().maxComputeWorkGroupInvocations(), whyNot == null, whyNot);
        }
    }

    private static String driverName(VkPhysicalDevice pd, MemoryStack stack, String fallback) {
        org.lwjgl.vulkan.VkPhysicalDeviceDriverProperties d =
                org.lwjgl.vulkan.VkPhysicalDeviceDriverProperties.calloc(stack).sType$Default();
        VkPhysicalDeviceProperties2 p2 = VkPhysicalDeviceProperties2.calloc(stack).sType$Default().pNext(d.address());
        vkGetPhysicalDeviceProperties2(pd, p2);
        String s = (d.driverNameString() + " " + d.driverInfoString()).trim();
        return s.isEmpty() ? fallback : s;
    }

    private static int computeQueueFamily(VkPhysicalDevice pd, MemoryStack stack) {
        IntBuffer n = stack.mallocInt(1);
        vkGetPhysicalDeviceQueueFamilyProperties(pd, n, null);
        VkQueueFamilyProperties.Buffer q = VkQueueFamilyProperties.calloc(n.get(0), stack);
        vkGetPhysicalDeviceQueueFamilyProperties(pd, n, q);
        for (int i = 0; i < n.get(0); i++) {
            if ((q.get(i).queueFlags() & VK_QUEUE_COMPUTE_BIT) != 0) {
                return i;
            }
        }
        return -1;
    }

    static String version(int v) {
        return VK_API_VERSION_MAJOR(v) + "." + VK_API_VERSION_MINOR(v) + "." + VK_API_VERSION_PATCH(v);
    }

    /** A primary command buffer from the pool, not begun. */
    synchronized VkCommandBuffer newCommandBuffer() {
        try (MemoryStack stack = stackPush()) {
            PointerBuffer p = stack.mallocPointer(1);
            VulkanException.check(vkAllocateCommandBuffers(device, VkCommandBufferAllocateInfo.calloc(stack)
                    .sType$Default().commandPool(commandPool).level(VK_COMMAND_BUFFER_LEVEL_PRIMARY)
                    .commandBufferCount(1), p), "allocating a command buffer on " + info.name());
            return new VkCommandBuffer(p.get(0), device);
        }
    }

    synchronized void freeCommandBuffer(VkCommandBuffer cb) {
        vkFreeCommandBuffers(device, commandPool, cb);
    }

    long newFence() {
        try (MemoryStack stack = stackPush()) {
            LongBuffer p = stack.mallocLong(1);
            VulkanException.check(vkCreateFence(device, VkFenceCreateInfo.calloc(stack).sType$Default(), null, p),
                    "creating a fence on " + info.name());
            return p.get(0);
        }
    }

    /** Submits prepared work; the queue is shared, so submissions are serialised. */
    synchronized void submit(VkSubmitInfo submit, long fence) {
        int r = vkQueueSubmit(queue, submit, fence);
        if (r != VK_SUCCESS) { // the message only on failure: a steady run builds no string
            VulkanException.check(r, "submitting work to " + info.name());
        }
    }

    /** Waits until the queue has finished everything submitted. */
    synchronized void waitIdle() {
        vkQueueWaitIdle(queue);
    }

    /** Records commands with {@code body}, runs them and waits: for copies and fills outside a run. */
    void runOnce(java.util.function.Consumer<VkCommandBuffer> body) {
        VkCommandBuffer cb = newCommandBuffer();
        long fence = newFence();
        try (MemoryStack stack = stackPush()) {
            vkBeginCommandBuffer(cb, VkCommandBufferBeginInfo.calloc(stack).sType$Default()
                    .flags(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT));
            body.accept(cb);
            VulkanException.check(vkEndCommandBuffer(cb), "recording a copy on " + info.name());
            submit(VkSubmitInfo.calloc(stack).sType$Default().pCommandBuffers(stack.pointers(cb)), fence);
            VulkanException.check(vkWaitForFences(device, fence, true, Long.MAX_VALUE),
                    "waiting for a copy on " + info.name());
        } finally {
            vkDestroyFence(device, fence, null);
            freeCommandBuffer(cb);
        }
    }

    @Override
    public void close() {
        vkDeviceWaitIdle(device);
        vkDestroyCommandPool(device, commandPool, null);
        vkDestroyDevice(device, null);
        vkDestroyInstance(instance, null);
    }
}
