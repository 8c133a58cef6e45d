package dev.rlx.runtime.devices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackendsManifestTest {
    @Test
    void parse_concatenatedEntries_asAShadedJarHasThem() throws IOException {
        List<BackendsManifest.Module> m = BackendsManifest.parse(
                "{\"module\": \"rlx-cpu\", \"version\": \"1.0\", \"backends\": [\"cpu\"]}\n"
                        + "{\"module\": \"rlx-vulkan\", \"version\": \"1.0\", \"backends\": [\"vulkan\"], \"extra\": {\"a\": 1}}\n");
        assertEquals(List.of(new BackendsManifest.Module("rlx-cpu", "1.0", List.of("cpu")),
                new BackendsManifest.Module("rlx-vulkan", "1.0", List.of("vulkan"))), m);
        assertEquals(List.of("cpu", "vulkan"), new BackendsManifest(m, List.of()).backends());
        assertThrows(IOException.class, () -> BackendsManifest.parse("[1]"));
        assertThrows(IOException.class, () -> BackendsManifest.parse("{\"backends\": []}"));
    }

    /** rlx-runtime ships no backend: its own class path has no manifest, and the run-time view still answers. */
    @Test
    void current_onTheRuntimeClassPath() {
        BackendsManifest m = BackendsManifest.current();
        assertTrue(m.problems().isEmpty(), m.problems().toString());
        assertTrue(m.json().contains("\"runtime\""), m.json());
    }
}
