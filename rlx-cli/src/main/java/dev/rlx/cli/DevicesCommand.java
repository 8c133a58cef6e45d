package dev.rlx.cli;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.RlxException;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Rlx;
import dev.rlx.runtime.devices.BackendsManifest;
import dev.rlx.runtime.devices.CostModels;
import dev.rlx.runtime.devices.DevicePolicy;
import dev.rlx.runtime.devices.DeviceReport;
import dev.rlx.runtime.devices.DeviceSelector;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code rlx devices [MODEL]}: what each device can do for a model (or a small probe graph), and which would run it. */
@Command(name = "devices", mixinStandardHelpOptions = true,
        description = {"List every device: whether a backend is registered and available, whether it runs MODEL (whole, "
                + "or split with the CPU, and how many bytes a run moves), why not, the estimated time of one run, "
                + "and the recommended device.",
                "Without MODEL, a 64x64 matmul stands in. Symbolic input dimensions of MODEL are set to --dim-size.",
                "The device policy comes from RLX_DEVICES, RLX_DENY_DEVICES, RLX_PREFER_DEVICES, RLX_DEVICE and "
                        + "RLX_FORCE_DEVICE. Estimates use each backend's calibration, measured once per host (~100 ms) "
                        + "and kept in the user cache folder."})
final class DevicesCommand implements Callable<Integer> {
    @Parameters(arity = "0..1", paramLabel = "MODEL", description = "An .onnx model.")
    Path model;

    @Option(names = "--dim-size", defaultValue = "1", paramLabel = "N",
            description = "Size of every symbolic input dimension of MODEL (default: ${DEFAULT-VALUE}).")
    int dimSize;

    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @Spec
    CommandSpec spec;

    private final CostModels costs;

    DevicesCommand() {
        this(CostModels.calibrated());
    }

    /** A command estimating with {@code costs} (tests: fixed models, no calibration files). */
    DevicesCommand(CostModels costs) {
        this.costs = costs;
    }

    @Override
    public Integer call() {
        OptionChecks.between(spec, "--dim-size", dimSize, 1, 1 << 20);
        PrintWriter out = spec.commandLine().getOut();
        Graph g = graph();
        DevicePolicy policy = DevicePolicy.fromEnv();
        BackendsManifest manifest = BackendsManifest.current();
        DeviceReport r;
        try (DeviceSelector s = new DeviceSelector(policy, costs, Rlx::setting,
                CompileOptions.defaults(), true)) {
            r = s.report(g);
        }
        if (json) {
            out.println("{\"report\": " + r.json() + ",\n\"backends\": " + manifest.json() + "}");
        } else {
            out.print(r.table());
            StringBuilder mods = new StringBuilder("backend modules:");
            for (BackendsManifest.Module m : manifest.modules()) {
                mods.append(' ').append(m.module()).append(' ').append(m.version()).append(' ').append(m.backends());
            }
            out.println(manifest.modules().isEmpty() ? "backend modules: none listed" : mods);
            manifest.problems().forEach(p -> out.println("note: " + p));
        }
        out.flush();
        return 0;
    }

    private Graph graph() {
        if (model == null) {
            Graph g = new Graph("probe-matmul-64");
            Value a = g.input("a", Shape.of(DType.F32, 64, 64));
            Value b = g.param("b", Shape.of(DType.F32, 64, 64));
            g.setOutputs(g.matmul(a, b));
            return g;
        }
        InputFileException.requireFile(model, "MODEL");
        try {
            return ModelGraphs.withSymbolicDims(OnnxModel.load(model), dimSize);
        } catch (RlxException e) {
            throw InputFileException.reading(model, "MODEL", e);
        }
    }
}
