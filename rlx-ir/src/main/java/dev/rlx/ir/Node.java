package dev.rlx.ir;

import java.util.List;

/**
 * One op application in a {@link Graph}: the op, its operand values (all from earlier nodes) and its
 * outputs. Immutable.
 */
public final class Node {
    private final int id;
    private final Op op;
    private final List<Value> inputs;
    private final List<Value> outputs;
    private final String name;

    Node(int id, Op op, List<Value> inputs, List<Value> outputs, String name) {
        this.id = id;
        this.op = op;
        this.inputs = List.copyOf(inputs);
        this.outputs = List.copyOf(outputs);
        this.name = name;
    }

    public int id() {
        return id;
    }

    public Op op() {
        return op;
    }

    public OpKind kind() {
        return op.kind();
    }

    public List<Value> inputs() {
        return inputs;
    }

    public List<Value> outputs() {
        return outputs;
    }

    /** The single output; throws for multi-output nodes. */
    public Value output() {
        if (outputs.size() != 1) {
            throw new IllegalStateException("node " + describe() + " has " + outputs.size() + " outputs");
        }
        return outputs.get(0);
    }

    /** Shape of the first output. */
    public Shape shape() {
        return outputs.get(0).shape();
    }

    /** Inputs and params: their binding name; other nodes: the display name given with {@code Graph.name}, or null. */
    public String name() {
        return switch (op) {
            case Op.Input i -> i.name();
            case Op.Param p -> p.name();
            default -> name;
        };
    }

    Node withName(String newName) {
        return new Node(id, op, inputs, outputs, newName);
    }

    /** {@code %4 matmul} or {@code %4 matmul 'attn_out'}: how messages refer to a node. */
    public String describe() {
        String n = name();
        return "%" + id + " " + op.label() + (n == null ? "" : " '" + n + "'");
    }

    @Override
    public String toString() {
        return describe();
    }
}
