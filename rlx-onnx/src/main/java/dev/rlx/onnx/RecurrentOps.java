package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * RNN, GRU and LSTM, unrolled over the (static) sequence length: the input projection of every step is one
 * matmul, then each step is a small matmul with the recurrence weights and the gate formulas of the ONNX
 * specification. {@code sequence_lens} masks steps past a sequence's end (forward direction).
 */
final class RecurrentOps {
    private RecurrentOps() {}

    /** Longest sequence unrolled; longer ones are refused rather than made into a huge graph. */
    static final int MAX_STEPS = 4096;

    private enum Kind { RNN, GRU, LSTM }

    static void register(Map<String, Converter> t) {
        t.put("RNN", c -> recurrent(c, Kind.RNN));
        t.put("GRU", c -> recurrent(c, Kind.GRU));
        t.put("LSTM", c -> recurrent(c, Kind.LSTM));
    }

    /** One activation function with its optional alpha and beta. */
    private record Act(String name, float alpha, float beta) {
        Value apply(Graph g, Value x) {
            DType t = x.dtype();
            return switch (name) {
                case "Sigmoid" -> g.sigmoid(x);
                case "Tanh" -> g.tanh(x);
                case "Relu" -> g.relu(x);
                case "Affine" -> g.add(g.mul(x, Lower.scalar(g, t, alpha)), Lower.scalar(g, t, beta));
                case "LeakyRelu" -> g.where(g.lt(x, Lower.scalar(g, t, 0)), g.mul(x, Lower.scalar(g, t, alpha)), x);
                case "ScaledTanh" -> g.mul(Lower.scalar(g, t, alpha), g.tanh(g.mul(x, Lower.scalar(g, t, beta))));
                case "HardSigmoid" -> g.max(Lower.scalar(g, t, 0), g.min(Lower.scalar(g, t, 1),
                        g.add(g.mul(x, Lower.scalar(g, t, alpha)), Lower.scalar(g, t, beta))));
                default -> throw new IllegalStateException(name);
            };
        }
    }

