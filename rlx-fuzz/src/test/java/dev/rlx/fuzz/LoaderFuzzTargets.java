package dev.rlx.fuzz;

import dev.rlx.ir.Graph;
import dev.rlx.ir.GraphSerializer;
import dev.rlx.ir.RlxException;
import dev.rlx.ir.limits.Limits;
import dev.rlx.llm.kv.KvCacheConfig;
import dev.rlx.llm.kv.KvStorage;
import dev.rlx.llm.kv.PagedKvCache;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.OnnxGraph;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.weights.Npy;
import dev.rlx.runtime.weights.SafetensorsLoader;
import dev.rlx.runtime.weights.WeightTensor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What each fuzz target does with one input: read it with the reader under test and, when it is accepted,
 * use what was read. A typed {@link RlxException} is the contract for bad input and is swallowed; anything
 * else (an index, null-pointer, arithmetic or allocation error, a hang) escapes and is a finding.
 */
final class LoaderFuzzTargets {
    /** Small enough that a fuzzed size is refused at once instead of being allocated. */
    static final Limits LIMITS = Limits.builder().tensorBytes(16L << 20).weightBytes(64L << 20)
            .arenaBytes(64L << 20).headerBytes(1L << 20).tensorCount(10_000).graphNodes(10_000).build();

    /** The KV geometry the spill seeds are written for: 1 layer, 1 head of 4, blocks of 4 tokens, 8 blocks. */
    static final KvCacheConfig KV = KvCacheConfig.of(1, 1, 4, 4, 8, KvStorage.F32);

    private static Session session;
    private static Path scratch;

    private LoaderFuzzTargets() {}

    private static synchronized Session session() {
        if (session == null) {
            session = new Session(Device.CPU);
        }
        return session;
    }

    private static synchronized Path scratch() throws IOException {
        if (scratch == null) {
            scratch = Files.createTempDirectory("rlx-fuzz");
            scratch.toFile().deleteOnExit();
        }
        return scratch;
    }

    private static Path file(String name, byte[] data) {
        try {
            Path p = scratch().resolve(name);
            Files.write(p, data);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void onnx(byte[] data) {
        try {
            OnnxGraph g = OnnxModel.parse(data, null).importGraph(OnnxBinding.none(), LIMITS);
            try (CompiledGraph c = g.compile(session())) {
                c.paramNames();
            }
        } catch (RlxException expected) {
            // typed: the contract
        }
    }

    static void safetensors(byte[] data) {
        Path p = file("fuzz.safetensors", data);
        try (SafetensorsLoader l = SafetensorsLoader.open(p, LIMITS)) {
            for (String n : l.names()) {
                WeightTensor t = l.tensor(n).orElseThrow();
                if (t.data().byteSize() != t.shape().byteSize()) {
                    throw new AssertionError(n + ": " + t.data().byteSize() + " bytes for " + t.shape());
                }
            }
        } catch (RlxException expected) {
            // typed: the contract
        }
    }

    static void npy(byte[] data) throws IOException {
        try {
            var t = Npy.read(new ByteArrayInputStream(data), "fuzz.npy", LIMITS);
            if (t.byteLength() != t.shape().byteSize()) {
                throw new AssertionError(t.byteLength() + " bytes for " + t.shape());
            }
        } catch (RlxException expected) {
            // typed: the contract
        }
    }

    static void graph(byte[] data) {
        try {
            Graph g = GraphSerializer.fromBytes(data, LIMITS);
            // whatever is accepted is a well-formed graph: it re-serializes to a graph that prints the same
            if (!GraphSerializer.fromBytes(GraphSerializer.toBytes(g), LIMITS).toString().equals(g.toString())) {
                throw new AssertionError("round trip changed the graph");
            }
        } catch (RlxException expected) {
            // typed: the contract
        }
    }

    static void kvSpill(byte[] data) {
        Path p = file("fuzz.kvspill", data);
        KvCacheConfig c = KV.withSpill(new KvCacheConfig.Spill(p, 0, KvCacheConfig.Spill.Mode.OPEN));
        try (PagedKvCache cache = new PagedKvCache(c)) {
            cache.newSequence(1);
        } catch (RlxException expected) {
            // typed: the contract
        }
    }
}
