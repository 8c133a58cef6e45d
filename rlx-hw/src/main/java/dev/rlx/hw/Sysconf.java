package dev.rlx.hw;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The C library's {@code sysconf}, for the cache sizes glibc derives from CPUID when {@code /sys} has no cache
 * directories (common in virtual machines).
 */
final class Sysconf {
    // glibc's <bits/confname.h> numbers (checked with a C program on glibc 2.36).
    static final int LEVEL1_ICACHE_SIZE = 185;
    static final int LEVEL1_ICACHE_LINESIZE = 187;
    static final int LEVEL1_DCACHE_SIZE = 188;
    static final int LEVEL1_DCACHE_LINESIZE = 190;
    static final int LEVEL2_CACHE_SIZE = 191;
    static final int LEVEL2_CACHE_LINESIZE = 193;
    static final int LEVEL3_CACHE_SIZE = 194;
    static final int LEVEL3_CACHE_LINESIZE = 196;
    static final int LEVEL4_CACHE_SIZE = 197;
    static final int LEVEL4_CACHE_LINESIZE = 199;

    private static final MethodHandle SYSCONF = bind();

    private Sysconf() {}

    /** {@code sysconf(name)}, or -1 when the C library lacks it, does not know {@code name}, or native access is denied. */
    static long get(int name) {
        if (SYSCONF == null) {
            return -1;
        }
        try {
            return (long) SYSCONF.invokeExact(name);
        } catch (Throwable t) {
            return -1;
        }
    }

    private static MethodHandle bind() {
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("sysconf")
                    .map(s -> linker.downcallHandle(s, FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT)))
                    .orElse(null);
        } catch (RuntimeException e) { // IllegalCallerException when the JVM denies native access
            return null;
        }
    }
}
