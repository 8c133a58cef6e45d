package dev.rlx.cuda;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Value;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.BackendRegistry;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CommandStream;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.DeviceRuntime;
import dev.rlx.runtime.spi.Executable;
import dev.rlx.runtime.spi.HostRuntime;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.cases.OpCatalog;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Every kernel variant the CUDA backend would compile for the testkit's graphs, found without a GPU: a stand-in
 * backend with the CUDA backend's capabilities takes each graph through the real pipeline (decomposition, fusion,
 * planning), and lowers what it is given with {@link CudaLowering}, collecting the kernel sources.
 */
final class KernelVariants {
    private KernelVariants() {}

    /** The variants, and the lowering failures ("case: message"), of every testkit case the backend takes. */
    record Found(List<KernelSource> variants, List<String> failures, int cases, int gemms) {}

    static synchronized Found ofTestkit() {
        Set<KernelSource> variants = new LinkedHashSet<>();
        List<String> failures = new ArrayList<>();
        int[] gemms = {0};
        int cases = 0;
        BackendRegistry.global().register(Device.CUDA, () -> new Recorder(variants, gemms));
        try (Session s = new Session(Device.CUDA)) {
            for (OpFamily f : OpCatalog.families()) {
                for (OpCase c : f.cases()) {
                    Graph g = c.buildGraph();
                    if (!s.check(g).supported()) {
                        continue;
                    }
                    cases++;
                    try {
                        s.compile(g).close();
                    } catch (RuntimeException e) {
                        failures.add(c.name() + ": " + e);
                    }
                }
            }
        } finally {
            BackendRegistry.global().unregister(Device.CUDA);
        }
        return new Found(List.copyOf(variants), failures, cases, gemms[0]);
    }

    /** Lowers each compiled graph and keeps the sources; its executables never run. */
    private static final class Recorder implements Backend {
        private final Set<KernelSource> variants;
        private final int[] gemms;
        private final HostRuntime runtime = new HostRuntime(Device.CUDA, CudaMemory.ALIGNMENT);

        Recorder(Set<KernelSource> variants, int[] gemms) {
            this.variants = variants;
            this.gemms = gemms;
        }

        @Override
        public Device device() {
            return Device.CUDA;
        }

        @Override
        public String name() {
            return "cuda (kernel-variant recorder)";
        }

        @Override
        public Capabilities capabilities() {
            return CudaBackend.buildCapabilities();
        }

        @Override
        public DeviceRuntime runtime() {
            return runtime;
        }

        @Override
        public Executable compile(CompileRequest request) {
            MemoryPlan plan = request.plan();
            CudaLowering lowering = new CudaLowering(v -> 1L << 32, true);
            for (Node n : request.graph().nodes()) {
                if (n.outputs().size() == 1 && plan.slot(n.output()).view()) {
                    continue;
                }
                lowering.lower(n);
            }
            for (Step st : lowering.steps()) {
                if (st instanceof Step.Launch l) {
                    synchronized (variants) {
                        variants.add(l.kernel());
                    }
                } else {
                    gemms[0]++;
                }
            }
            int count = lowering.steps().size();
            return new Executable() {
                @Override
                public void run(CommandStream stream) {
                    throw new UnsupportedOperationException("the recorder runs nothing");
                }

                @Override
                public MemorySegment hostSlot(Value v) {
                    return null;
                }

                @Override
                public void write(Value v, MemorySegment src) {}

                @Override
                public void read(Value v, MemorySegment dst) {}

                @Override
                public int kernelCount() {
                    return count;
                }

                @Override
                public long deviceBytes() {
                    return 0;
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public void close() {}
    }
}
