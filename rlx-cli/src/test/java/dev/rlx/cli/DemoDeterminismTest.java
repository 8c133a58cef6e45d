package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code rlx demo}'s output bits are the same in every process (issue: its checksum differed between processes even
 * with one thread): one JVM runs the block once with C1 only (the Vector API's Java fallback), another 3,000 times
 * so C2 compiles the kernels; the printed hash of the output's bits must agree.
 */
class DemoDeterminismTest {

    private static String checksum(List<String> jvmFlags, String... demoArgs) throws Exception {
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin",
                "java").toString());
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(jvmFlags);
        cmd.addAll(List.of("--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "demo", "--threads", "1"));
        cmd.addAll(List.of(demoArgs));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("rlx demo did not finish");
        }
        return out.lines().filter(l -> l.contains("checksum")).findFirst()
                .orElseThrow(() -> new AssertionError("rlx demo printed no checksum:\n" + out)).trim();
    }

    @Test
    void demo_sameOutputBits_interpretedAndCompiled_inTwoProcesses() throws Exception {
        String c1 = checksum(List.of("-XX:TieredStopAtLevel=1"), "--runs", "1", "--warmup", "0");
        String c2 = checksum(List.of(), "--runs", "3000", "--warmup", "0");
        assertEquals(c1, c2, "rlx demo's checksum line, C1 only vs C2-compiled");
    }
}
