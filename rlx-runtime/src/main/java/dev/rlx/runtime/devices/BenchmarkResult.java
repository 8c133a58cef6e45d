package dev.rlx.runtime.devices;

import dev.rlx.runtime.Device;

/**
 * One device's time in {@link GraphDevices#benchmark}: the mean of {@code runs} timed runs after one warm-up, in ns.
 * Failed devices are listed with {@code error} set and an infinite time, so they rank last.
 */
public record BenchmarkResult(Device device, double nsPerRun, int runs, String error) {}
