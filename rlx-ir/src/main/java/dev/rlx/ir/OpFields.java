package dev.rlx.ir;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Generic access to an op record's attribute fields, so that the printer, the serializer and the
 * fingerprint treat every op the same way and a new op needs no code in any of them. Each field has one of
 * the {@link FieldType}s.
 */
final class OpFields {
    private OpFields() {}

    /** The attribute types an op record may use. */
    enum FieldType { INT, LONG, FLOAT, DOUBLE, BOOLEAN, STRING, ENUM, SHAPE, TENSOR, ATTRS, GRAPH, INT_LIST, SHAPE_LIST, PROGRAM }

    /** One attribute field of an op record. */
    record Field(String name, FieldType type, Class<?> javaType, java.lang.reflect.Method accessor) {
        Object get(Op op) {
            try {
                return accessor.invoke(op);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException("cannot read " + name + " of " + op, e);
            }
        }
    }

    /** An op record class with its fields and canonical constructor. */
    record OpClass(Class<? extends Op> type, List<Field> fields, Constructor<? extends Op> constructor) {
        Op create(Object[] args) throws InvocationTargetException {
            try {
                return constructor.newInstance(args);
            } catch (InstantiationException | IllegalAccessException e) {
                throw new IllegalStateException("cannot construct " + type.getSimpleName(), e);
            }
        }
    }

    private static final Map<String, OpClass> BY_NAME = new HashMap<>();
    private static final Map<Class<?>, OpClass> BY_CLASS = new HashMap<>();

    static {
        for (Class<?> c : Op.class.getPermittedSubclasses()) {
            @SuppressWarnings("unchecked")
            Class<? extends Op> oc = (Class<? extends Op>) c;
            RecordComponent[] comps = oc.getRecordComponents();
            Class<?>[] types = new Class<?>[comps.length];
            List<Field> fields = new java.util.ArrayList<>();
            for (int i = 0; i < comps.length; i++) {
                types[i] = comps[i].getType();
                fields.add(new Field(comps[i].getName(), typeOf(oc, comps[i]), comps[i].getType(), comps[i].getAccessor()));
            }
            try {
                OpClass info = new OpClass(oc, List.copyOf(fields), oc.getDeclaredConstructor(types));
                BY_NAME.put(oc.getSimpleName(), info);
                BY_CLASS.put(oc, info);
            } catch (NoSuchMethodException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    static OpClass of(Op op) {
        return BY_CLASS.get(op.getClass());
    }

    /** The op class with this simple name ({@code "MatMul"}), or null. */
    static OpClass byName(String simpleName) {
        return BY_NAME.get(simpleName);
    }

    static List<OpClass> all() {
        return List.copyOf(BY_CLASS.values());
    }

    private static FieldType typeOf(Class<?> owner, RecordComponent c) {
        Class<?> t = c.getType();
        if (t == int.class) return FieldType.INT;
        if (t == long.class) return FieldType.LONG;
        if (t == float.class) return FieldType.FLOAT;
        if (t == double.class) return FieldType.DOUBLE;
        if (t == boolean.class) return FieldType.BOOLEAN;
        if (t == String.class) return FieldType.STRING;
        if (t.isEnum()) return FieldType.ENUM;
        if (t == Shape.class) return FieldType.SHAPE;
        if (t == Tensor.class) return FieldType.TENSOR;
        if (t == Attrs.class) return FieldType.ATTRS;
        if (t == Graph.class) return FieldType.GRAPH;
        if (t == ElementwiseProgram.class) return FieldType.PROGRAM;
        if (t == List.class) {
            Type g = c.getGenericType();
            if (g instanceof ParameterizedType p) {
                Type arg = p.getActualTypeArguments()[0];
                if (arg == Integer.class) return FieldType.INT_LIST;
                if (arg == Shape.class) return FieldType.SHAPE_LIST;
            }
        }
        throw new ExceptionInInitializerError(owner.getSimpleName() + "." + c.getName() + " has unsupported type " + c.getGenericType());
    }
}
