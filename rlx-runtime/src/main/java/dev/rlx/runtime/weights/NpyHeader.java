package dev.rlx.runtime.weights;

import dev.rlx.ir.DType;
import dev.rlx.ir.RlxException;
import dev.rlx.ir.Shape;
import dev.rlx.ir.limits.Limits;
import java.util.Arrays;

/**
 * The header dict of an {@code .npy} file ({@code {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }}),
 * read in one left-to-right pass: each character is looked at once, the dims are appended to an array that
 * doubles, and the rank is checked against {@link Limits.Kind#RANK} as each dim arrives, so a hostile header
 * costs time and memory linear in its length (a regular expression over it scanned quadratically).
 */
record NpyHeader(DType dtype, Shape shape) {

    static NpyHeader parse(String name, String header, Limits limits) {
        return new Parser(name, header, limits).dict();
    }

    private static final class Parser {
        private final String name;
        private final String s;
        private final Limits limits;
        private int pos;

        Parser(String name, String s, Limits limits) {
            this.name = name;
            this.s = s;
            this.limits = limits;
        }

        NpyHeader dict() {
            String descr = null;
            Boolean fortran = null;
            int[] dims = null;
            expect('{');
            while (true) {
                skipSpace();
                if (peek() == '}') {
                    pos++;
                    break;
                }
                int keyAt = pos;
                String key = string();
                expect(':');
                switch (key) {
                    case "descr" -> descr = once(descr, key, keyAt, string());
                    case "fortran_order" -> fortran = once(fortran, key, keyAt, bool());
                    case "shape" -> dims = once(dims, key, keyAt, tuple());
                    default -> throw error(keyAt, "unknown header key '" + key + "'");
                }
                skipSpace();
                if (peek() == ',') {
                    pos++;
                } else if (peek() != '}') {
                    throw error(pos, "expected ',' or '}'");
                }
            }
            skipSpace();
            if (pos != s.length()) {
                throw error(pos, "text after the header dict");
            }
            if (descr == null || fortran == null || dims == null) {
                throw Npy.fail(name, "header lacks descr, fortran_order or shape");
            }
            if (descr.length() < 2 || "<>|=".indexOf(descr.charAt(0)) < 0) {
                throw Npy.fail(name, "element type '" + descr + "' is not a NumPy type string");
            }
            DType t = Npy.dtype(descr.substring(1));
            if (t == null) {
                throw Npy.fail(name, "element type '" + descr + "' has no RLX dtype");
            }
            if (descr.charAt(0) == '>' && t.byteSize() > 1) {
                throw Npy.fail(name, "big-endian data ('" + descr + "') is not supported");
            }
            if (fortran) {
                throw Npy.fail(name, "Fortran-order arrays are not supported; save with numpy.ascontiguousarray");
            }
            try {
                return new NpyHeader(t, Shape.of(t, dims));
            } catch (RlxException e) {
                throw new WeightFormatException(name + ": " + e.getMessage(), e);
            }
        }

        private <T> T once(T previous, String key, int at, T value) {
            if (previous != null) {
                throw error(at, "key '" + key + "' appears twice");
            }
            return value;
        }

        /** A quoted string without escapes (NumPy writes none in these keys and values). */
        private String string() {
            skipSpace();
            char q = peek();
            if (q != '\'' && q != '"') {
                throw error(pos, "expected a quoted string");
            }
            int end = s.indexOf(q, pos + 1);
            if (end < 0) {
                throw error(pos, "unterminated string");
            }
            String v = s.substring(pos + 1, end);
            pos = end + 1;
            return v;
        }

        private Boolean bool() {
            skipSpace();
            if (s.startsWith("True", pos)) {
                pos += 4;
                return Boolean.TRUE;
            }
            if (s.startsWith("False", pos)) {
                pos += 5;
                return Boolean.FALSE;
            }
            throw error(pos, "expected True or False");
        }

        /** {@code (d0, d1, ...)}, a trailing comma allowed; each dim a non-negative int, optionally with L. */
        private int[] tuple() {
            expect('(');
            int[] dims = new int[4];
            int rank = 0;
            while (true) {
                skipSpace();
                if (peek() == ')') {
                    pos++;
                    return Arrays.copyOf(dims, rank);
                }
                int at = pos;
                long dim = 0;
                int digits = 0;
                while (pos < s.length() && Character.isDigit(s.charAt(pos)) && s.charAt(pos) < 128) {
                    dim = dim * 10 + (s.charAt(pos++) - '0');
                    if (dim > Integer.MAX_VALUE) {
                        throw error(at, "dim is out of range (above 2^31 - 1)");
                    }
                    digits++;
                }
                if (digits == 0) {
                    int end = at;
                    while (end < s.length() && end < at + 24 && s.charAt(end) != ',' && s.charAt(end) != ')') {
                        end++;
                    }
                    throw error(at, "shape entry '" + s.substring(at, end).strip() + "' is not a number");
                }
                if (pos < s.length() && s.charAt(pos) == 'L') {
                    pos++;
                }
                limits.check(Limits.Kind.RANK, name + ": .npy shape", rank + 1L);
                if (rank == dims.length) {
                    dims = Arrays.copyOf(dims, 2 * rank);
                }
                dims[rank++] = (int) dim;
                skipSpace();
                if (peek() == ',') {
                    pos++;
                } else if (peek() != ')') {
                    throw error(pos, "expected ',' or ')' in the shape");
                }
            }
        }

        private void expect(char c) {
            skipSpace();
            if (peek() != c) {
                throw error(pos, "expected '" + c + "'");
            }
            pos++;
        }

        private char peek() {
            return pos < s.length() ? s.charAt(pos) : '\0';
        }

        private void skipSpace() {
            while (pos < s.length() && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t' || s.charAt(pos) == '\n'
                    || s.charAt(pos) == '\r')) {
                pos++;
            }
        }

        private WeightFormatException error(int at, String what) {
            String near = s.substring(at, Math.min(s.length(), at + 24));
            return Npy.fail(name, "header at character " + at + ": " + what + " (near '" + near + "')");
        }
    }
}
