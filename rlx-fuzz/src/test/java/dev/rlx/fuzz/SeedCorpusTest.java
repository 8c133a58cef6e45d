package dev.rlx.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedOutputStream;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.GraphSerializer;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.llm.kv.KvCacheConfig;
import dev.rlx.llm.kv.PagedKvCache;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.runtime.weights.Npy;
import dev.rlx.runtime.weights.SafetensorsLoader;
import dev.rlx.runtime.weights.SafetensorsWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed inputs of {@link LoaderFuzzTest}: one small valid file per reader, made here by the project's own
 * writers, so fuzzing starts from inputs that get past the magic and the header. The files under
 * {@code src/test/resources} must be exactly what this makes; {@code -Drlx.fuzz.writeSeeds=true} rewrites them.
 */
class SeedCorpusTest {
    static final Path INPUTS = Path.of("src/test/resources/dev/rlx/fuzz/LoaderFuzzTestInputs");

    /** y = Relu(x @ W + b) with x f32[2, 3] and W an initializer; protobuf written field by field. */
    static byte[] onnxSeed() throws IOException {
        byte[] w = Tensor.of(new float[] {0.5f, -1, 2, 0.25f, 1.5f, -0.75f}, 3, 2).bytes();
        byte[] graph = message(g -> {
            g.writeByteArray(1, message(n -> {
                n.writeString(1, "x");
                n.writeString(1, "W");
                n.writeString(2, "h");
                n.writeString(4, "MatMul");
            }));
            g.writeByteArray(1, message(n -> {
                n.writeString(1, "h");
                n.writeString(2, "y");
                n.writeString(4, "Relu");
            }));
            g.writeString(2, "seed");
            g.writeByteArray(5, message(t -> {
                t.writeInt64(1, 3);
                t.writeInt64(1, 2);
                t.writeInt32(2, 1);
                t.writeString(8, "W");
                t.writeByteArray(9, w);
            }));
            g.writeByteArray(11, valueInfo("x", 2, 3));
            g.writeByteArray(12, valueInfo("y", 2, 2));
        });
        return message(m -> {
            m.writeInt64(1, 8);
            m.writeByteArray(7, graph);
            m.writeByteArray(8, message(o -> o.writeInt64(2, 13)));
        });
    }

    private static byte[] valueInfo(String name, int... dims) throws IOException {
        return message(v -> {
            v.writeString(1, name);
            v.writeByteArray(2, message(t -> t.writeByteArray(1, message(tt -> {
                tt.writeInt32(1, 1);
                tt.writeByteArray(2, message(s -> {
                    for (int d : dims) {
                        s.writeByteArray(1, message(dd -> dd.writeInt64(1, d)));
                    }
                }));
            }))));
        });
    }

    interface Body {
        void write(CodedOutputStream o) throws IOException;
    }

    static byte[] message(Body b) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream o = CodedOutputStream.newInstance(bytes);
        b.write(o);
        o.flush();
        return bytes.toByteArray();
    }

    static byte[] npySeed() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Npy.write(out, Tensor.of(new float[] {1, -2, 3.5f, 0, 7, -0.5f}, 2, 3));
        return out.toByteArray();
    }

    static byte[] safetensorsSeed(Path dir) throws IOException {
        Map<String, Tensor> t = new LinkedHashMap<>();
        t.put("w", Tensor.of(new float[] {1, 2, 3, 4}, 2, 2));
        t.put("b", Tensor.of(new long[] {7}, 1));
        Path p = dir.resolve("seed.safetensors");
        SafetensorsWriter.write(p, t);
        return Files.readAllBytes(p);
    }

    static byte[] graphSeed() {
        Graph g = new Graph("seed");
        var x = g.input("x", Shape.of(DType.F32, 2, 3));
        g.setOutputs(g.relu(g.add(x, g.constant(Tensor.of(new float[] {1, 2, 3}, 3)))));
        return GraphSerializer.toBytes(g);
    }

    static byte[] kvSpillSeed(Path dir) {
        Path p = dir.resolve("seed.kvspill");
        try (PagedKvCache c = new PagedKvCache(LoaderFuzzTargets.KV.withSpill(
                new KvCacheConfig.Spill(p, 0, KvCacheConfig.Spill.Mode.CREATE)))) {
            c.newSequence(1);
        }
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void seedsAreValidInputsAndMatchTheCommittedFiles(@TempDir Path dir) throws IOException {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        seeds.put("onnx", onnxSeed());
        seeds.put("npy", npySeed());
        seeds.put("safetensors", safetensorsSeed(dir));
        seeds.put("graph", graphSeed());
        seeds.put("kvSpill", kvSpillSeed(dir));
        // each seed is accepted by its reader, so fuzzing starts past the format checks
        assertEquals(2, OnnxModel.parse(seeds.get("onnx"), null).importGraph(OnnxBinding.none())
                .graph().outputs().get(0).shape().dim(1));
        assertEquals(6, Npy.read(new ByteArrayInputStream(seeds.get("npy")), "seed.npy").shape().elementCount());
        try (SafetensorsLoader l = SafetensorsLoader.open(dir.resolve("seed.safetensors"))) {
            assertEquals(2, l.names().size());
        }
        assertEquals("seed", GraphSerializer.fromBytes(seeds.get("graph")).name());
        try (PagedKvCache c = new PagedKvCache(LoaderFuzzTargets.KV.withSpill(
                new KvCacheConfig.Spill(dir.resolve("seed.kvspill"), 0, KvCacheConfig.Spill.Mode.OPEN)))) {
            assertTrue(c.config().fileBlocks() > 0);
        }
        for (Map.Entry<String, byte[]> e : seeds.entrySet()) {
            Path f = INPUTS.resolve(e.getKey()).resolve("seed");
            if (Boolean.getBoolean("rlx.fuzz.writeSeeds")) {
                Files.createDirectories(f.getParent());
                Files.write(f, e.getValue());
            }
            assertArrayEquals(e.getValue(), Files.readAllBytes(f), f + " differs from what SeedCorpusTest makes;"
                    + " rerun it with -Drlx.fuzz.writeSeeds=true");
        }
    }
}