    private static void recurrent(NodeCtx c, Kind kind) {
        Graph g = c.g();
        int gates = switch (kind) {
            case RNN -> 1;
            case GRU -> 3;
            case LSTM -> 4;
        };
        String direction = c.attrString("direction", "forward");
        int dirs = direction.equals("bidirectional") ? 2 : 1;
        if (!direction.equals("forward") && !direction.equals("reverse") && dirs == 1) {
            throw c.fail("direction must be forward, reverse or bidirectional but is '%s'", direction);
        }
        boolean batchFirst = c.attrInt("layout", 0) != 0;
        Value x = c.in(0);
        if (x.rank() != 3) {
            throw c.fail("X %s must be 3-D", x.shape());
        }
        if (batchFirst) {
            x = g.transpose(x, 1, 0, 2);
        }
        int seq = x.dim(0);
        int batch = x.dim(1);
        int hidden = (int) c.attrInt("hidden_size", c.in(2).dim(2));
        if (seq > MAX_STEPS) {
            throw c.unsupported(kind + "(long sequence)", "%d steps is more than the %d unrolled", seq, MAX_STEPS);
        }
        Value w = c.in(1);
        Value r = c.in(2);
        if (w.rank() != 3 || w.dim(0) != dirs || w.dim(1) != gates * hidden || r.rank() != 3
                || r.dim(1) != gates * hidden || r.dim(2) != hidden) {
            throw c.fail("W %s and R %s must be [%d, %d, input] and [%d, %d, %d]", w.shape(), r.shape(), dirs,
                    gates * hidden, dirs, gates * hidden, hidden);
        }
        List<Act> acts = activations(c, kind, dirs);
        float clip = c.attrFloat("clip", 0f);
        Value lens = c.has(4) ? c.in(4) : null;
        if (lens != null && direction.equals("reverse") || lens != null && dirs == 2) {
            throw c.unsupported(kind + "(sequence_lens, reverse)", "sequence_lens with a reverse direction is not supported");
        }
        boolean linearBeforeReset = c.attrInt("linear_before_reset", 0) != 0;
        if (kind == Kind.LSTM && c.attrInt("input_forget", 0) != 0) {
            throw c.unsupported("LSTM(input_forget)", "input_forget is not supported");
        }
        List<Value> ys = new ArrayList<>();
        List<Value> hs = new ArrayList<>();
        List<Value> cs = new ArrayList<>();
        for (int d = 0; d < dirs; d++) {
            boolean reverse = direction.equals("reverse") || d == 1;
            Value wd = Lower.reshape(g, g.narrow(w, 0, d, 1), gates * hidden, w.dim(2));
            Value rd = Lower.reshape(g, g.narrow(r, 0, d, 1), gates * hidden, hidden);
            Value wb = null;
            Value rb = null;
            if (c.has(3)) {
                Value b = Lower.reshape(g, g.narrow(c.in(3), 0, d, 1), 2 * gates * hidden);
                wb = g.narrow(b, 0, 0, gates * hidden);
                rb = g.narrow(b, 0, gates * hidden, gates * hidden);
            }
            // Input projections of all steps at once: [seq, batch, gates * hidden].
            Value xw = g.matmul(x, g.transpose(wd, 1, 0));
            if (wb != null) {
                xw = g.add(xw, wb);
            }
            Value rt = g.transpose(rd, 1, 0);
            Value h = initial(c, 5, d, batch, hidden, x.dtype());
            Value cell = kind == Kind.LSTM ? initial(c, 6, d, batch, hidden, x.dtype()) : null;
            Value[] peep = kind == Kind.LSTM && c.has(7) ? peepholes(g, c.in(7), d, hidden) : null;
            Value[] y = new Value[seq];
            for (int s = 0; s < seq; s++) {
                int t = reverse ? seq - 1 - s : s;
                Value xt = Lower.reshape(g, g.narrow(xw, 0, t, 1), batch, gates * hidden);
                Value hNew;
                Value cNew = null;
                List<Act> a = acts.subList(d * acts.size() / dirs, (d + 1) * acts.size() / dirs);
                switch (kind) {
                    case RNN -> hNew = a.get(0).apply(g, clip(g, g.add(xt, recur(g, h, rt, rb)), clip));
                    case GRU -> hNew = gru(g, xt, h, rd, rb, hidden, a, clip, linearBeforeReset);
                    default -> {
                        Value[] hc = lstm(g, xt, h, cell, rt, rb, peep, hidden, a, clip);
                        hNew = hc[0];
                        cNew = hc[1];
                    }
                }
                if (lens != null) {
                    Value live = Lower.reshape(g, g.lt(Lower.scalar(g, lens.dtype(), t), lens), batch, 1);
                    y[t] = g.where(live, hNew, Lower.scalar(g, hNew.dtype(), 0));
                    hNew = g.where(live, hNew, h);
                    if (cNew != null) {
                        cNew = g.where(live, cNew, cell);
                    }
                } else {
                    y[t] = hNew;
                }
                h = hNew;
                cell = cNew;
            }
            List<Value> steps = new ArrayList<>();
            for (Value v : y) {
                steps.add(Lower.reshape(g, v, 1, 1, batch, hidden));
            }
            ys.add(steps.size() == 1 ? steps.get(0) : g.concat(0, steps.toArray(Value[]::new)));
            hs.add(Lower.reshape(g, h, 1, batch, hidden));
            if (cell != null) {
                cs.add(Lower.reshape(g, cell, 1, batch, hidden));
            }
        }
        Value yAll = ys.size() == 1 ? ys.get(0) : g.concat(1, ys.toArray(Value[]::new));
        Value hAll = hs.size() == 1 ? hs.get(0) : g.concat(0, hs.toArray(Value[]::new));
        Value cAll = cs.isEmpty() ? null : cs.size() == 1 ? cs.get(0) : g.concat(0, cs.toArray(Value[]::new));
        if (batchFirst) {
            yAll = g.transpose(yAll, 2, 0, 1, 3);
            hAll = g.transpose(hAll, 1, 0, 2);
            cAll = cAll == null ? null : g.transpose(cAll, 1, 0, 2);
        }
        c.out(yAll, hAll, cAll);
    }

    private static Value initial(NodeCtx c, int input, int d, int batch, int hidden, DType t) {
        Graph g = c.g();
        if (!c.has(input)) {
            return g.expand(Lower.scalar(g, t, 0), batch, hidden);
        }
        return Lower.reshape(g, g.narrow(c.in(input), 0, d, 1), batch, hidden);
    }

    private static Value[] peepholes(Graph g, Value p, int d, int hidden) {
        Value pd = Lower.reshape(g, g.narrow(p, 0, d, 1), 3 * hidden);
        return new Value[] {g.narrow(pd, 0, 0, hidden), g.narrow(pd, 0, hidden, hidden), g.narrow(pd, 0, 2 * hidden, hidden)};
    }

    /** {@code h @ R^T + Rb}. */
    private static Value recur(Graph g, Value h, Value rt, Value rb) {
        Value v = g.matmul(h, rt);
        return rb == null ? v : g.add(v, rb);
    }

    private static Value clip(Graph g, Value x, float clip) {
        if (clip <= 0) {
            return x;
        }
        return g.min(g.max(x, Lower.scalar(g, x.dtype(), -clip)), Lower.scalar(g, x.dtype(), clip));
    }

    private static Value gate(Graph g, Value v, int i, int hidden) {
        return g.narrow(v, 1, i * hidden, hidden);
    }

