package dev.rlx.spark;

/**
 * Inference failed inside a task: the message names the partition and the offset of the row (or the range of rows
 * of the batch) within it, and the cause is RLX's own error. Spark reports it as the task's failure.
 */
public final class PartitionInferenceException extends RlxSparkException {
    private final int partition;
    private final long firstRow;
    private final long lastRow;

    public PartitionInferenceException(int partition, long firstRow, long lastRow, String what, Throwable cause) {
        super("partition " + partition + ", " + (firstRow == lastRow ? "row " + firstRow : "rows " + firstRow + ".." + lastRow)
                + ": " + what + ": " + cause.getMessage(), cause);
        this.partition = partition;
        this.firstRow = firstRow;
        this.lastRow = lastRow;
    }

    /** The partition's index in its stage. */
    public int partition() {
        return partition;
    }

    /** Offset within the partition of the first row concerned (0-based). */
    public long firstRow() {
        return firstRow;
    }

    /** Offset of the last row concerned: {@link #firstRow()} for one row, else the batch's last. */
    public long lastRow() {
        return lastRow;
    }
}
