package dev.rlx.vulkan;

import java.util.Random;

/** What the Vulkan tests say when they skip, and the random data they share. */
final class VulkanTestDevice {
    private VulkanTestDevice() {}

    static final String MISSING = "no Vulkan device (install mesa-vulkan-drivers and libvulkan1 for lavapipe)";

    /** {@code n} floats uniform in [-1, 1) from {@code seed}. */
    static float[] uniform(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = r.nextFloat() * 2 - 1;
        }
        return v;
    }
}
