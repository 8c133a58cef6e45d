package dev.rlx.cpu.kernels;

import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;
import static java.lang.constant.ConstantDescs.INIT_NAME;
import static java.lang.constant.ConstantDescs.MTD_void;

import dev.rlx.ir.ElementwiseProgram;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import jdk.incubator.vector.VectorOperators;

/**
 * Generates a {@link FusedLoop} per element-wise program and operand layout with the class-file API: one
 * hidden class whose {@code run} loads each contiguous operand as a vector (a broadcast operand is read once
 * and splatted), applies each step in program order as {@link FusedOps} says (a {@code lanewise} operator or a
 * call; a comparison gives a {@code VectorMask} local that a select blends by) with every value in a local, and
 * stores the last. C2 then compiles one plain loop per program, the shape it compiles the same way every
 * time; the interpreted form ({@link ProgramEval}: a step-by-step loop over pieces through L1) ran a 2-thread
 * {@code x * 0.5 + 1} at 0.27-0.9 of a memory copy depending on how C2 happened to inline it.
 * Generated classes are cached by program and layout (up to 4096), so equal programs share one; where classes
 * cannot be defined at run time, programs run interpreted.
 */
final class FusedLoops {
    private FusedLoops() {}

    private static final ClassDesc FLOAT_VECTOR = ClassDesc.of("jdk.incubator.vector.FloatVector");
    private static final ClassDesc SPECIES = ClassDesc.of("jdk.incubator.vector.VectorSpecies");
    private static final ClassDesc SEGMENT = ClassDesc.of("java.lang.foreign.MemorySegment");
    private static final ClassDesc BYTE_ORDER = ClassDesc.of("java.nio.ByteOrder");
    private static final ClassDesc VALUE_LAYOUT = ClassDesc.of("java.lang.foreign.ValueLayout");
    private static final ClassDesc OF_FLOAT = ClassDesc.of("java.lang.foreign.ValueLayout$OfFloat");
    private static final ClassDesc VECTOR_MATH = ClassDesc.of(VectorMath.class.getName());
    private static final ClassDesc OPS = ClassDesc.of(FusedOps.class.getName());
    private static final MethodTypeDesc UNARY = MethodTypeDesc.of(FLOAT_VECTOR, FLOAT_VECTOR);
    private static final MethodTypeDesc UNARY_VIA = MethodTypeDesc.of(FLOAT_VECTOR, FLOAT_VECTOR, SEGMENT, CD_long);
    private static final ClassDesc OPERATORS = ClassDesc.of(VectorOperators.class.getName());
    private static final MethodTypeDesc LANEWISE_UNARY = MethodTypeDesc.of(FLOAT_VECTOR,
            ClassDesc.of(VectorOperators.Unary.class.getName()));
    private static final MethodTypeDesc LANEWISE_BINARY = MethodTypeDesc.of(FLOAT_VECTOR,
            ClassDesc.of(VectorOperators.Binary.class.getName()), ClassDesc.of("jdk.incubator.vector.Vector"));

    private static final ClassDesc VECTOR = ClassDesc.of("jdk.incubator.vector.Vector");
    private static final ClassDesc VECTOR_MASK = ClassDesc.of("jdk.incubator.vector.VectorMask");
    private static final MethodTypeDesc COMPARE = MethodTypeDesc.of(VECTOR_MASK,
            ClassDesc.of(VectorOperators.Comparison.class.getName()), VECTOR);
    private static final MethodTypeDesc BLEND = MethodTypeDesc.of(FLOAT_VECTOR, VECTOR, VECTOR_MASK);

    private record Key(ElementwiseProgram program, List<Boolean> broadcast) {}

    private static final ConcurrentHashMap<Key, Optional<FusedLoop>> CACHE = new ConcurrentHashMap<>();
    private static final int CACHE_LIMIT = 4096;

    /**
     * The loop for {@code p} where operand {@code k} is a broadcast scalar if {@code broadcast[k]}, else
     * contiguous; empty when a step has no vector form in {@link FusedOps}.
     */
    static Optional<FusedLoop> of(ElementwiseProgram p, boolean[] broadcast) {
        Boolean[] b = new Boolean[broadcast.length];
        for (int k = 0; k < b.length; k++) {
            b[k] = broadcast[k];
        }
        Key key = new Key(p, List.of(b));
        Optional<FusedLoop> cached = CACHE.get(key);
        if (cached != null) {
            return cached;
        }
        Optional<FusedLoop> loop = generate(p, broadcast);
        if (CACHE.size() < CACHE_LIMIT) { // a process that compiles endless distinct programs keeps no more classes
            cached = CACHE.putIfAbsent(key, loop);
        }
        return cached != null ? cached : loop;
    }

