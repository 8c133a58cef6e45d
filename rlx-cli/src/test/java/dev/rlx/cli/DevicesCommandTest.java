package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.runtime.devices.CostModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DevicesCommandTest {
    @Test
    void text_listsEveryDevice_andMarksTheRecommendedOne() {
        Cli r = Cli.run(new DevicesCommand(CostModels.heuristic()));
        assertEquals(0, r.exit(), r.err());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(0).startsWith("device   reg   avail runs"), r.out());
        String cpu = lines.stream().filter(l -> l.startsWith("cpu ")).findFirst().orElseThrow();
        assertTrue(cpu.matches("cpu\\s+yes\\s+yes\\s+whole\\s+[0-9.]+ us\\s+\\*\\s+clone,typed_io.*"), cpu);
        String cuda = lines.stream().filter(l -> l.startsWith("cuda ")).findFirst().orElseThrow();
        assertTrue(cuda.endsWith("not available on this host or in this build"), cuda);
        assertTrue(r.out().contains("\nrecommended: cpu ("), r.out());
        assertTrue(r.out().contains("backend modules: rlx-cpu 0.1.0-SNAPSHOT [cpu]"), r.out());
        assertTrue(r.out().contains("rlx-vulkan 0.1.0-SNAPSHOT [vulkan]"), r.out());
    }

    @Test
    @SuppressWarnings("unchecked")
    void json_ofAModel_parses(@TempDir Path dir) throws Exception {
        Path model = dir.resolve("minilm.onnx");
        Files.write(model, MiniLm.FP32.modelBytes());
        Cli r = Cli.run(new DevicesCommand(CostModels.heuristic()), model.toString(), "--json", "--dim-size", "8");
        assertEquals(0, r.exit(), r.err());
        Map<String, Object> doc = JsonTree.object(r.out());
        Map<String, Object> report = (Map<String, Object>) doc.get("report");
        List<Map<String, Object>> devices = (List<Map<String, Object>>) report.get("devices");
        assertEquals(12, devices.size());
        assertEquals(Boolean.TRUE, devices.get(0).get("supportsGraph"));
        // The recommended device is the viable one with the lowest estimate (the CPU, or lavapipe where installed).
        Map<String, Object> cheapest = devices.stream().filter(d -> d.get("blocker") == null)
                .min(java.util.Comparator.comparingDouble(d -> ((Number) d.get("estimatedNs")).doubleValue())).orElseThrow();
        assertEquals(cheapest.get("device"), report.get("recommended"), r.out());
        assertEquals(Boolean.TRUE, cheapest.get("recommended"));
        Map<String, Object> backends = (Map<String, Object>) doc.get("backends");
        assertTrue(((List<?>) backends.get("modules")).size() >= 2, r.out());
    }

    @Test
    void aMissingModel_isOneLine() {
        Cli r = Cli.run(new DevicesCommand(CostModels.heuristic()), "/nonexistent/model.onnx");
        assertEquals(1, r.exit());
        assertEquals(1, r.err().lines().count(), r.err());
    }
}
