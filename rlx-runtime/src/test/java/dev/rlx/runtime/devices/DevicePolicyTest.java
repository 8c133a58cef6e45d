package dev.rlx.runtime.devices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.runtime.Device;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DevicePolicyTest {
    @Test
    void fromEnv_readsAllowDenyPreferAndBenchmark_withAliases() {
        DevicePolicy p = DevicePolicy.fromEnv(Map.of("RLX_DEVICES", "nvidia, vk;cpu hip", "RLX_DENY_DEVICES", "amd",
                "RLX_PREFER_DEVICES", "vulkan", "RLX_BENCHMARK_PICK", "5")::get);
        assertEquals(Optional.of(List.of(Device.CUDA, Device.VULKAN, Device.CPU, Device.ROCM)), p.allow());
        assertEquals(List.of(Device.ROCM), p.deny());
        assertEquals(List.of(Device.VULKAN), p.prefer());
        assertEquals(new PickStrategy.Benchmark(5), p.pick());
        assertTrue(p.ignored().isEmpty());
        // Kept: allowed and not denied; preferred first, then the platform order (CUDA before the CPU).
        assertEquals(List.of(Device.VULKAN, Device.CUDA, Device.CPU),
                p.apply(List.of(Device.CPU, Device.ROCM, Device.METAL, Device.CUDA, Device.VULKAN)));
        assertEquals("denied by DevicePolicy", p.blocker(Device.ROCM));
        assertTrue(p.blocker(Device.METAL).startsWith("not in DevicePolicy allow-list"), p.blocker(Device.METAL));
        assertNull(p.blocker(Device.CPU));
    }

    @Test
    void fromEnv_otherPrefix_andUnsetMeansAll() {
        DevicePolicy p = DevicePolicy.fromEnv(Map.of("APP_DEVICES", "cpu", "RLX_DEVICES", "cuda")::get, "APP");
        assertEquals(Optional.of(List.of(Device.CPU)), p.allow());
        DevicePolicy none = DevicePolicy.fromEnv(Map.<String, String>of()::get);
        assertEquals(Optional.empty(), none.allow());
        assertEquals(List.of(Device.values()), none.probeSet());
        assertInstanceOf(PickStrategy.CostModel.class, none.pick());
    }

    @Test
    void fromEnv_unparsableValuesAreIgnoredAndNoted() {
        DevicePolicy p = DevicePolicy.fromEnv(Map.of("RLX_DEVICES", "cdua", "RLX_BENCHMARK_PICK", "many",
                "RLX_DENY_DEVICES", " ")::get);
        assertEquals(Optional.empty(), p.allow());
        assertEquals(List.of(), p.deny());
        assertEquals(new PickStrategy.CostModel(), p.pick());
        assertEquals(2, p.ignored().size(), p.ignored().toString());
        assertTrue(p.ignored().get(0).contains("RLX_DEVICES=cdua") && p.ignored().get(0).contains("cuda"), p.ignored().get(0));
        assertTrue(p.ignored().get(1).contains("RLX_BENCHMARK_PICK=many"), p.ignored().get(1));
        assertEquals(1, DevicePolicy.fromEnv(Map.of("RLX_BENCHMARK_PICK", "0")::get).ignored().size());
    }

    @Test
    void only_withDenyPrefer_andBenchmarkRunsClamped() {
        DevicePolicy p = DevicePolicy.only(Device.CPU);
        assertEquals(List.of(Device.CPU), p.apply(List.of(Device.CUDA, Device.CPU)));
        assertFalse(p.permits(Device.CUDA));
        assertEquals(List.of(Device.CPU), p.probeSet());
        assertEquals(new PickStrategy.Benchmark(1), DevicePolicy.all().withBenchmarkPick(-3).pick());
        DevicePolicy q = DevicePolicy.all().withDeny(Device.CUDA).withPrefer(Device.CPU);
        assertEquals(List.of(Device.CPU, Device.VULKAN), q.apply(List.of(Device.VULKAN, Device.CUDA, Device.CPU)));
    }

    @Test
    void deviceSettings_fromEnv() {
        Map<String, String> env = Map.of("RLX_DEVICE", " VK ", "RLX_DEVICE_CHAIN", "cuda,vulkan,cpu", "RLX_FORCE_DEVICE", "cpu");
        assertEquals(Optional.of(Device.VULKAN), DevicePolicy.deviceFromEnv(env::get));
        assertEquals(Optional.of(List.of(Device.CUDA, Device.VULKAN, Device.CPU)), DevicePolicy.deviceChainFromEnv(env::get));
        assertEquals(Optional.of(Device.CPU), DevicePolicy.forcedDeviceFromEnv(env::get));
        assertEquals(Optional.empty(), DevicePolicy.deviceFromEnv(Map.<String, String>of()::get));
        DeviceSelectionException e = assertThrows(DeviceSelectionException.class,
                () -> DevicePolicy.deviceFromEnv(Map.of("RLX_DEVICE", "tpuu")::get));
        assertTrue(e.getMessage().contains("tpuu") && e.getMessage().contains("vulkan"), e.getMessage());
    }

    @Test
    void names_aliasesAndTypedErrors() {
        assertEquals(Device.ROCM, DeviceNames.parse("hip"));
        assertEquals(Device.ROCM, DeviceNames.parse("AMD"));
        assertEquals(Device.CUDA, DeviceNames.parse("nvidia"));
        assertEquals(Device.DIRECTX, DeviceNames.parse("d3d12"));
        assertEquals(List.of(Device.CUDA, Device.CPU), DeviceNames.parseList("cuda;;nvidia cpu"));
        assertTrue(assertThrows(DeviceSelectionException.class, () -> DeviceNames.parse(" ")).getMessage().contains("empty"));
        assertThrows(DeviceSelectionException.class, () -> DeviceNames.parseList(", ;"));
    }
}
