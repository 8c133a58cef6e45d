package dev.rlx.runtime.devices;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Value;
import dev.rlx.runtime.BackendRegistry;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.SupportReport;
import dev.rlx.runtime.UnsupportedOpException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits a graph between a device and the CPU, ONNX Runtime style: every top-level node the device's backend
 * cannot run (or that holds a body with such a node) goes to the CPU, the rest to the device, and the nodes are
 * scheduled so that each device keeps running while it has ready work: the result is a few maximal segments in
 * an order that respects every dependency. Inputs, params and constants are copied into each segment that reads
 * them; values crossing a cut become outputs of one segment and inputs of the next.
 */
public final class Partitioner {
    private static final Pattern BODY_PATH = Pattern.compile("^%(\\d+)\\.");

    private Partitioner() {}

    /** Whether the nodes {@code support} lists can all be given to the CPU (which must be available). */
    public static boolean splittable(SupportReport support) {
        if (!BackendRegistry.global().isAvailable(Device.CPU)) {
            return false;
        }
        for (UnsupportedOpException.Offender o : support.unsupported()) {
            if (topLevelNode(o) < 0) {
                return false;
            }
        }
        return true;
    }

    /** The top-level node holding offender {@code o}: itself, or the control-flow node whose body it is in. */
    static int topLevelNode(UnsupportedOpException.Offender o) {
        if (o.path().isEmpty()) {
            return o.nodeId();
        }
        Matcher m = BODY_PATH.matcher(o.path());
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** The split of {@code g} that runs on {@code device} what {@code support} does not list, the rest on the CPU. */
    public static PartitionPlan plan(Graph g, SupportReport support, Device device) {
        BitSet onCpu = new BitSet();
        for (UnsupportedOpException.Offender o : support.unsupported()) {
            int id = topLevelNode(o);
            if (id < 0 || id >= g.size()) {
                throw new DeviceSelectionException("cannot split graph @" + g.name() + " at " + o);
            }
            onCpu.set(id);
        }
        // A graph output that is an input, param or constant passes through no segment: keep such graphs whole.
        for (Value v : g.outputs()) {
            if (OpKind.SOURCES.contains(v.node().kind())) {
                throw new DeviceSelectionException("cannot split graph @" + g.name() + ": output " + v
                        + " is a source value");
            }
        }
        return new PartitionPlan(g, device, schedule(g, onCpu, device));
    }

    /**
     * Greedy list scheduling: among the ready nodes, take the lowest-numbered one on the current device; when none
     * is ready, switch to the device of the lowest-numbered ready node and start a new segment.
     */
    private static List<PartitionPlan.Segment> schedule(Graph g, BitSet onCpu, Device device) {
        int n = g.size();
        int[] pending = new int[n];
        List<List<Integer>> users = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            users.add(new ArrayList<>());
        }
        for (Node node : g.nodes()) {
            if (OpKind.SOURCES.contains(node.kind())) {
                continue;
            }
            Set<Integer> deps = new HashSet<>();
            for (Value in : node.inputs()) {
                if (!OpKind.SOURCES.contains(in.node().kind())) {
                    deps.add(in.nodeId());
                }
            }
            pending[node.id()] = deps.size();
            for (int d : deps) {
                users.get(d).add(node.id());
            }
        }
        PriorityQueue<Integer> readyDevice = new PriorityQueue<>();
        PriorityQueue<Integer> readyCpu = new PriorityQueue<>();
        for (Node node : g.nodes()) {
            if (!OpKind.SOURCES.contains(node.kind()) && pending[node.id()] == 0) {
                (onCpu.get(node.id()) ? readyCpu : readyDevice).add(node.id());
            }
        }
        List<PartitionPlan.Segment> segments = new ArrayList<>();
        Device current = null;
        List<Integer> nodes = new ArrayList<>();
        while (!readyDevice.isEmpty() || !readyCpu.isEmpty()) {
            PriorityQueue<Integer> q = current == Device.CPU ? readyCpu : readyDevice;
            if (current == null || q.isEmpty()) {
                if (current != null) {
                    segments.add(new PartitionPlan.Segment(current, List.copyOf(nodes)));
                    nodes.clear();
                }
                boolean cpuFirst = readyDevice.isEmpty()
                        || (!readyCpu.isEmpty() && readyCpu.peek() < readyDevice.peek());
                current = cpuFirst ? Device.CPU : device;
                q = cpuFirst ? readyCpu : readyDevice;
            }
            int id = q.poll();
            nodes.add(id);
            for (int u : users.get(id)) {
                if (--pending[u] == 0) {
                    (onCpu.get(u) ? readyCpu : readyDevice).add(u);
                }
            }
        }
        if (!nodes.isEmpty()) {
            segments.add(new PartitionPlan.Segment(current, List.copyOf(nodes)));
        }
        return segments;
    }
}
