package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** GraphPrinter's text form. */
class PrinterTest {

    @Test
    void printer_goldenText() {
        Graph g = new Graph("demo");
        Value x = g.input("x", f32(1, 4));
        Value w = g.param("w", f32(4, 2));
        Value c = g.constant(new float[] {0.5f, -1f}, 2);
        Value a = g.name(g.add(g.matmul(x, w), c), "biased");
        Value sm = g.softmax(a, -1);
        List<Value> tk = g.topK(sm, 1, -1, true);
        Value red = g.reduceSum(g.constant(new float[9], 9), false);
        g.layerNorm(a, c, null, -1, 1e-5f);
        g.constant(Tensor.of(new int[] {3, -4}, 2));
        g.constant(Tensor.of(new boolean[] {true, false}, 2));
        g.cast(sm, DType.BF16);
        Value p = g.input("p", Shape.scalar(DType.BOOL));
        Graph t = new Graph("t");
        t.setOutputs(t.relu(t.input("a", f32(1, 2))));
        Graph e = new Graph("e");
        e.setOutputs(e.input("a", f32(1, 2)));
        Value iff = g.ifElse(p, t, e, a).get(0);
        g.setOutputs(tk.get(1), red, iff);

        // Written by hand from GraphPrinter: "%id = label[attr=value, ...](operands) : shapes", display names
        // as a comment, only the first 8 elements of a constant, subgraphs indented under their node.
        String expected = """
                graph @demo {
                  %0 = input "x" : f32[1,4]
                  %1 = param "w" : f32[4,2]
                  %2 = constant [0.5, -1.0] : f32[2]
                  %3 = matmul(%0, %1) : f32[1,2]
                  %4 = add(%3, %2) : f32[1,2]  # 'biased'
                  %5 = softmax[axis=1](%4) : f32[1,2]
                  %6, %6:1 = top_k[k=1, axis=1, largest=true](%5) : f32[1,1], i64[1,1]
                  %7 = constant 36B : f32[9]
                  %8 = reduce_sum[axes=[0], keepDims=false](%7) : f32[]
                  %9 = layer_norm[axis=1, eps=1.0E-5](%4, %2) : f32[1,2]
                  %10 = constant [3, -4] : i32[2]
                  %11 = constant [1, 0] : bool[2]
                  %12 = cast[to=BF16](%5) : bf16[1,2]
                  %13 = input "p" : bool[]
                  %14 = if[thenBranch=@t, elseBranch=@e](%13, %4) : f32[1,2]
                    thenBranch:
                    graph @t {
                      %0 = input "a" : f32[1,2]
                      %1 = relu(%0) : f32[1,2]
                      return %1
                    }
                    elseBranch:
                    graph @e {
                      %0 = input "a" : f32[1,2]
                      return %0
                    }
                  return %6:1, %8, %14
                }
                """;
        assertEquals(expected, g.toString());
        assertEquals(expected, GraphPrinter.print(g));
    }

    @Test
    void printer_constantValuesPrintedExactly() {
        Graph g = new Graph("k");
        g.constant(Tensor.of(new double[] {1e300, 0.1}, 2));        // f64 values, not rounded through f32
        g.constant(Tensor.of(new long[] {(1L << 53) + 1, Long.MIN_VALUE}, 2)); // i64 past double precision
        // c64 1.5 + 2i and -0.5 - 1i: real 0x3FC00000, imag 0x40000000; real 0xBF000000, imag 0xBF800000
        g.constant(Tensor.ofBytes(Shape.of(DType.C64, 2), new byte[] {0, 0, (byte) 0xC0, 0x3F, 0, 0, 0, 0x40,
                0, 0, 0, (byte) 0xBF, 0, 0, (byte) 0x80, (byte) 0xBF}));
        g.constant(Tensor.ofBytes(Shape.of(DType.U32, 1), new byte[] {-1, -1, -1, -1}));
        g.constant(Tensor.scalar(DType.F16, 0.1)); // nearest f16 to 0.1 is 0.0999755859375; printed as f32
        String text = g.toString();
        assertContains(text, "%0 = constant [1.0E300, 0.1] : f64[2]");
        assertContains(text, "%1 = constant [9007199254740993, -9223372036854775808] : i64[2]");
        assertContains(text, "%2 = constant [1.5+2.0i, -0.5-1.0i] : c64[2]");
        assertContains(text, "%3 = constant [4294967295] : u32[1]");
        assertContains(text, "%4 = constant [0.099975586] : f16[]");
    }

    @Test
    void printer_customAndMultiOutputLabels() {
        Graph g = new Graph("c");
        Value x = g.input("x", f32(2));
        List<Value> outs = g.custom("fused", Attrs.of("k", 2, "mode", "fast"), List.of(f32(2), Shape.of(DType.I32)), x);
        g.setOutputs(outs.get(1));
        assertContains(g.toString(),
                "%1, %1:1 = custom:fused[name=fused, attrs={k=2, mode=fast}, outputs=[f32[2], i32[]], pure=false](%0) : f32[2], i32[]");
        assertContains(g.toString(), "return %1:1");
    }

    private static void assertContains(String text, String line) {
        assertEquals(true, text.contains(line), () -> "expected the line\n" + line + "\nin\n" + text);
    }
}
