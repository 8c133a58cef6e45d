package dev.rlx.runtime.devices;

import dev.rlx.runtime.Device;
import java.util.List;

/** Device names read from users (command lines, {@code RLX_*} variables), with typed errors. */
public final class DeviceNames {
    private DeviceNames() {}

    /**
     * One device name or alias ({@code cuda|nvidia}, {@code vulkan|vk}, {@code rocm|hip|amd}...).
     *
     * @throws DeviceSelectionException naming the choices when {@code name} is empty or unknown
     */
    public static Device parse(String name) {
        try {
            return Device.parse(name);
        } catch (IllegalArgumentException e) {
            throw new DeviceSelectionException(e.getMessage(), e);
        }
    }

    /**
     * A list separated by commas, semicolons or spaces; repeats dropped, order kept.
     *
     * @throws DeviceSelectionException when it holds no name or an unknown one
     */
    public static List<Device> parseList(String names) {
        try {
            return Device.parseList(names);
        } catch (IllegalArgumentException e) {
            throw new DeviceSelectionException(e.getMessage(), e);
        }
    }
}
