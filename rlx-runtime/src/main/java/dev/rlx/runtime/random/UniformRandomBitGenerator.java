package dev.rlx.runtime.random;

/**
 * A C++-style engine ({@code std::uniform_random_bit_generator}): each call returns an integer in
 * {@code [min(), max()]}. Implementations mirror the C++ standard library exactly, so that the distributions
 * in this package reproduce what C++ programs (llama.cpp, ONNX Runtime) draw. Not thread-safe.
 */
public interface UniformRandomBitGenerator {
    /** The next value, in {@code [min(), max()]}, as a non-negative long. */
    long next();

    long min();

    long max();
}
