package dev.rlx.runtime.devices;

/** How the device for a graph is chosen among the viable ones when nothing names it. */
public sealed interface PickStrategy {
    /** The device with the lowest estimated cost ({@link CostEstimator}). */
    record CostModel() implements PickStrategy {
        @Override
        public String toString() {
            return "cost model";
        }
    }

    /** Run the graph {@code runs} times on every viable device and take the fastest (needs inputs). */
    record Benchmark(int runs) implements PickStrategy {
        public Benchmark {
            runs = Math.max(1, runs);
        }

        @Override
        public String toString() {
            return "benchmark (" + runs + " runs)";
        }
    }
}
