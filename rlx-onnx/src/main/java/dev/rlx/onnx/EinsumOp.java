package dev.rlx.onnx;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Einsum: each operand is brought to one letter order (repeated letters become a diagonal, {@code ...} a run
 * of broadcast letters), the operands are multiplied with broadcasting, and the letters not in the output
 * are summed away. Exact; memory is the product of all letter sizes, which suits the small contractions
 * einsum is used for in models.
 */
final class EinsumOp {
    private EinsumOp() {}

    static void register(Map<String, Converter> t) {
        t.put("Einsum", EinsumOp::einsum);
    }

    private static void einsum(NodeCtx c) {
        Graph g = c.g();
        String eq = c.attrString("equation", "").replace(" ", "");
        List<Value> in = c.ins();
        String[] sides = eq.split("->", -1);
        String[] terms = sides[0].split(",", -1);
        if (eq.isEmpty()) {
            throw c.fail("the equation attribute is empty or missing");
        }
        if (terms.length != in.size() || sides.length > 2) {
            throw c.fail("equation '%s' does not fit %d operands", eq, in.size());
        }
        for (int i = 0; i < sides.length; i++) {
            for (String term : i == 0 ? terms : new String[] {sides[1]}) {
                checkTerm(c, eq, term);
            }
        }
        int ell = 0; // broadcast dims the ellipsis stands for
        for (int i = 0; i < terms.length; i++) {
            int letters = terms[i].length() - (terms[i].contains("...") ? 3 : 0);
            if (letters > in.get(i).rank() || (!terms[i].contains("...") && letters != in.get(i).rank())) {
                throw c.fail("term '%s' of equation '%s' does not fit operand %d of rank %d", terms[i], eq, i,
                        in.get(i).rank());
            }
            if (terms[i].contains("...")) {
                ell = Math.max(ell, in.get(i).rank() - letters);
            }
        }
        if (ell > 26) {
            throw c.fail("the ellipsis of equation '%s' stands for %d dims; at most 26 are supported", eq, ell);
        }
        String ellLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".substring(0, Math.min(26, ell));
        List<String> ops = new ArrayList<>();
        for (int i = 0; i < terms.length; i++) {
            int own = in.get(i).rank() - (terms[i].length() - (terms[i].contains("...") ? 3 : 0));
            ops.add(terms[i].replace("...", ellLetters.substring(ellLetters.length() - Math.max(0, own))));
        }
        String out;
        if (sides.length == 2) {
            out = sides[1].replace("...", ellLetters);
        } else { // implicit: broadcast letters, then letters used once, alphabetically
            StringBuilder sb = new StringBuilder(ellLetters);
            String all = String.join("", ops);
            all.chars().filter(Character::isLowerCase).distinct().sorted()
                    .filter(ch -> all.indexOf(ch) == all.lastIndexOf(ch)).forEach(ch -> sb.append((char) ch));
            out = sb.toString();
        }
        // The common order: output letters first, then the summed ones.
        StringBuilder order = new StringBuilder(out);
        for (String o : ops) {
            o.chars().filter(ch -> order.indexOf(String.valueOf((char) ch)) < 0).forEach(ch -> order.append((char) ch));
        }
        String all = order.toString();
        Value prod = null;
        for (int i = 0; i < ops.size(); i++) {
            Value v = aligned(c, in.get(i), ops.get(i), all);
            prod = prod == null ? v : g.mul(prod, v);
        }
        int[] summed = new int[all.length() - out.length()];
        for (int i = 0; i < summed.length; i++) {
            summed[i] = out.length() + i;
        }
        c.out(summed.length == 0 ? prod : g.reduceSum(prod, false, summed));
    }

    /** A term is letters with at most one {@code ...}. */
    private static void checkTerm(NodeCtx c, String eq, String term) {
        String rest = term.replaceFirst("\\.\\.\\.", "");
        for (int k = 0; k < rest.length(); k++) {
            char ch = rest.charAt(k);
            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) {
                throw c.fail("equation '%s': term '%s' holds '%c'; terms are letters and at most one '...'", eq, term, ch);
            }
        }
    }

    /** {@code x} (labelled by {@code letters}) as a tensor over {@code all}, size 1 where it lacks a letter. */
    private static Value aligned(NodeCtx c, Value x, String letters, String all) {
        Graph g = c.g();
        if (letters.length() != x.rank()) {
            throw c.fail("operand %s has rank %d but its term '%s' has %d letters", x.shape(), x.rank(), letters,
                    letters.length());
        }
        // Repeated letters: keep the diagonal.
        for (int p = 0; p < letters.length(); p++) {
            int q = letters.indexOf(letters.charAt(p), p + 1);
            if (q < 0) {
                continue;
            }
            int n = x.dim(p);
            if (x.dim(q) != n) {
                throw c.fail("letter '%c' has sizes %d and %d in one operand", letters.charAt(p), n, x.dim(q));
            }
            int r = x.rank();
            int[] perm = new int[r];
            int k = 0;
            for (int i = 0; i < r; i++) {
                if (i != p && i != q) {
                    perm[k++] = i;
                }
            }
            perm[r - 2] = p;
            perm[r - 1] = q;
            Value t = Lower.transpose(g, x, perm);
            int[] d = Arrays.copyOf(t.shape().dims(), r - 1);
            d[r - 2] = n * n;
            Value flat = Lower.reshape(g, t, d);
            x = g.slice(flat, r - 2, 0, n, n + 1);
            StringBuilder nl = new StringBuilder();
            for (int i = 0; i < r - 2; i++) {
                nl.append(letters.charAt(perm[i]));
            }
            letters = nl.append(letters.charAt(p)).toString();
            p = -1; // rescan
        }
        int[] perm = new int[x.rank()];
        int k = 0;
        int[] dims = new int[all.length()];
        for (int i = 0; i < all.length(); i++) {
            int at = letters.indexOf(all.charAt(i));
            dims[i] = at < 0 ? 1 : x.dim(at);
            if (at >= 0) {
                perm[k++] = at;
            }
        }
        return Lower.reshape(g, Lower.transpose(g, x, perm), dims);
    }
}
