package dev.rlx.vulkan;

/** What the Vulkan tests say when they skip. */
final class VulkanTestDevice {
    private VulkanTestDevice() {}

    static final String MISSING = "no Vulkan device (install mesa-vulkan-drivers and libvulkan1 for lavapipe)";
}
