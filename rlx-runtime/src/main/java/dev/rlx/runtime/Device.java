package dev.rlx.runtime;

import dev.rlx.hw.GpuVendor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Where a graph runs. A device is available when a backend for it is on the class path (found through
 * {@code ServiceLoader}, see {@link BackendRegistry}) and its probe finds the hardware or driver.
 */
public enum Device {
    CPU("CPU", "rlx-cpu", "cpu"),
    METAL("Metal", "rlx-metal", "metal", "mtl"),
    MLX("MLX", "rlx-mlx", "mlx"),
    ANE("ANE", "rlx-ane", "ane", "neural-engine"),
    CUDA("CUDA", "rlx-cuda", "cuda", "nvidia"),
    ROCM("ROCm", "rlx-rocm", "rocm", "hip", "amd"),
    TPU("TPU", "rlx-tpu", "tpu"),
    GPU("GPU (wgpu)", "rlx-wgpu", "gpu", "wgpu"),
    VULKAN("Vulkan", "rlx-vulkan", "vulkan", "vk"),
    OPENGL("OpenGL", "rlx-opengl", "opengl", "gl"),
    DIRECTX("DirectX 12", "rlx-directx", "directx", "dx12", "d3d12"),
    WEBGPU("WebGPU", "rlx-webgpu", "webgpu");

    private final String displayName;
    private final String artifact;
    private final List<String> aliases;

    Device(String displayName, String artifact, String... aliases) {
        this.displayName = displayName;
        this.artifact = artifact;
        this.aliases = List.of(aliases);
    }

    /** Human name, e.g. {@code "ROCm"}, {@code "DirectX 12"}. */
    public String displayName() {
        return displayName;
    }

    /** Lower-case name used on command lines and in {@code RLX_*} variables, e.g. {@code "cuda"}. */
    public String label() {
        return aliases.get(0);
    }

    /** The Maven artifact ({@code dev.rlx:<artifact>}) whose backend provides this device. */
    public String artifact() {
        return artifact;
    }

    /** Whether a backend for this device is on the class path and its probe succeeds. */
    public boolean isAvailable() {
        return BackendRegistry.global().isAvailable(this);
    }

    /**
     * The device whose backend runs graphs on {@code vendor}'s GPUs: {@link #CUDA} for NVIDIA, {@link #ROCM} for AMD
     * (how a {@code GpuThermal} reading is matched to the device a graph runs on).
     */
    public static Device of(GpuVendor vendor) {
        return switch (Objects.requireNonNull(vendor, "vendor")) {
            case NVIDIA -> CUDA;
            case AMD -> ROCM;
        };
    }

    /** Devices that are available, in declaration order. */
    public static List<Device> available() {
        return Arrays.stream(values()).filter(Device::isAvailable).toList();
    }

    /**
     * Parses a device name or alias, case-insensitively ({@code cuda}, {@code nvidia}, {@code vk}, {@code dx12}...).
     *
     * @throws IllegalArgumentException naming the choices when nothing matches
     */
    public static Device parse(String name) {
        String s = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        if (s.isEmpty()) {
            throw new IllegalArgumentException("empty device name");
        }
        for (Device d : values()) {
            if (d.aliases.contains(s) || d.name().toLowerCase(Locale.ROOT).equals(s)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown device '" + name + "'; choose one of "
                + Arrays.stream(values()).map(Device::label).toList());
    }

    /**
     * Parses a list separated by commas, semicolons or spaces; drops repeats, keeps order.
     *
     * @throws IllegalArgumentException when {@code names} is null or holds no name, or a name is unknown
     */
    public static List<Device> parseList(String names) {
        List<Device> out = new ArrayList<>();
        for (String part : (names == null ? "" : names).split("[,; ]+")) {
            if (!part.isBlank()) {
                Device d = parse(part);
                if (!out.contains(d)) {
                    out.add(d);
                }
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no device names in '" + names + "'");
        }
        return out;
    }
}
