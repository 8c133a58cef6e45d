package dev.rlx.bench;

import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxRunner;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What all-MiniLM-L6-v2 keeps resident when one {@link OnnxRunner} runs it at sequences 16, 128 and 256: each
 * compiled shape's arena and own memory, the shared weights once, and the Java heap the runner holds on to.
 *
 * <pre>./rlx-bench/run minilm-memory</pre>
 */
public final class MiniLmMemoryReport {
    private MiniLmMemoryReport() {}

    public static void main(String[] args) {
        var model = MiniLm.FP32.model();
        long heapBefore = usedHeap();
        try (Session s = new Session(Device.CPU); OnnxRunner r = new OnnxRunner(model, s)) {
            for (int seq : new int[] {16, 128, 256}) {
                long[] ids = new long[seq];
                Arrays.fill(ids, 2023);
                ids[0] = 101;
                long[] mask = new long[seq];
                Arrays.fill(mask, 1);
                Map<String, Tensor> in = new LinkedHashMap<>();
                in.put("input_ids", Tensor.of(ids, 1, seq));
                in.put("attention_mask", Tensor.of(mask, 1, seq));
                in.put("token_type_ids", Tensor.of(new long[seq], 1, seq));
                r.run(in);
            }
            System.out.print(r.memoryReport());
            System.out.printf("Java heap held by the runner: %.1f MB%n", (usedHeap() - heapBefore) / 1e6);
        }
    }

    private static long usedHeap() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }
}
