package dev.rlx.vulkan;

import java.util.List;
import java.util.Locale;

/**
 * What {@code rlx hw} and the device choice need to know of one Vulkan physical device.
 *
 * @param index              its position in the instance's enumeration (what {@code RLX_VULKAN_DEVICE=N} names)
 * @param name               the driver's device name, e.g. {@code "llvmpipe (LLVM 15.0.6, 256 bits)"}
 * @param type               {@code discrete}, {@code integrated}, {@code virtual}, {@code cpu} or {@code other}
 * @param driver             driver name and info, e.g. {@code "llvmpipe Mesa 22.3.6"}
 * @param apiVersion         the Vulkan version it supports, e.g. {@code "1.3.230"}
 * @param heaps              memory heaps: bytes each, and whether device-local
 * @param subgroupSize       threads per subgroup (warp, wavefront)
 * @param sharedMemoryBytes  shared memory per workgroup
 * @param maxWorkgroupSize   invocations per workgroup
 * @param usable             whether RLX can run on it (Vulkan 1.2 with buffer device addresses and a compute queue)
 * @param whyNot             why it is not usable, else null
 */
public record VulkanDeviceInfo(int index, String name, String type, String driver, String apiVersion,
                               List<Heap> heaps, int subgroupSize, int sharedMemoryBytes, int maxWorkgroupSize,
                               boolean usable, String whyNot) {
    /** One memory heap. */
    public record Heap(long bytes, boolean deviceLocal) {}

    public VulkanDeviceInfo {
        heaps = List.copyOf(heaps);
    }

    /** Preference when no device is named: discrete over integrated over virtual over a CPU implementation. */
    int rank() {
        return switch (type) {
            case "discrete" -> 0;
            case "integrated" -> 1;
            case "virtual" -> 2;
            case "cpu" -> 3;
            default -> 4;
        };
    }

    /** One line for listings. */
    public String describe() {
        StringBuilder h = new StringBuilder();
        for (Heap heap : heaps) {
            h.append(h.isEmpty() ? "" : " + ").append(String.format(Locale.ROOT, "%.1f GiB%s",
                    heap.bytes() / (1024.0 * 1024 * 1024), heap.deviceLocal() ? " local" : ""));
        }
        return String.format(Locale.ROOT, "[%d] %s (%s, %s, Vulkan %s): heaps %s; subgroup %d, shared %d KiB, "
                        + "workgroup %d%s", index, name, type, driver, apiVersion, h, subgroupSize,
                sharedMemoryBytes / 1024, maxWorkgroupSize, usable ? "" : "; not usable: " + whyNot);
    }
}
