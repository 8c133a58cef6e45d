// Scaled dot-product attention, one workgroup per (batch, head, query): the LOCAL invocations score every
// LOCAL-th key into shared memory (scale, softcap, the built-in mask, then the optional mask operand), the row's
// max and compensated sum of exponentials are combined by a shared-memory tree in a fixed order, and each
// invocation then sums probability x value over all keys for its share of the head dims. A fully masked row is
// zeros. Keys up to MAX_KEYS per row (the scores live in shared memory).
// Macros: A_* (q, k, v, the result and an additive mask), ACC, EXP_ACC(x); MASK_ADD or MASK_KEEP (M_*) when
// there is a mask operand.
// Arguments: i[0] rows (B*H*Sq), i[1] Sq, i[2] Sk, i[3] H, i[4] heads per kv head, i[5] D, i[6] bits of scale,
// i[7] bits of softcap (0 off), i[8] built-in mask (0 none, 1 causal, 2 sliding window), i[9] window,
// i[10..12] q strides (batch, seq, head), i[13..15] k, i[16..18] v, i[19..21] out, i[22..25] mask strides
// over [B, H, Sq, Sk] (0 where broadcast). ptr[0] out, ptr[1] q, ptr[2] k, ptr[3] v, ptr[4] mask.
#define MAX_KEYS 2048
layout(local_size_x = LOCAL) in;

shared ACC score[MAX_KEYS];
shared ACC partial[LOCAL];

// The workgroup's combination of every invocation's partial by op (0 sum, 1 max); all invocations get it.
ACC combine(ACC mine, int op) {
    uint t = gl_LocalInvocationID.x;
    partial[t] = mine;
    barrier();
    for (uint s = LOCAL / 2; s > 0; s >>= 1) {
        if (t < s) {
            partial[t] = op == 0 ? partial[t] + partial[t + s] : max(partial[t], partial[t + s]);
        }
        barrier();
    }
    ACC r = partial[0];
    barrier();
    return r;
}

void main() {
    uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (row >= uint(ARG(0))) {
        return;
    }
    int sq = ARG(1), sk = ARG(2), heads = ARG(3), d = ARG(5);
    int i = int(row % uint(sq));
    int h = int((row / uint(sq)) % uint(heads));
    int b = int(row / uint(sq * heads));
    int kh = h / ARG(4);
    int qo = b * ARG(10) + i * ARG(11) + h * ARG(12);
    int oo = b * ARG(19) + i * ARG(20) + h * ARG(21);
    ACC scale = ACC(intBitsToFloat(ARG(6)));
    ACC cap = ACC(intBitsToFloat(ARG(7)));
    int builtIn = ARG(8);
    int limit = i + sk - sq; // the newest key query i may see under the causal masks
    ACC negInf = ACC(uintBitsToFloat(0xff800000u));
    uint t = gl_LocalInvocationID.x;
    ACC m = negInf;
    for (int j = int(t); j < sk; j += LOCAL) {
        bool visible = builtIn == 0 || (j <= limit && (builtIn == 1 || j > limit - ARG(9)));
        int ko = b * ARG(13) + j * ARG(14) + kh * ARG(15);
        ACC dot = ACC(0);
        for (int x = 0; x < d; x++) {
            dot += ACC(A_LOAD(BUF(A_S, 1).v[qo + x])) * ACC(A_LOAD(BUF(A_S, 2).v[ko + x]));
        }
        ACC s = scale * dot;
        if (cap > ACC(0)) {
            s = cap * tanh(s / cap);
        }
#if defined(MASK_ADD) || defined(MASK_KEEP)
        int mo = b * ARG(22) + h * ARG(23) + i * ARG(24) + j * ARG(25);
#ifdef MASK_ADD
        s += ACC(A_LOAD(BUF(A_S, 4).v[mo]));
#else
        visible = visible && M_LOAD(BUF(M_S, 4).v[mo]) != 0;
#endif
#endif
        s = visible ? s : negInf;
        score[j] = s;
        m = max(m, s);
    }
    m = combine(m, 1);
    if (m == negInf) { // every key masked: zeros, as the reference
        for (int x = int(t); x < d; x += LOCAL) {
            BUF(A_S, 0).v[oo + x] = A_STORE(A_C(0));
        }
        return;
    }
    precise ACC sum = ACC(0);
    precise ACC lost = ACC(0);
    for (int j = int(t); j < sk; j += LOCAL) {
        ACC e = score[j] == negInf ? ACC(0) : EXP_ACC(score[j] - m);
        score[j] = e;
        precise ACC y = e - lost;
        precise ACC s2 = sum + y;
        lost = (s2 - sum) - y;
        sum = s2;
    }
    sum = combine(sum, 0); // its barriers also publish every score
    for (int x = int(t); x < d; x += LOCAL) {
        ACC acc = ACC(0);
        for (int j = 0; j < sk; j++) {
            acc += score[j] * ACC(A_LOAD(BUF(A_S, 3).v[b * ARG(16) + j * ARG(17) + kh * ARG(18) + x]));
        }
        BUF(A_S, 0).v[oo + x] = A_STORE(A_C(acc / sum));
    }
}
