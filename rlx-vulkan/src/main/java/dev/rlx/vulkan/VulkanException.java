package dev.rlx.vulkan;

import dev.rlx.ir.RlxException;
import java.util.Locale;

/**
 * A Vulkan call failed, or Vulkan cannot be used here (no loader, no device, a shader that does not compile). The
 * message names the device (when one was chosen) and what was being done.
 */
public final class VulkanException extends RlxException {
    private final int result;

    public VulkanException(String message) {
        super(message);
        this.result = 0;
    }

    public VulkanException(String message, Throwable cause) {
        super(message, cause);
        this.result = 0;
    }

    private VulkanException(String message, int result) {
        super(message);
        this.result = result;
    }

    /** The {@code VkResult} that failed, or 0 when the error is not a failed call. */
    public int result() {
        return result;
    }

    /** Throws unless {@code result} is {@code VK_SUCCESS}; {@code what} says what was being done on which device. */
    static int check(int result, String what) {
        if (result < 0) {
            throw new VulkanException(String.format(Locale.ROOT, "Vulkan: %s failed: %s", what, VkResults.name(result)),
                    result);
        }
        return result;
    }
}
