package dev.rlx.runtime;

import dev.rlx.ir.Attrs;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Custom ops: a shape function per op name, and kernels per (name, device). Build nodes with
 * {@link #apply}; a backend runs a {@code Custom} node only when a kernel is registered for its device.
 *
 * <pre>{@code
 * OpRegistry.global().register("clip01", (in, a) -> List.of(in.get(0)), Device.CPU, (in, out, a) -> {
 *     for (long i = 0; i < in.get(0).size(); i++) {
 *         float v = in.get(0).data().getAtIndex(ValueLayout.JAVA_FLOAT, i);
 *         out.get(0).data().setAtIndex(ValueLayout.JAVA_FLOAT, i, Math.min(1f, Math.max(0f, v)));
 *     }
 * });
 * Value y = OpRegistry.global().apply(g, "clip01", Attrs.EMPTY, x).get(0);
 * }</pre>
 *
 * Thread-safe. Registering a name again replaces the earlier entry (with a warning).
 */
public final class OpRegistry {
    private static final System.Logger LOG = System.getLogger(OpRegistry.class.getName());
    private static final OpRegistry GLOBAL = new OpRegistry();

    private final Map<String, ShapeFunction> shapes = new HashMap<>();
    private final java.util.Set<String> pure = new java.util.HashSet<>();
    private final Map<KernelKey, HostKernel> kernels = new HashMap<>();

    public static OpRegistry global() {
        return GLOBAL;
    }

    /** Declares custom op {@code name} with its shape function. */
    public synchronized void define(String name, ShapeFunction shapeFunction) {
        if (shapes.put(name, shapeFunction) != null) {
            LOG.log(System.Logger.Level.WARNING, "custom op ''{0}'' redefined", name);
        }
    }

    /** Registers the host kernel that runs {@code name} on {@code device}. */
    public synchronized void registerKernel(String name, Device device, HostKernel kernel) {
        if (kernels.put(new KernelKey(name, device), kernel) != null) {
            LOG.log(System.Logger.Level.WARNING, "kernel for custom op ''{0}'' on {1} replaced", name, device);
        }
    }

    /** {@link #define} and {@link #registerKernel} in one call. */
    public void register(String name, ShapeFunction shapeFunction, Device device, HostKernel kernel) {
        define(name, shapeFunction);
        registerKernel(name, device, kernel);
    }

    /**
     * Declares that op {@code name}'s outputs depend only on its inputs (no side effects, no state), so
     * passes may merge equal calls and drop unused ones. Custom ops are impure until declared pure.
     */
    public synchronized void declarePure(String name) {
        pure.add(name);
    }

    /** Removes the op's shape function, purity and all its kernels. */
    public synchronized void remove(String name) {
        shapes.remove(name);
        pure.remove(name);
        kernels.keySet().removeIf(k -> k.name().equals(name));
    }

    public synchronized Optional<HostKernel> kernel(String name, Device device) {
        return Optional.ofNullable(kernels.get(new KernelKey(name, device)));
    }

    public synchronized Optional<ShapeFunction> shapeFunction(String name) {
        return Optional.ofNullable(shapes.get(name));
    }

    /** Names of defined ops, sorted. */
    public synchronized List<String> names() {
        return List.copyOf(new TreeSet<>(shapes.keySet()));
    }

    /**
     * Appends custom op {@code name} to {@code g}, its output shapes from the registered shape function.
     *
     * @throws CustomOpException when {@code name} is not defined, or its shape function fails or returns no shapes
     *     (null, or a null entry)
     */
    public List<Value> apply(Graph g, String name, Attrs attrs, Value... operands) {
        ShapeFunction f = shapeFunction(name).orElseThrow(() -> new CustomOpException(String.valueOf(name),
                "not defined; call OpRegistry.define first (defined: " + names() + ")", null));
        List<Shape> in = java.util.Arrays.stream(operands).map(Value::shape).toList();
        boolean isPure;
        synchronized (this) {
            isPure = pure.contains(name);
        }
        List<Shape> out;
        try {
            out = f.outputShapes(in, attrs);
        } catch (dev.rlx.ir.RlxException e) {
            throw e; // already typed (a ShapeException naming the problem)
        } catch (RuntimeException e) {
            throw new CustomOpException(name, "its shape function failed on inputs " + in + ": " + e, e);
        }
        if (out == null || out.stream().anyMatch(java.util.Objects::isNull)) { // List.of rejects contains(null)
            throw new CustomOpException(name, "its shape function returned " + out + " for inputs " + in
                    + " (it must return one non-null shape per output)", null);
        }
        return g.apply(new dev.rlx.ir.Op.Custom(name, attrs, out, isPure), operands);
    }

    /** Op names may contain any character, so the key is a pair rather than a joined string. */
    private record KernelKey(String name, Device device) {}
}
