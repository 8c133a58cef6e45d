package dev.rlx.ir;

/**
 * A handle to one output of one node in a {@link Graph}. Cheap, immutable, and only meaningful in the graph
 * that made it (builders reject values from another graph).
 */
public final class Value {
    private final Graph graph;
    private final int node;
    private final int index;
    private final Shape shape;

    Value(Graph graph, int node, int index, Shape shape) {
        this.graph = graph;
        this.node = node;
        this.index = index;
        this.shape = shape;
    }

    public Graph graph() {
        return graph;
    }

    /** Id of the producing node (its position in {@link Graph#nodes()}). */
    public int nodeId() {
        return node;
    }

    /** Which output of the producing node this is (0 for single-output ops). */
    public int outputIndex() {
        return index;
    }

    public Node node() {
        return graph.node(node);
    }

    public Shape shape() {
        return shape;
    }

    public DType dtype() {
        return shape.dtype();
    }

    public int rank() {
        return shape.rank();
    }

    /** Dimension {@code axis} of the shape; negative axes count from the end. */
    public int dim(int axis) {
        return shape.dim(axis);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Value v && v.graph == graph && v.node == node && v.index == index;
    }

    @Override
    public int hashCode() {
        return 31 * node + index;
    }

    /** {@code %3}, or {@code %3:1} for the second output of node 3. */
    @Override
    public String toString() {
        return index == 0 ? "%" + node : "%" + node + ":" + index;
    }
}
