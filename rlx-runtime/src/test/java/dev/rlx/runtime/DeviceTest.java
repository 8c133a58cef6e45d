package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.hw.GpuVendor;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DeviceTest {
    @Test
    void values_areTheTwelveDevicesInOrder() {
        assertEquals(List.of(Device.CPU, Device.METAL, Device.MLX, Device.ANE, Device.CUDA, Device.ROCM, Device.TPU,
                Device.GPU, Device.VULKAN, Device.OPENGL, Device.DIRECTX, Device.WEBGPU), List.of(Device.values()));
    }

    @Test
    void of_mapsEachGpuVendorToTheDeviceItsGpusRunOn() {
        assertEquals(Device.CUDA, Device.of(GpuVendor.NVIDIA));
        assertEquals(Device.ROCM, Device.of(GpuVendor.AMD));
        assertThrows(NullPointerException.class, () -> Device.of(null));
    }

    @Test
    void displayName_matchesTheReference() {
        assertEquals(List.of("CPU", "Metal", "MLX", "ANE", "CUDA", "ROCm", "TPU", "GPU (wgpu)", "Vulkan", "OpenGL",
                "DirectX 12", "WebGPU"), Arrays.stream(Device.values()).map(Device::displayName).toList());
    }

    @Test
    void label_isTheLowerCaseFeatureName() {
        assertEquals(List.of("cpu", "metal", "mlx", "ane", "cuda", "rocm", "tpu", "gpu", "vulkan", "opengl", "directx",
                "webgpu"), Arrays.stream(Device.values()).map(Device::label).toList());
        for (Device d : Device.values()) {
            assertEquals(d, Device.parse(d.label()), d + " label parses back");
            assertEquals(d, Device.parse(d.name()), d + " enum name parses back");
            assertTrue(d.artifact().startsWith("rlx-"), d.artifact());
        }
        assertEquals("rlx-metal", Device.METAL.artifact());
    }

    @ParameterizedTest
    @CsvSource({
        "cpu, CPU", "metal, METAL", "mtl, METAL", "mlx, MLX", "ane, ANE", "neural-engine, ANE",
        "cuda, CUDA", "nvidia, CUDA", "rocm, ROCM", "hip, ROCM", "amd, ROCM", "tpu, TPU",
        "gpu, GPU", "wgpu, GPU", "vulkan, VULKAN", "vk, VULKAN", "opengl, OPENGL", "gl, OPENGL",
        "directx, DIRECTX", "dx12, DIRECTX", "d3d12, DIRECTX", "webgpu, WEBGPU"
    })
    void parse_aliases(String alias, Device expected) {
        assertEquals(expected, Device.parse(alias));
        assertEquals(expected, Device.parse(alias.toUpperCase(java.util.Locale.ROOT)));
        assertEquals(expected, Device.parse("  " + alias + "\t"));
    }

    @Test
    void parse_mixedCase_isAccepted() {
        assertEquals(Device.CUDA, Device.parse("NVidia"));
        assertEquals(Device.DIRECTX, Device.parse("Dx12"));
        assertEquals(Device.VULKAN, Device.parse(" Vk "));
    }

    @ParameterizedTest
    @ValueSource(strings = {"fpga", "cuda12", "metal,", "c p u", "opencl"})
    void parse_unknownName_listsTheChoices(String name) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Device.parse(name));
        assertTrue(e.getMessage().contains("'" + name + "'"), e.getMessage());
        for (Device d : Device.values()) {
            assertTrue(e.getMessage().contains(d.label()), e.getMessage() + " lacks " + d.label());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "\t"})
    void parse_emptyName_isRejected(String name) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Device.parse(name));
        assertEquals("empty device name", e.getMessage());
    }

    @Test
    void parse_null_isRejectedAsEmpty() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Device.parse(null));
        assertEquals("empty device name", e.getMessage());
    }

    @Test
    void parseList_splitsOnCommasSemicolonsAndSpaces() {
        assertEquals(List.of(Device.CUDA, Device.CPU, Device.VULKAN, Device.METAL),
                Device.parseList("cuda,cpu;vk metal"));
        assertEquals(List.of(Device.CPU, Device.GPU), Device.parseList(" ,cpu,, ;gpu; "));
    }

    @Test
    void parseList_dropsRepeatsKeepingFirstOrder() {
        assertEquals(List.of(Device.CUDA, Device.CPU), Device.parseList("nvidia cpu cuda CPU nvidia"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", ",;, ", ";;"})
    void parseList_noNames_isRejected(String names) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Device.parseList(names));
        assertTrue(e.getMessage().contains("no device names"), e.getMessage());
    }

    @Test
    void parseList_null_isRejectedLikeAnEmptyList() {
        // e.g. Device.parseList(System.getenv("RLX_DEVICES")) with the variable unset
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Device.parseList(null));
        assertTrue(e.getMessage().contains("no device names"), e.getMessage());
    }

    @Test
    void parseList_unknownEntry_namesIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Device.parseList("cpu,quantum"));
        assertTrue(e.getMessage().contains("'quantum'"), e.getMessage());
    }
}
