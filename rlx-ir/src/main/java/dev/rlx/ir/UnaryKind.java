package dev.rlx.ir;

import java.util.Locale;

/** Element-wise unary functions, applied by {@link Op.Unary}. Output dtype equals input dtype. */
public enum UnaryKind {
    /** {@code max(x, 0)}; numeric. */
    RELU(Domain.NUMERIC),
    /** {@code 0.5 x (1 + erf(x / sqrt 2))}, the exact GELU; float only. */
    GELU(Domain.FLOAT),
    /** {@code 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))}, the tanh approximation; float only. */
    GELU_TANH(Domain.FLOAT),
    /** {@code x sigmoid(x)} (swish); float only. */
    SILU(Domain.FLOAT),
    /** {@code 1 / (1 + e^-x)}; float only. */
    SIGMOID(Domain.FLOAT),
    /** Hyperbolic tangent; float only. */
    TANH(Domain.FLOAT),
    /** {@code e^x}; float only. */
    EXP(Domain.FLOAT),
    /** Natural logarithm ({@code -inf} at 0, NaN below); float only. */
    LOG(Domain.FLOAT),
    /** Square root (NaN below 0); float only. */
    SQRT(Domain.FLOAT),
    /** {@code 1 / sqrt(x)}; float only. */
    RSQRT(Domain.FLOAT),
    /** {@code 1 / x}; float only. */
    RECIPROCAL(Domain.FLOAT),
    /** {@code -x}; numeric (wraps for the most negative integer). */
    NEG(Domain.NUMERIC),
    /** {@code |x|}; numeric. */
    ABS(Domain.NUMERIC),
    /** -1, 0 or 1 by the sign of x (NaN stays NaN); numeric. */
    SIGN(Domain.NUMERIC),
    /** Sine (radians); float only. */
    SIN(Domain.FLOAT),
    /** Cosine (radians); float only. */
    COS(Domain.FLOAT),
    /** Tangent (radians); float only. */
    TAN(Domain.FLOAT),
    /** Arc tangent; float only. */
    ATAN(Domain.FLOAT),
    /** Gauss error function; float only. */
    ERF(Domain.FLOAT),
    /** Round half to even ({@code 0.5 -> 0}, {@code 1.5 -> 2}, {@code -2.5 -> -2}), as NumPy and ONNX; float only. */
    ROUND(Domain.FLOAT),
    /** Largest integer not above x; float only. */
    FLOOR(Domain.FLOAT),
    /** Smallest integer not below x; float only. */
    CEIL(Domain.FLOAT),
    /** Logical not; bool only. */
    NOT(Domain.BOOL);

    /** Which dtypes a kind accepts. */
    public enum Domain { FLOAT, NUMERIC, BOOL }

    private final Domain domain;

    UnaryKind(Domain domain) {
        this.domain = domain;
    }

    public Domain domain() {
        return domain;
    }

    /** Whether this function is defined on {@code t} (complex types take no unary ops yet). */
    public boolean accepts(DType t) {
        return switch (domain) {
            case FLOAT -> t.isFloat();
            case NUMERIC -> t.isFloat() || t.isInteger();
            case BOOL -> t.isBool();
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
