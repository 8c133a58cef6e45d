package dev.rlx.hw;

import java.util.Objects;
import java.util.OptionalDouble;

/**
 * One reading of a GPU's sensors. Every reading is optional: a sensor the board or driver lacks is {@code null},
 * never 0 (a fanless card has no fan speed, not a stopped fan).
 *
 * @param vendor         {@link GpuVendor#NVIDIA} (read through NVML) or {@link GpuVendor#AMD} (read through ROCm SMI)
 * @param index          the vendor library's device index
 * @param name           the product name
 * @param tempC          the main GPU temperature (NVML's GPU sensor, ROCm's edge sensor), degrees Celsius
 * @param hotspotC       the hottest spot (ROCm junction); NVML does not report one
 * @param memTempC       the memory temperature (ROCm); NVML does not report one
 * @param powerW         power draw in watts
 * @param powerCapW      the power limit in force, in watts
 * @param smClockMhz     the SM (shader) clock (NVML); ROCm's clock table layout varies by release, so not read
 * @param memClockMhz    the memory clock (NVML)
 * @param fanPercent     fan speed in percent of its maximum (NVML may report above 100 on some boards)
 * @param utilPercent    percent of time the GPU was busy over the driver's last sample period
 * @param memUtilPercent percent of time device memory was being read or written
 */
public record GpuThermal(GpuVendor vendor, int index, String name, Double tempC, Double hotspotC, Double memTempC,
        Double powerW, Double powerCapW, Integer smClockMhz, Integer memClockMhz, Integer fanPercent,
        Integer utilPercent, Integer memUtilPercent) {

    public GpuThermal {
        Objects.requireNonNull(vendor, "vendor");
    }

    /**
     * Power draw as a fraction of the cap, clamped to [0, 1]; empty unless both readings are present and the cap is
     * positive.
     */
    public OptionalDouble powerHeadroom() {
        if (powerW == null || powerCapW == null || !(powerCapW > 0) || powerW.isNaN()) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(Math.clamp(powerW / powerCapW, 0.0, 1.0));
    }
}