    private static Value gru(Graph g, Value xt, Value h, Value rd, Value rb, int hidden, List<Act> a, float clip,
                             boolean linearBeforeReset) {
        Value rzr = g.transpose(g.narrow(rd, 0, 0, 2 * hidden), 1, 0);
        Value rh = g.transpose(g.narrow(rd, 0, 2 * hidden, hidden), 1, 0);
        Value rbzr = rb == null ? null : g.narrow(rb, 0, 0, 2 * hidden);
        Value rbh = rb == null ? null : g.narrow(rb, 0, 2 * hidden, hidden);
        Value zr = g.add(g.narrow(xt, 1, 0, 2 * hidden), recur(g, h, rzr, rbzr));
        Value z = a.get(0).apply(g, clip(g, gate(g, zr, 0, hidden), clip));
        Value r = a.get(0).apply(g, clip(g, gate(g, zr, 1, hidden), clip));
        Value xh = g.narrow(xt, 1, 2 * hidden, hidden);
        Value pre = linearBeforeReset ? g.add(xh, g.mul(r, recur(g, h, rh, rbh)))
                : g.add(xh, recur(g, g.mul(r, h), rh, rbh));
        Value hh = a.get(1).apply(g, clip(g, pre, clip));
        Value one = Lower.scalar(g, h.dtype(), 1);
        return g.add(g.mul(g.sub(one, z), hh), g.mul(z, h));
    }

    private static Value[] lstm(Graph g, Value xt, Value h, Value cell, Value rt, Value rb, Value[] peep, int hidden,
                                List<Act> a, float clip) {
        Value all = g.add(xt, recur(g, h, rt, rb));
        Value i = gate(g, all, 0, hidden);
        Value o = gate(g, all, 1, hidden);
        Value f = gate(g, all, 2, hidden);
        Value cc = gate(g, all, 3, hidden);
        if (peep != null) {
            i = g.add(i, g.mul(peep[0], cell));
            f = g.add(f, g.mul(peep[2], cell));
        }
        i = a.get(0).apply(g, clip(g, i, clip));
        f = a.get(0).apply(g, clip(g, f, clip));
        cc = a.get(1).apply(g, clip(g, cc, clip));
        Value cNew = g.add(g.mul(f, cell), g.mul(i, cc));
        if (peep != null) {
            o = g.add(o, g.mul(peep[1], cNew));
        }
        o = a.get(0).apply(g, clip(g, o, clip));
        return new Value[] {g.mul(o, a.get(2).apply(g, cNew)), cNew};
    }

    /** The activations per direction: f (and g, h), from the attribute or the defaults. */
    private static List<Act> activations(NodeCtx c, Kind kind, int dirs) {
        List<String> defaults = switch (kind) {
            case RNN -> List.of("Tanh");
            case GRU -> List.of("Sigmoid", "Tanh");
            case LSTM -> List.of("Sigmoid", "Tanh", "Tanh");
        };
        List<String> names = c.attrStrings("activations");
        float[] alpha = c.attrFloats("activation_alpha", new float[0]);
        float[] beta = c.attrFloats("activation_beta", new float[0]);
        List<Act> out = new ArrayList<>();
        int n = defaults.size() * dirs;
        if (names != null && names.size() != n) {
            throw c.fail("activations %s must list %d functions", names, n);
        }
        int ai = 0; // alpha and beta are consumed in order by the functions that take them
        int bi = 0;
        for (int i = 0; i < n; i++) {
            String name = names == null ? defaults.get(i % defaults.size()) : names.get(i);
            name = switch (name.toLowerCase(java.util.Locale.ROOT)) {
                case "sigmoid" -> "Sigmoid";
                case "tanh" -> "Tanh";
                case "relu" -> "Relu";
                case "affine" -> "Affine";
                case "leakyrelu" -> "LeakyRelu";
                case "scaledtanh" -> "ScaledTanh";
                case "hardsigmoid" -> "HardSigmoid";
                default -> throw c.unsupported(kind + "(activation=" + name + ")", "activation '%s' is not supported", name);
            };
            float defA = name.equals("LeakyRelu") ? 0.01f : name.equals("HardSigmoid") ? 0.2f : 1f;
            float defB = name.equals("HardSigmoid") ? 0.5f : 0f;
            boolean takesAlpha = !name.equals("Sigmoid") && !name.equals("Tanh") && !name.equals("Relu");
            boolean takesBeta = takesAlpha && !name.equals("LeakyRelu");
            float av = takesAlpha && ai < alpha.length ? alpha[ai++] : defA;
            float bv = takesBeta && bi < beta.length ? beta[bi++] : defB;
            out.add(new Act(name, av, bv));
        }
        return out;
    }
}
