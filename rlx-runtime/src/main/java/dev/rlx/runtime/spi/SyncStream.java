package dev.rlx.runtime.spi;

/** The stream of a device that runs work as it is enqueued (the CPU): submitting and waiting do nothing. */
public enum SyncStream implements CommandStream {
    INSTANCE;

    @Override
    public void submit() {}

    @Override
    public void await() {}
}
