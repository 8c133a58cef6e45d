package dev.rlx.onnx;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.RlxException;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.limits.Limits;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Sweeps the importer's error paths: for every op the importer knows, models with missing, extra, empty,
 * scalar, zero-sized and huge inputs, and attributes that are out of range, of the wrong type, or declared
 * with no value (a TENSOR or GRAPH attribute without its field). Only typed RLX errors may escape load, import
 * and compile, and none may be the importer's last-resort wrap of a {@code java.lang} exception
 * ("cannot import (java.lang...").
 */
class ImporterErrorSweepTest {
    static final int FLOAT = 1;
    static final int INT64 = 7;

    /** Small enough that a huge shape is refused at once instead of being allocated. */
    static final Limits LIMITS = Limits.builder().tensorBytes(64L << 20).arenaBytes(256L << 20)
            .graphNodes(20_000).build();

    /** The inputs a node may be given: names of graph inputs and initializers defined by {@link #model}. */
    static final List<List<String>> INPUT_SETS = List.of(
            List.of(), List.of("x"), List.of("x", "x"), List.of("x", "x", "x"), List.of("x", "i"), List.of("x", "i", "i"),
            List.of("x", "i", "i", "i", "i"), List.of("s"), List.of("z"), List.of("z", "i"), List.of("x", "h"),
            List.of("x", "neg"), List.of("b"), List.of("x", ""), List.of("", "x"), List.of("x", "x", "x", "x", "x", "x"),
            List.of("x", "w", "wb"), List.of("x", "empty"), List.of("x", "z"), List.of("v", "v"), List.of("i"),
            List.of("h"), List.of("x", "s"), List.of("bigk"), List.of("x", "bigk"));

    static byte[] noValue(String name, int type) { // declared type, value field missing
        return OnnxModelBuilder.message(o -> {
            o.writeString(1, name);
            o.writeInt32(20, type);
        });
    }

    static byte[] emptyGraph(String name) {
        return OnnxModelBuilder.attrGraph(name, new OnnxModelBuilder.Graph("empty"));
    }

    /** Attribute sets to try: none, then each bad one alone (chosen per op with a fixed seed). */
    static List<byte[][]> attrSets() {
        List<byte[][]> out = new ArrayList<>();
        out.add(new byte[0][]);
        String[] intNames = {"axis", "k", "group", "blocksize", "to", "keepdims", "num_outputs", "hidden_size",
            "batch_dims", "num_scan_inputs", "largest", "dtype", "output_datatype", "value_int", "ceil_mode",
            "size", "allowzero", "select_last_index", "batch_axis", "time_axis", "exclusive", "reverse", "upper"};
        String[] intsNames = {"axes", "perm", "kernel_shape", "strides", "pads", "dilations", "output_padding",
            "output_shape", "starts", "ends", "split", "shape", "value_ints", "scan_input_axes", "scan_output_axes",
            "scan_input_directions", "scan_output_directions"};
        String[] stringNames = {"mode", "auto_pad", "equation", "direction", "reduction", "coordinate_transformation_mode",
            "nearest_mode", "activations"};
        for (String n : intNames) {
            out.add(new byte[][] {OnnxModelBuilder.attrInt(n, 0)});
            out.add(new byte[][] {OnnxModelBuilder.attrInt(n, -1_000_000_000_000L)});
            out.add(new byte[][] {OnnxModelBuilder.attrInt(n, 1L << 40)});
            out.add(new byte[][] {OnnxModelBuilder.attrFloat(n, 1.5f)});
        }
        for (String n : intsNames) {
            out.add(new byte[][] {OnnxModelBuilder.attrInts(n)});
            out.add(new byte[][] {OnnxModelBuilder.attrInts(n, 0, 9)});
            out.add(new byte[][] {OnnxModelBuilder.attrInts(n, -5, -5, -5, -5)});
            out.add(new byte[][] {OnnxModelBuilder.attrInts(n, 40_000, 1)});
            out.add(new byte[][] {OnnxModelBuilder.attrInts(n, 65_536, 65_536)});
            out.add(new byte[][] {OnnxModelBuilder.attrInts(n, 1L << 40, 0, 0, 0)});
            out.add(new byte[][] {OnnxModelBuilder.attrInt(n, 3)});
        }
        for (String n : stringNames) {
            out.add(new byte[][] {OnnxModelBuilder.attrString(n, "")});
            out.add(new byte[][] {OnnxModelBuilder.attrString(n, "bogus,->")});
            out.add(new byte[][] {OnnxModelBuilder.attrInt(n, 1)});
        }
        out.add(new byte[][] {OnnxModelBuilder.attrString("equation", "")});
        out.add(new byte[][] {OnnxModelBuilder.attrString("equation", "ij,jk")});
        out.add(new byte[][] {OnnxModelBuilder.attrString("equation", "...,...->...")});
        out.add(new byte[][] {noValue("value", 4)});
        out.add(new byte[][] {OnnxModelBuilder.attrTensor("value", Tensor.of(new float[] {1, 2}, 2))});
        out.add(new byte[][] {OnnxModelBuilder.attrTensor("value", Tensor.of(new float[0], 0))});
        for (String g : List.of("then_branch", "else_branch", "body")) {
            out.add(new byte[][] {noValue(g, 5)});
            out.add(new byte[][] {emptyGraph(g)});
            out.add(new byte[][] {OnnxModelBuilder.attrInt(g, 1)});
        }
        out.add(new byte[][] {emptyGraph("then_branch"), noValue("else_branch", 5)});
        out.add(new byte[][] {emptyGraph("then_branch")});
        out.add(new byte[][] {noValue("kernel_shape", 7), noValue("pads", 7)});
        out.add(new byte[][] {OnnxModelBuilder.attrInts("kernel_shape", 40_000, 1), OnnxModelBuilder.attrInts("strides", 1, 1)});
        return out;
    }

