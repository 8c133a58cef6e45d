package dev.rlx.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.hw.HwSnapshot.Cache;
import dev.rlx.hw.HwSnapshot.Thermal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The macOS probe's parsing, on output recorded from {@code sysctl}, {@code vm_stat} and {@code pmset}. */
class MacHostProbeTest {
    private static final String SYSCTL_M2 = """
            machdep.cpu.brand_string: Apple M2 Pro
            hw.packages: 1
            hw.physicalcpu: 12
            hw.logicalcpu: 12
            hw.nperflevels: 2
            hw.perflevel0.physicalcpu: 8
            hw.perflevel0.cpusperl2: 4
            hw.l1dcachesize: 65536
            hw.l1icachesize: 131072
            hw.l2cachesize: 4194304
            hw.cachelinesize: 128
            hw.memsize: 34359738368
            hw.optional.AdvSIMD: 1
            hw.optional.arm.FEAT_FP16: 1
            hw.optional.arm.FEAT_DotProd: 1
            hw.optional.arm.FEAT_BF16: 1
            hw.optional.arm.FEAT_I8MM: 1
            hw.optional.arm.FEAT_SME: 0
            """;
    private static final String VM_STAT = """
            Mach Virtual Memory Statistics: (page size of 16384 bytes)
            Pages free:                               10000.
            Pages active:                            500000.
            Pages inactive:                           20000.
            Pages speculative:                         3000.
            """;

    private static HwSnapshot.Builder jvm() {
        HwSnapshot.Builder b = new HwSnapshot.Builder();
        b.os = "Mac OS X";
        b.logicalCpus = 12;
        return b;
    }

    @Test
    void appleSilicon_fromRecordedOutput() {
        Map<String, String> outputs = Map.of("sysctl", SYSCTL_M2, "vm_stat", VM_STAT,
                "pmset", "Note: No thermal warning level has been recorded\nNote: No CPU power status has been recorded\n");
        HwSnapshot s = MacHostProbe.probe(jvm(), cmd -> Optional.ofNullable(outputs.get(cmd.get(0))));
        assertEquals("Apple M2 Pro", s.cpuModel());
        assertEquals(1, s.sockets());
        assertEquals(12, s.physicalCores());
        assertEquals(8, s.perfCores());
        assertEquals(List.of(new Cache(1, Cache.Type.DATA, 65536, 128, 1, 0),
                new Cache(1, Cache.Type.INSTRUCTION, 131072, 128, 1, 0),
                new Cache(2, Cache.Type.UNIFIED, 4194304, 128, 4, 0)), s.caches());
        assertEquals(List.of("asimd", "asimdhp", "asimddp", "bf16", "i8mm"), s.simdFeatures());
        assertEquals(34359738368L, s.memTotalBytes());
        assertEquals((10000L + 20000 + 3000) * 16384, s.memAvailableBytes());
        assertEquals(Thermal.State.NOMINAL, s.thermal().state());
    }

    @Test
    void intelMac_featuresMapToLinuxNames() {
        String sysctl = "machdep.cpu.features: FPU SSE2 SSE4.1 SSE4.2 AVX1.0 FMA F16C\n"
                + "machdep.cpu.leaf7_features: AVX2 AVX512F AVX512BW\nhw.nperflevels: 1\nhw.perflevel0.physicalcpu: 8\n";
        HwSnapshot s = MacHostProbe.probe(jvm(), cmd -> cmd.get(0).equals("sysctl") ? Optional.of(sysctl) : Optional.empty());
        assertEquals(List.of("sse2", "sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw"), s.simdFeatures());
        assertEquals(0, s.perfCores(), "one performance level is not hybrid");
        assertEquals(Thermal.UNKNOWN, s.thermal(), "pmset failed");
        assertEquals(12, s.logicalCpus(), "the JVM's count stays when sysctl omits it");
    }

    @Test
    void pmset_limitsBelow100AreThrottled() {
        assertEquals(new Thermal(Thermal.State.THROTTLED, 70, 100), MacHostProbe.parsePmsetTherm(
                "CPU_Scheduler_Limit \t= 100\nCPU_Available_CPUs \t= 8\nCPU_Speed_Limit \t= 70\n"));
        assertEquals(new Thermal(Thermal.State.THROTTLED, 100, 50),
                MacHostProbe.parsePmsetTherm("CPU_Speed_Limit = 100\nCPU_Scheduler_Limit = 50\n"));
        assertEquals(new Thermal(Thermal.State.NOMINAL, 100, 100),
                MacHostProbe.parsePmsetTherm("CPU_Speed_Limit = 100\nCPU_Scheduler_Limit = 100\n"));
        assertEquals(new Thermal(Thermal.State.NOMINAL, 0, 0),
                MacHostProbe.parsePmsetTherm("Note: No CPU power status has been recorded\n"));
        assertEquals(Thermal.UNKNOWN, MacHostProbe.parsePmsetTherm("something else entirely"));
        assertEquals(Thermal.UNKNOWN, MacHostProbe.parsePmsetTherm("CPU_Speed_Limit = 99999999999999999999999"),
                "a number that does not fit is no reading");
    }

    @Test
    void vmStat_withoutPageSizeIsUnknown() {
        assertEquals(0, MacHostProbe.parseVmStat("Pages free: 10."));
        assertEquals(0, MacHostProbe.parseVmStat(""));
    }
}
