package dev.rlx.spark;

import org.apache.spark.TaskContext;

/** What a task needs of its context: its CPU share, and the model instance it holds until it ends. */
final class Tasks {
    private Tasks() {}

    /**
     * RLX worker threads for the running task: {@code asked} if positive, else the task's CPUs
     * ({@code spark.task.cpus}, or its resource profile's), so N concurrent tasks use the executor's N cores
     * without oversubscribing them.
     */
    static int threads(int asked) {
        if (asked > 0) {
            return asked;
        }
        TaskContext t = TaskContext.get();
        return t == null ? 1 : Math.max(1, t.cpus());
    }

    /**
     * Borrows an instance of model {@code key} for the running task and gives it back when the task ends
     * (succeeded, failed or killed), or, outside a task, when {@code done} is run.
     */
    static <I extends AutoCloseable> I borrowForTask(String key, int threads, Runnable[] done) {
        I instance = ExecutorModels.borrow(key, threads);
        java.util.concurrent.atomic.AtomicBoolean given = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable release = () -> {
            if (given.compareAndSet(false, true)) {
                ExecutorModels.release(key, threads, instance);
            }
        };
        TaskContext t = TaskContext.get();
        if (t != null) {
            t.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) ctx -> release.run());
        }
        done[0] = release;
        return instance;
    }
}
