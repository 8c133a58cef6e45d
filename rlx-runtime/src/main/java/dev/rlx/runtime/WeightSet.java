package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.ir.limits.Limits;
import dev.rlx.runtime.spi.DeviceAllocator;
import dev.rlx.runtime.spi.DeviceBuffer;
import dev.rlx.runtime.spi.WeightCopies;
import dev.rlx.runtime.weights.WeightLoader;
import dev.rlx.runtime.weights.WeightTensor;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Named weights held once in one device's memory and shared, by reference, by every graph compiled against the
 * set: the same model at several input shapes, the prefill and decode graphs of one LLM, the copies serving
 * requests on several threads ({@link CompiledGraph#copy()}). Graphs read their params from these buffers;
 * none of a weight's bytes is in any graph's arena.
 *
 * <pre>{@code
 * try (WeightSet w = session.newWeightSet("minilm")) {
 *     CompiledGraph a = session.compile(g16, w), b = session.compile(g128, w);  // params declared in w
 *     w.setAll(SafetensorsLoader.open(path));                                    // uploaded once, read by both
 * }
 * }</pre>
 *
 * <p><b>Writing is shared.</b> A weight has one buffer: {@link #set}, or {@code setParam} on any graph bound to
 * the set, writes through to it and every such graph sees the new value at its next run (there is no copy on
 * write). Change weights only while none of those graphs is running. Compiling a graph against the set
 * declares each of its params (name, shape and dtype after the compile's precision policy) and allocates it,
 * zero and not yet set, if the set lacks it; a param whose name the set holds with another shape or dtype is a
 * {@link BindingException}.
 *
 * <p><b>Lifetime.</b> Buffers are freed once the set is closed and no graph bound to it is still open, so
 * closing the set early is safe. A graph compiled without a set gets a private one, closed with it (and shared
 * with its copies). Thread-safe.
 *
 * <p><b>Limits.</b> The bytes the set allocates are bounded by {@link Limits#weightBytes()} of the limits it was made
 * with (the session's {@link CompileOptions#limits()}): a declaration or compile that would go over is a
 * {@link dev.rlx.ir.limits.LimitExceededException} before anything is allocated or declared.
 */
public final class WeightSet implements AutoCloseable {
    private final String name;
    private final Device device;
    private final DeviceAllocator allocator;
    private final Limits limits;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private int users; // open graphs bound to the set
    private boolean closed;
    private boolean freed;

    /**
     * One weight: its shape, its device buffer, the binding that writes it, whether the set owns the buffer, and
     * the backends' copies of it in their own layouts (null for memory bound by reference, which can change under
     * the graphs at any time).
     */
    static final class Entry {
        final Shape shape;
        final DeviceBuffer buffer;
        final Binding binding;
        final boolean external;
        final WeightCopies copies;

        Entry(Shape shape, DeviceBuffer buffer, Binding binding, boolean external, WeightCopies copies) {
            this.shape = shape;
            this.buffer = buffer;
            this.binding = binding;
            this.external = external;
            this.copies = copies;
        }
    }

    /** Bytes left for the weights' copies in backends' layouts, shared by the whole set. */
    private final AtomicLong copyBudget = new AtomicLong(WeightCopies.budgetBytes());

    WeightSet(String name, Device device, DeviceAllocator allocator, Limits limits) {
        this.name = name;
        this.device = device;
        this.allocator = allocator;
        this.limits = limits;
    }

    public String name() {
        return name;
    }

    public Device device() {
        return device;
    }

    /** The weights' names, in the order they were declared. */
    public synchronized List<String> names() {
        return List.copyOf(entries.keySet());
    }

    public synchronized boolean contains(String weight) {
        return entries.containsKey(weight);
    }

    /** The declared shape (with dtype) of {@code weight}. */
    public synchronized Shape shape(String weight) {
        return entry(weight).shape;
    }

    /** Whether {@code weight} has been given data. */
    public synchronized boolean isSet(String weight) {
        return entry(weight).binding.isSet;
    }

    /**
     * Bytes of host memory the backends' copies of the weights in their own layouts take (the CPU's pre-packed
     * matmul weights: each once, however many graphs read it; at most {@code RLX_PREPACK_MB}).
     */
    public synchronized long copyBytes() {
        long n = 0;
        for (Entry e : entries.values()) {
            n += e.copies == null ? 0 : e.copies.bytes();
        }
        return n;
    }

    /** Bytes of device memory the weights take (each counted once, however many graphs share it). */
    public synchronized long byteSize() {
        long n = 0;
        for (Entry e : entries.values()) {
            n += e.buffer.byteSize();
        }
        return n;
    }

    /** Open graphs bound to the set. */
    public synchronized int users() {
        return users;
    }

    /**
     * Declares {@code weight} with {@code shape} (allocated, zero, not set) unless it is there already.
     *
     * @throws BindingException when it is there with another shape or dtype
     */
    public synchronized void declare(String weight, Shape shape) {
        if (!entries.containsKey(weight)) {
            checkNewBytes(CompiledGraph.bytesOf(shape), "weight '" + weight + "' " + shape);
        }
        entryFor(weight, shape);
    }

    /** Throws when allocating {@code bytes} more (-1: overflowed) would take the set over its weight limit. */
    private void checkNewBytes(long bytes, String what) {
        long owned = 0;
        for (Entry e : entries.values()) {
            if (!e.external) {
                owned += e.buffer.byteSize();
            }
        }
        long total = bytes < 0 ? -1 : owned + bytes;
        limits.check(Limits.Kind.WEIGHT_BYTES, what + " in weight set '" + name + "' (holding " + owned + " bytes)",
                total < 0 ? -1 : total);
    }

    public void set(String weight, float[] data) { binding(weight).set(data); }

    public void set(String weight, double[] data) { binding(weight).set(data); }

    public void set(String weight, int[] data) { binding(weight).set(data); }

    public void set(String weight, long[] data) { binding(weight).set(data); }

    public void set(String weight, boolean[] data) { binding(weight).set(data); }

    /** Raw little-endian bytes of the weight's dtype. */
    public void set(String weight, MemorySegment bytes) { binding(weight).setBytes(bytes); }

    /** A tensor of the weight's dims, its dtype converted to the weight's (floats to floats, integers to integers). */
    public void set(String weight, Tensor t) {
        Binding b = binding(weight);
        b.checkNotNull(t, "tensor");
        if (!t.shape().sameDims(b.shape)) {
            throw new BindingException("weight '" + weight + "' of set '" + name + "' is " + b.shape
                    + " but the tensor is " + t.shape());
        }
        b.setConverted(t.segment(), t.dtype());
    }

    /**
     * Binds {@code weight} to memory the caller owns and fills (a KV cache's pool, a mapped file), by reference:
     * graphs read {@code buffer} itself, which must be this set's device's memory, hold at least
     * {@code shape.byteSize()} bytes and outlive every graph compiled against the set. The set never writes or
     * frees it; setting the weight is refused.
     *
     * @throws BindingException when the weight is declared already or the buffer is too small
     */
    public synchronized void bind(String weight, Shape shape, DeviceBuffer buffer) {
        if (closed) {
            throw new BindingException("weight set '" + name + "' is closed; cannot bind '" + weight + "'");
        }
        if (entries.containsKey(weight)) {
            throw new BindingException("weight set '" + name + "' already holds '" + weight + "'");
        }
        if (buffer.byteSize() < shape.byteSize()) {
            throw new BindingException("weight '" + weight + "' " + shape + " needs " + shape.byteSize()
                    + " bytes but the buffer bound to it has " + buffer.byteSize());
        }
        Binding b = new Binding("param", weight, shape, "it is bound to memory its owner fills (WeightSet.bind)");
        entries.put(weight, new Entry(shape, buffer, b, true, null));
    }

    /** Declares {@code weight} with {@code t}'s shape if it is not there, then sets it from {@code t}. */
    public void put(String weight, Tensor t) {
        if (t == null) {
            throw new BindingException("weight '" + weight + "' of set '" + name + "' was given a null tensor");
        }
        synchronized (this) {
            if (!entries.containsKey(weight)) {
                declare(weight, t.shape());
            }
        }
        set(weight, t);
    }

    /** Sets every declared weight the loader has a tensor for; returns their names. The others stay as they are. */
    public List<String> setAll(WeightLoader loader) {
        List<String> set = new ArrayList<>();
        for (String w : names()) {
            Optional<WeightTensor> t = loader.tensor(w);
            if (t.isPresent()) {
                setFrom(w, t.get());
                set.add(w);
            }
        }
        return set;
    }

    /** Sets {@code weight} from a loader's tensor of the same dims (dtype converted). */
    void setFrom(String weight, WeightTensor t) {
        Binding b = binding(weight);
        if (!t.shape().sameDims(b.shape)) {
            throw new BindingException("param '" + weight + "' is " + b.shape + " but weight '" + t.name() + "' is "
                    + t.shape());
        }
        b.setConverted(t.data(), t.shape().dtype());
    }

    /** A copy of {@code weight}'s current bytes. */
    public Tensor get(String weight) {
        Entry e;
        synchronized (this) {
            e = entry(weight);
        }
        MemorySegment host = e.buffer.host();
        byte[] bytes = new byte[Math.toIntExact(e.shape.byteSize())];
        if (host != null) {
            MemorySegment.copy(host, 0, MemorySegment.ofArray(bytes), 0, bytes.length);
        } else {
            allocator.copyToHost(e.buffer, 0, MemorySegment.ofArray(bytes));
        }
        return Tensor.ofBytes(e.shape, bytes);
    }

    /** A one-line summary: name, device, weights, bytes, users. */
    @Override
    public synchronized String toString() {
        long set = entries.values().stream().filter(e -> e.binding.isSet).count();
        return String.format(Locale.ROOT, "weights '%s' on %s: %d (%d set), %,d bytes, %d graph%s", name,
                device.displayName(), entries.size(), set, byteSize(), users, users == 1 ? "" : "s");
    }

    /**
     * Closes the set: nothing more can be declared or bound; the buffers are freed now if no graph uses them,
     * else when the last one is closed.
     */
    @Override
    public synchronized void close() {
        closed = true;
        freeIfUnused();
    }

    // ---------------------------------------------------------------- used by Session / CompiledGraph

    /**
     * Binds {@code g}'s params: declares any the set lacks and returns each param value's entry. Counts one
     * more user until {@link #release}.
     */
    synchronized Map<Value, Entry> acquire(Graph g) {
        if (closed) {
            throw new BindingException("weight set '" + name + "' is closed; graphs cannot be compiled against it");
        }
        long fresh = 0; // bytes of the params the set lacks, checked before any is declared
        for (Value v : g.params()) {
            Op.Param p = (Op.Param) v.node().op();
            if (!entries.containsKey(p.name())) {
                long b = CompiledGraph.bytesOf(p.shape());
                fresh = b < 0 || fresh < 0 ? -1 : fresh + b;
            }
        }
        checkNewBytes(fresh, "the params of graph @" + g.name());
        Map<Value, Entry> bound = new IdentityHashMap<>();
        for (Value v : g.params()) {
            Op.Param p = (Op.Param) v.node().op();
            bound.put(v, entryFor(p.name(), p.shape()));
        }
        users++;
        return bound;
    }

    /** One more user of entries already bound (a copy of a graph). */
    synchronized void retain() {
        users++;
    }

    /** One user fewer; frees the buffers when the set is closed and unused. */
    synchronized void release() {
        users--;
        freeIfUnused();
    }

    synchronized Binding binding(String weight) {
        if (freed) {
            throw new IllegalStateException("weight set '" + name + "' is closed and its buffers are freed");
        }
        return entry(weight).binding;
    }

    private Entry entry(String weight) {
        Entry e = entries.get(weight);
        if (e == null) {
            throw new BindingException("weight set '" + name + "' has no weight '" + weight + "'; it holds "
                    + entries.keySet());
        }
        return e;
    }

    private Entry entryFor(String weight, Shape shape) {
        Entry e = entries.get(weight);
        if (e != null) {
            if (!e.shape.equals(shape)) {
                throw new BindingException("param '" + weight + "' is " + shape + " here but weight set '" + name
                        + "' holds it as " + e.shape + " (graphs sharing a weight set need the same param shapes and"
                        + " precision policy)");
            }
            return e;
        }
        if (closed) {
            throw new BindingException("weight set '" + name + "' is closed; cannot declare '" + weight + "'");
        }
        DeviceBuffer buf = allocator.allocate(shape.byteSize());
        Binding b = new Binding("param", weight, shape, buf.host(), staged -> allocator.copyToDevice(staged, buf, 0));
        e = new Entry(shape, buf, b, false, new WeightCopies(b.writes, copyBudget));
        entries.put(weight, e);
        return e;
    }

    private void freeIfUnused() {
        if (closed && users == 0 && !freed) {
            freed = true;
            for (Entry e : entries.values()) {
                if (!e.external) {
                    allocator.free(e.buffer);
                    e.copies.free();
                }
            }
        }
    }
}
