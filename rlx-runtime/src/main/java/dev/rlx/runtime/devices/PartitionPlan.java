package dev.rlx.runtime.devices;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Value;
import dev.rlx.runtime.Device;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A graph split into segments, each run whole on one device, in an order that respects every dependency
 * ({@link Partitioner}). {@link #build()} makes each segment's graph.
 */
public final class PartitionPlan {
    /** Top-level node ids run on {@code device}, in order. */
    public record Segment(Device device, List<Integer> nodes) {}

    /**
     * A segment as a graph of its own.
     *
     * @param device   where it runs
     * @param graph    its nodes, with the values it reads from earlier segments as inputs named {@link #cutName}
     * @param cutIn    for each cut input of {@code graph}, the original value it stands for
     * @param outputs  the original values its outputs stand for, in output order
     */
    public record Built(Device device, Graph graph, Map<String, Value> cutIn, List<Value> outputs) {}

    private final Graph graph;
    private final Device device;
    private final List<Segment> segments;

    PartitionPlan(Graph graph, Device device, List<Segment> segments) {
        this.graph = graph;
        this.device = device;
        this.segments = List.copyOf(segments);
    }

    public Graph graph() {
        return graph;
    }

    /** The device the plan is for (segments not on it run on the CPU). */
    public Device device() {
        return device;
    }

    public List<Segment> segments() {
        return segments;
    }

    /** The name of the segment input that carries {@code v} across a cut. */
    public static String cutName(Value v) {
        return "cut%" + v.nodeId() + "." + v.outputIndex();
    }

    private Map<Integer, Integer> segmentOf() {
        Map<Integer, Integer> m = new HashMap<>();
        for (int s = 0; s < segments.size(); s++) {
            for (int id : segments.get(s).nodes()) {
                m.put(id, s);
            }
        }
        return m;
    }

    /** Values each segment reads from other segments, and the graph inputs it reads. */
    private List<Set<Value>> crossing(boolean graphInputsToo) {
        Map<Integer, Integer> seg = segmentOf();
        List<Set<Value>> out = new ArrayList<>();
        for (int s = 0; s < segments.size(); s++) {
            Set<Value> in = new LinkedHashSet<>();
            for (int id : segments.get(s).nodes()) {
                for (Value v : graph.node(id).inputs()) {
                    OpKind k = v.node().kind();
                    if (k == OpKind.INPUT ? graphInputsToo : !OpKind.SOURCES.contains(k) && seg.get(v.nodeId()) != s) {
                        in.add(v);
                    }
                }
            }
            out.add(in);
        }
        return out;
    }

    /** Values segment {@code s} must hand out: read by a later segment, or a graph output. */
    private List<Set<Value>> exported() {
        List<Set<Value>> crossing = crossing(false);
        Map<Integer, Integer> seg = segmentOf();
        List<Set<Value>> out = new ArrayList<>();
        for (int s = 0; s < segments.size(); s++) {
            out.add(new LinkedHashSet<>());
        }
        for (Set<Value> c : crossing) {
            for (Value v : c) {
                out.get(seg.get(v.nodeId())).add(v);
            }
        }
        for (Value v : graph.outputs()) {
            out.get(seg.get(v.nodeId())).add(v);
        }
        return out;
    }

    /** Bytes copied between host and device per run: every input and output of every segment not on the CPU. */
    public long bytesMovedPerRun() {
        List<Set<Value>> in = crossing(true);
        List<Set<Value>> out = exported();
        long bytes = 0;
        for (int s = 0; s < segments.size(); s++) {
            if (segments.get(s).device() != Device.CPU) {
                for (Value v : in.get(s)) {
                    bytes += v.shape().byteSize();
                }
                for (Value v : out.get(s)) {
                    bytes += v.shape().byteSize();
                }
            }
        }
        return bytes;
    }

    public PartitionSummary summary() {
        int dev = 0;
        int cpu = 0;
        for (Segment s : segments) {
            if (s.device() == Device.CPU) {
                cpu += s.nodes().size();
            } else {
                dev += s.nodes().size();
            }
        }
        return new PartitionSummary(dev, cpu, segments.size(), bytesMovedPerRun());
    }

    /** One run's estimated time, in ns: each segment's round trip and kernels on its device, plus the copies. */
    public double estimateNs(BackendCostModel deviceModel, BackendCostModel cpuModel) {
        double total = 0;
        for (Segment s : segments) {
            BackendCostModel m = s.device() == Device.CPU ? cpuModel : deviceModel;
            total += m.roundtripOverheadNs();
            for (int id : s.nodes()) {
                total += CostEstimator.nodeNs(graph.node(id), m);
            }
        }
        return total + CostEstimator.transferNs(bytesMovedPerRun(), deviceModel);
    }

    /** Each segment as a graph of its own, in run order. */
    public List<Built> build() {
        List<Set<Value>> cuts = crossing(false);
        List<Set<Value>> exports = exported();
        List<Built> out = new ArrayList<>();
        for (int s = 0; s < segments.size(); s++) {
            Segment seg = segments.get(s);
            Graph sub = new Graph(graph.name() + "#" + s + "-" + seg.device().label());
            Map<Value, Value> map = new HashMap<>();
            Map<String, Value> cutIn = new LinkedHashMap<>();
            for (Value v : cuts.get(s)) {
                String name = cutName(v);
                map.put(v, sub.input(name, v.shape()));
                cutIn.put(name, v);
            }
            Set<Integer> copiedSources = new HashSet<>();
            for (int id : seg.nodes()) {
                Node n = graph.node(id);
                List<Value> operands = new ArrayList<>(n.inputs().size());
                for (Value v : n.inputs()) {
                    if (OpKind.SOURCES.contains(v.node().kind()) && copiedSources.add(v.nodeId())) {
                        List<Value> copied = sub.apply(v.node().op());
                        map.put(v, copied.get(0));
                    }
                    operands.add(map.get(v));
                }
                List<Value> results = sub.apply(n.op(), operands);
                for (int i = 0; i < results.size(); i++) {
                    map.put(n.outputs().get(i), results.get(i));
                }
            }
            List<Value> exported = new ArrayList<>(exports.get(s));
            sub.setOutputs(exported.stream().map(map::get).toList());
            out.add(new Built(seg.device(), sub, cutIn, exported));
        }
        return out;
    }
}