    private static Optional<FusedLoop> generate(ElementwiseProgram p, boolean[] broadcast) {
        for (ElementwiseProgram.Step s : p.steps()) {
            if (s.isUnary() ? !FusedOps.vectorizes(s.unary()) : s.isBinary() && FusedOps.operator(s.binary()) == null) {
                return Optional.empty();
            }
        }
        byte[] bytes = ClassFile.of().build(ClassDesc.of(FusedLoop.class.getName() + "$Generated"), cb -> cb
                .withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC)
                .withInterfaceSymbols(ClassDesc.of(FusedLoop.class.getName()))
                .withMethodBody(INIT_NAME, MTD_void, ClassFile.ACC_PUBLIC, code -> code
                        .aload(0).invokespecial(CD_Object, INIT_NAME, MTD_void).return_())
                .withMethodBody("run", MethodTypeDesc.of(CD_void, SEGMENT.arrayType(), CD_long.arrayType(), SEGMENT,
                        CD_long, CD_int), ClassFile.ACC_PUBLIC, code -> body(code, p, broadcast)));
        try {
            MethodHandles.Lookup l = MethodHandles.lookup().defineHiddenClass(bytes, true);
            return Optional.of((FusedLoop) l.findConstructor(l.lookupClass(), MethodType.methodType(void.class))
                    .invoke());
        } catch (UnsupportedOperationException | LinkageError | IllegalAccessException e) {
            // a runtime that cannot define classes (e.g. a native image): the program runs interpreted
            System.getLogger(FusedLoops.class.getName()).log(System.Logger.Level.DEBUG,
                    "fused program " + p + " runs interpreted: " + e);
            return Optional.empty();
        } catch (Throwable e) {
            throw new IllegalStateException("cpu: could not generate the loop of fused program " + p, e);
        }
    }

    // run(ins = 1, offs = 2, out = 3, outOff = 4..5, n = 6)
    private static void body(CodeBuilder code, ElementwiseProgram p, boolean[] broadcast) {
        int inputs = p.inputs();
        int[] segment = new int[inputs];
        int[] offset = new int[inputs];
        int[] scalar = new int[inputs];
        for (int k = 0; k < inputs; k++) {
            code.aload(1).loadConstant(k).aaload();
            if (broadcast[k]) {
                code.getstatic(VALUE_LAYOUT, "JAVA_FLOAT", OF_FLOAT).aload(2).loadConstant(k).laload()
                        .invokeinterface(SEGMENT, "getAtIndex", MethodTypeDesc.of(CD_float, OF_FLOAT, CD_long));
                scalar[k] = code.allocateLocal(TypeKind.FLOAT);
                code.fstore(scalar[k]);
            } else {
                segment[k] = code.allocateLocal(TypeKind.REFERENCE);
                code.astore(segment[k]);
                offset[k] = code.allocateLocal(TypeKind.LONG);
                code.aload(2).loadConstant(k).laload().lstore(offset[k]);
            }
        }
        int j = code.allocateLocal(TypeKind.INT);
        int[] value = new int[inputs + p.steps().size()];
        for (int v = 0; v < value.length; v++) {
            value[v] = code.allocateLocal(TypeKind.REFERENCE);
        }
        Label top = code.newLabel();
        Label end = code.newLabel();
        code.iconst_0().istore(j).labelBinding(top);
        code.iload(j).iload(6).if_icmpge(end);
        for (int k = 0; k < inputs; k++) {
            code.getstatic(VECTOR_MATH, "F", SPECIES);
            if (broadcast[k]) {
                // splatted inside the loop, where C2 hoists it (a vector made above the loop can end up boxed)
                code.fload(scalar[k]).invokestatic(FLOAT_VECTOR, "broadcast",
                        MethodTypeDesc.of(FLOAT_VECTOR, SPECIES, CD_float));
            } else {
                code.aload(segment[k]);
                byteOffset(code, offset[k], j);
                code.invokestatic(FLOAT_VECTOR, "fromMemorySegment",
                        MethodTypeDesc.of(FLOAT_VECTOR, SPECIES, SEGMENT, CD_long, BYTE_ORDER));
            }
            code.astore(value[k]);
        }
        for (int i = 0; i < p.steps().size(); i++) {
            ElementwiseProgram.Step s = p.steps().get(i);
            if (s.isSelect()) { // where(c, t, f) = f.blend(t, c): exact, lanes picked by the mask
                code.aload(value[s.c()]).aload(value[s.b()]).aload(value[s.a()])
                        .invokevirtual(FLOAT_VECTOR, "blend", BLEND);
                code.astore(value[inputs + i]);
                continue;
            }
            code.aload(value[s.a()]);
            if (s.isCompare()) { // a mask (a VectorMask local), as Float's comparisons: false with NaN but NE
                operator(code, s.compare().name());
                code.aload(value[s.b()]).invokevirtual(FLOAT_VECTOR, "compare", COMPARE);
            } else if (s.isBinary()) {
                operator(code, FusedOps.operator(s.binary()));
                code.aload(value[s.b()]).invokevirtual(FLOAT_VECTOR, "lanewise", LANEWISE_BINARY);
            } else if (FusedOps.operator(s.unary()) != null) {
                operator(code, FusedOps.operator(s.unary()));
                code.invokevirtual(FLOAT_VECTOR, "lanewise", LANEWISE_UNARY);
            } else if (FusedOps.needsOutput(s.unary())) {
                code.aload(3).lload(4).iload(j).i2l().ladd().loadConstant(4L).lmul();
                code.invokestatic(OPS, FusedOps.method(s.unary()), UNARY_VIA);
            } else {
                code.invokestatic(OPS, FusedOps.method(s.unary()), UNARY);
            }
            code.astore(value[inputs + i]);
        }
        code.aload(value[value.length - 1]).aload(3);
        byteOffset(code, 4, j);
        code.invokevirtual(FLOAT_VECTOR, "intoMemorySegment", MethodTypeDesc.of(CD_void, SEGMENT, CD_long, BYTE_ORDER));
        code.iinc(j, VectorMath.F.length()).goto_(top);
        code.labelBinding(end).return_();
    }

    /** Pushes the {@code VectorOperators} constant {@code name} (a static final: C2 folds it). */
    private static void operator(CodeBuilder code, String name) {
        try {
            Class<?> type = VectorOperators.class.getField(name).getType();
            code.getstatic(OPERATORS, name, ClassDesc.of(type.getName()));
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("VectorOperators has no " + name, e);
        }
    }

    /** Pushes {@code (base + j) * 4} and little-endian order. */
    private static void byteOffset(CodeBuilder code, int base, int j) {
        code.lload(base).iload(j).i2l().ladd().loadConstant(4L).lmul()
                .getstatic(BYTE_ORDER, "LITTLE_ENDIAN", BYTE_ORDER);
    }
}