    /** One node of {@code op} over {@code inputs} with {@code attrs}, inside a graph that defines every input name. */
    static byte[] model(String op, List<String> inputs, byte[][] attrs, int opset) {
        OnnxModelBuilder b = new OnnxModelBuilder(opset);
        b.graph().input("x", FLOAT, 2, 3, 4, 5).input("s", FLOAT).input("z", FLOAT, 0, 3).input("v", FLOAT, 3)
                .input("b", 9, 2, 3)
                .output("y", FLOAT)
                .initializer("i", Tensor.of(new long[] {1, 2}, 2))
                .initializer("h", Tensor.of(new long[] {1L << 20, 1L << 20, 1L << 20}, 3))
                .initializer("neg", Tensor.of(new long[] {-7, -1}, 2))
                .initializer("empty", Tensor.of(new long[0], 0))
                .initializer("bigk", Tensor.of(new long[] {Long.MAX_VALUE}, 1))
                .initializer("w", Tensor.of(new float[3 * 3 * 2 * 2], 3, 3, 2, 2))
                .initializer("wb", Tensor.of(new float[] {1, 2, 3}, 3))
                .node(op, inputs, List.of("y", "y1", "y2"), attrs);
        return b.build();
    }

    /** The first problem with {@code bytes}, or null when only typed errors (or none) came out. */
    static String problem(byte[] bytes, Session s) {
        try {
            OnnxGraph g = OnnxModel.parse(bytes, null).importGraph(OnnxBinding.none(), LIMITS);
            try (CompiledGraph c = g.compile(s)) {
                c.paramNames();
            }
            return null;
        } catch (RlxException e) {
            String m = String.valueOf(e.getMessage());
            if (m.contains("cannot import (") || m.contains("cannot parse (") || m.contains("java.lang.")) {
                return "wrapped: " + m + where(e.getCause());
            }
            return null;
        } catch (Throwable t) {
            return "untyped: " + t + where(t);
        }
    }

    private static String where(Throwable t) {
        if (t == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        StackTraceElement[] st = t.getStackTrace();
        for (int i = 0; i < Math.min(4, st.length); i++) {
            sb.append(" @ ").append(st[i].getFileName()).append(':').append(st[i].getLineNumber());
        }
        return sb.toString();
    }

    @Test
    void everyOp_badInputsAndAttributes_onlyTypedErrors() {
        List<byte[][]> attrs = attrSets();
        TreeMap<String, String> failures = new TreeMap<>();
        int models = 0;
        try (Session s = new Session(Device.CPU)) {
            for (String op : OpTable.supported()) {
                Random r = new Random(op.hashCode());
                for (List<String> in : INPUT_SETS) {
                    for (int k = 0; k < 2; k++) { // no attributes at opset 17, then a random bad one at a random opset
                        byte[][] a = k == 0 ? new byte[0][] : attrs.get(r.nextInt(attrs.size()));
                        int opset = k == 1 ? 7 + r.nextInt(11) : 17;
                        models++;
                        String p = problem(model(op, in, a, opset), s);
                        if (p != null) {
                            failures.putIfAbsent(op, in + " opset " + opset + ": " + p);
                        }
                    }
                }
                // every attribute set once with the op's most usual inputs
                for (byte[][] a : attrs) {
                    models++;
                    String p = problem(model(op, r.nextBoolean() ? List.of("x", "w", "wb") : List.of("x"), a, 17), s);
                    if (p != null) {
                        failures.putIfAbsent(op + " (attrs)", p);
                    }
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        failures.forEach((k, v) -> sb.append(k).append(": ").append(v.length() > 700 ? v.substring(0, 700) : v).append('\n'));
        assertTrue(failures.isEmpty(), failures.size() + " ops of " + OpTable.supported().size() + " (" + models
                + " models) let untyped errors out:\n" + sb);
    }
}
