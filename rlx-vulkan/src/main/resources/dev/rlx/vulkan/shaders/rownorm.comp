// Row-wise composites, one workgroup per line: SOFTMAX, LOG_SOFTMAX (along one axis), LAYER_NORM, RMS_NORM
// (over the trailing dims, gamma and optional beta of the row's length) and GROUP_NORM (a line is one group of
// one sample, [C/G, spatial] contiguous; gamma and beta per channel). Each of the LOCAL invocations folds
// every LOCAL-th element of the line (sums compensated, Kahan), then a tree in shared memory combines the
// partials: a fixed order, so the bits do not change from run to run. No subgroup operations.
// Macros: A_* (x, gamma, beta and the result share the dtype), ACC (float, or double for f64), EXP_ACC(x),
// LOG_ACC(x), and one of the four modes; ADD_RESIDUAL (AddNorm, with a norm mode) normalises x + residual
// (rounded to the dtype, as the stored sum) and also stores that sum.
// Arguments: i[0] lines, i[1] line length, i[2] inner (element stride along the line; line l starts at
// (l / inner) * len * inner + l % inner), i[3] has beta, i[4] bits of eps (f32); GROUP_NORM: i[5] groups,
// i[6] spatial elements per channel.
// ptr[0] out, ptr[1] x, ptr[2] gamma, ptr[3] beta; with ADD_RESIDUAL ptr[4] residual, ptr[5] the sum's output.
layout(local_size_x = LOCAL) in;

shared ACC partial[LOCAL];

uint lineStart;
uint len;
uint inner;

ACC load(uint j) {
#ifdef ADD_RESIDUAL
    uint at = lineStart + j * inner;
    return ACC(A_LOAD(A_STORE(A_C(A_LOAD(BUF(A_S, 1).v[at])) + A_C(A_LOAD(BUF(A_S, 4).v[at])))));
#else
    return ACC(A_LOAD(BUF(A_S, 1).v[lineStart + j * inner]));
#endif
}

void store(uint j, ACC y) {
    BUF(A_S, 0).v[lineStart + j * inner] = A_STORE(A_C(y));
}

// The workgroup's combination of every invocation's partial by op (0 sum, 1 max); all invocations get it.
ACC combine(ACC mine, int op) {
    uint t = gl_LocalInvocationID.x;
    partial[t] = mine;
    barrier();
    for (uint s = LOCAL / 2; s > 0; s >>= 1) {
        if (t < s) {
            partial[t] = op == 0 ? partial[t] + partial[t + s] : rlxMax(partial[t], partial[t + s]);
        }
        barrier();
    }
    ACC r = partial[0];
    barrier(); // partial is reused by the next combine
    return r;
}

// Kahan step: precise, so the compiler cannot simplify (t - acc) - y away.
#define KAHAN_ADD(acc, lost, x) { precise ACC y_ = (x) - lost; precise ACC t_ = acc + y_; lost = (t_ - acc) - y_; acc = t_; }

void main() {
    uint line = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (line >= uint(ARG(0))) {
        return;
    }
    len = uint(ARG(1));
    inner = uint(ARG(2));
    lineStart = (line / inner) * len * inner + line % inner;
    uint t = gl_LocalInvocationID.x;
#if defined(SOFTMAX) || defined(LOG_SOFTMAX)
    ACC m = ACC(uintBitsToFloat(0xff800000u));
    for (uint j = t; j < len; j += LOCAL) {
        m = rlxMax(m, load(j));
    }
    m = combine(m, 1);
    precise ACC sum = ACC(0);
    precise ACC lost = ACC(0);
    for (uint j = t; j < len; j += LOCAL) {
        KAHAN_ADD(sum, lost, EXP_ACC(load(j) - m));
    }
    sum = combine(sum, 0);
#ifdef SOFTMAX
    for (uint j = t; j < len; j += LOCAL) {
        store(j, EXP_ACC(load(j) - m) / sum);
    }
#else
    ACC logSum = LOG_ACC(sum);
    for (uint j = t; j < len; j += LOCAL) {
        store(j, load(j) - m - logSum);
    }
#endif
#else
    ACC eps = ACC(intBitsToFloat(ARG(4)));
    ACC n = ACC(len);
    precise ACC s = ACC(0);
    precise ACC lost = ACC(0);
#if defined(LAYER_NORM) || defined(GROUP_NORM)
    for (uint j = t; j < len; j += LOCAL) {
        KAHAN_ADD(s, lost, load(j));
    }
    ACC mean = combine(s, 0) / n;
    s = ACC(0);
    lost = ACC(0);
    for (uint j = t; j < len; j += LOCAL) {
        ACC d = load(j) - mean;
        KAHAN_ADD(s, lost, d * d);
    }
#else
    ACC mean = ACC(0);
    for (uint j = t; j < len; j += LOCAL) {
        ACC x = load(j);
        KAHAN_ADD(s, lost, x * x);
    }
#endif
    ACC inv = ACC(1) / sqrt(combine(s, 0) / n + eps);
    bool beta = ARG(3) != 0;
#ifdef GROUP_NORM
    uint spatial = uint(ARG(6));
    uint channel0 = (line % uint(ARG(5))) * (len / spatial); // the group's first channel
#define PARAM_AT(j) (channel0 + (j) / spatial)
#else
#define PARAM_AT(j) (j)
#endif
    for (uint j = t; j < len; j += LOCAL) {
        ACC y = (load(j) - mean) * inv * ACC(A_LOAD(BUF(A_S, 2).v[PARAM_AT(j)]));
        if (beta) {
            y += ACC(A_LOAD(BUF(A_S, 3).v[PARAM_AT(j)]));
        }
        store(j, y);
#ifdef ADD_RESIDUAL
        BUF(A_S, 5).v[lineStart + j * inner] = A_STORE(A_C(load(j)));
#endif
    }
#endif
}
