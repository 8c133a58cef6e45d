package dev.rlx.runtime.devices;

import dev.rlx.ir.RlxException;

/** A cost model or calibration whose numbers are not in the units {@link BackendCostModel} states. */
public class CostModelException extends RlxException {
    public CostModelException(String message) {
        super(message);
    }
}
