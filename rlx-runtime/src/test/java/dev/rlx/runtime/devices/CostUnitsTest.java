package dev.rlx.runtime.devices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.runtime.Device;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CostUnitsTest {
    @Test
    void heuristicModels_ofEveryDevice_areInTheirUnits() {
        for (Device d : Device.values()) {
            HeuristicCostModel m = HeuristicCostModel.of(d);
            assertSame(m, CostUnits.check(m));
        }
    }

    /** The seed's Metal bug: a calibration that stores FLOP/s, read as GFLOP/s. It must not pass. */
    @Test
    void aRateInFlopsPerSecond_isRejected() {
        HeuristicCostModel flops = new HeuristicCostModel(Device.METAL, 2.5e11, 4e12, 2_000, 150_000, 200, 200, true);
        CostModelException e = assertThrows(CostModelException.class, () -> CostUnits.check(flops));
        assertTrue(e.getMessage().contains("metal sgemm") && e.getMessage().contains("GFLOP/s"), e.getMessage());
        assertThrows(CostModelException.class, () -> CostModels.fixed(Map.of(Device.METAL, flops), CostModels.heuristic()));
    }

    @Test
    void bandwidthInBytesPerSecond_andOverheadsInSeconds_areRejected() {
        assertThrows(CostModelException.class,
                () -> CostUnits.check(new HeuristicCostModel(Device.CUDA, 500, 12_000, 5_000, 35_000, 9e11, 25, false)));
        assertThrows(CostModelException.class,
                () -> CostUnits.check(new HeuristicCostModel(Device.CUDA, 500, 12_000, 5e-6, 35_000, 900, 25, false)));
        assertThrows(CostModelException.class,
                () -> CostUnits.check(new HeuristicCostModel(Device.CUDA, Double.NaN, 12_000, 5_000, 35_000, 900, 25, false)));
    }

    /** 2·m·k·n FLOP at g GFLOP/s (= FLOP per ns) take 2mkn/g ns; the estimate adds one dispatch and the round trip. */
    @Test
    void estimate_isFlopsOverGflopsInNanoseconds() {
        var g = new dev.rlx.ir.Graph("mm");
        var a = g.input("a", dev.rlx.ir.Shape.of(dev.rlx.ir.DType.F32, 64, 128));
        var b = g.param("b", dev.rlx.ir.Shape.of(dev.rlx.ir.DType.F32, 128, 32));
        g.setOutputs(g.matmul(a, b));
        HeuristicCostModel cpu = HeuristicCostModel.of(Device.CPU); // unified: no copies
        double expected = 3_000 + 2.0 * 64 * 128 * 32 / 200 + 300;
        assertEquals(expected, CostEstimator.estimateNs(g, cpu), 1e-9);
        HeuristicCostModel gpu = new HeuristicCostModel(Device.VULKAN, 50, 1_000, 10_000, 50_000, 200, 10, false);
        long io = (64 * 128 + 64 * 32) * 4L;
        assertEquals(50_000 + 2.0 * 64 * 128 * 32 / 1_000 + 10_000 + io / 10.0, CostEstimator.estimateNs(g, gpu), 1e-9);
    }
}
