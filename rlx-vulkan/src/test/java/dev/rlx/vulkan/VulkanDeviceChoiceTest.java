package dev.rlx.vulkan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The device choice (RLX_VULKAN_DEVICE, else by type) on listed devices: no Vulkan device needed. */
class VulkanDeviceChoiceTest {
    private static VulkanDeviceInfo device(int index, String name, String type, boolean usable) {
        return new VulkanDeviceInfo(index, name, type, "driver", "1.3.0", List.of(new VulkanDeviceInfo.Heap(1L << 30,
                true)), 32, 49152, 1024, usable, usable ? null : "no buffer device addresses");
    }

    private final VulkanDeviceInfo cpu = device(0, "llvmpipe (LLVM 15)", "cpu", true);
    private final VulkanDeviceInfo integrated = device(1, "Intel UHD", "integrated", true);
    private final VulkanDeviceInfo discrete = device(2, "NVIDIA H200", "discrete", true);
    private final VulkanDeviceInfo old = device(3, "Old GPU", "discrete", false);

    @Test
    void withoutAName_aDiscreteGpuWinsOverIntegratedOverCpu_andUnusableOnesAreSkipped() {
        assertEquals(discrete, VulkanContext.choose(List.of(cpu, integrated, discrete, old), null));
        assertEquals(integrated, VulkanContext.choose(List.of(cpu, integrated, old), " "));
        assertEquals(cpu, VulkanContext.choose(List.of(old, cpu), null));
    }

    @Test
    void aNameOrIndex_choosesThatDevice() {
        List<VulkanDeviceInfo> all = List.of(cpu, integrated, discrete);
        assertEquals(cpu, VulkanContext.choose(all, "0"));
        assertEquals(integrated, VulkanContext.choose(all, "uhd"));
        assertEquals(discrete, VulkanContext.choose(all, "H200"));
    }

    @Test
    void aNameMatchingNoUsableDevice_isATypedErrorListingTheDevices() {
        VulkanException e = assertThrows(VulkanException.class,
                () -> VulkanContext.choose(List.of(cpu, old), "old gpu"));
        assertTrue(e.getMessage().contains("RLX_VULKAN_DEVICE=old gpu") && e.getMessage().contains("llvmpipe")
                && e.getMessage().contains("not usable: no buffer device addresses"), e.getMessage());
        VulkanException none = assertThrows(VulkanException.class, () -> VulkanContext.choose(List.of(), null));
        assertTrue(none.getMessage().contains("no usable device") && none.getMessage().contains("mesa-vulkan-drivers"),
                none.getMessage());
    }

    @Test
    void aListingLine_namesTypeDriverHeapsAndLimits() {
        String line = discrete.describe();
        assertTrue(line.startsWith("[2] NVIDIA H200 (discrete, driver, Vulkan 1.3.0)"), line);
        assertTrue(line.contains("1.0 GiB local") && line.contains("subgroup 32") && line.contains("shared 48 KiB")
                && line.contains("workgroup 1024"), line);
    }
}
