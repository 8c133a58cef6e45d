package dev.rlx.llm.sample;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * DRY, "Don't Repeat Yourself" (p-e-w, ported to llama.cpp from koboldcpp): penalises tokens that would extend
 * a sequence already repeated in the last {@code penaltyLastN} tokens. Steps, as llama.cpp:
 * <ol>
 * <li>Scanning back from the newest token, the first complete sequence breaker caps repeat lengths
 *     ({@code restart limit}); no-op if the cap is below {@code allowedLength}.</li>
 * <li>A reverse Z-algorithm gives, for each earlier position, the length of the longest suffix of the history
 *     that also ends there (capped by the limit). O(N).</li>
 * <li>The token that followed each such position with length {@code L >= allowedLength} gets
 *     {@code max L}.</li>
 * <li>Each candidate with a length, unless it is a single-token breaker, loses
 *     {@code multiplier · base^min(L − allowedLength, ⌊88.7228391 / ln base⌋)} (the cap only for
 *     {@code base > 1.000001}).</li>
 * </ol>
 * Sequence breakers are token-id sequences (llama.cpp tokenises its string breakers, which needs a
 * vocabulary). Disabled when {@code multiplier = 0}, {@code base < 1} or {@code penaltyLastN = 0}. Per-token
 * lengths are kept in an array that grows to the largest token id seen.
 */
final class Dry implements Sampler {
    private static final float FLOAT_MAX_LOG = 88.7228391f;

    private final float multiplier;
    private final float base;
    private final int allowedLength;
    private final int lastN;
    private final int contextSize;
    private final boolean enabled;
    private final int[] heads;        // sorted distinct first tokens of the breakers
    private final int[][][] tails;    // tails[h]: the rest of each breaker starting with heads[h]
    private final boolean[] singleToken; // heads[h] alone is a breaker
    private final TokenHistory history;
    private final int[] repeatCount;
    private int[] maxLen = new int[0]; // per token id: longest repeat it would extend, plus one (0 = none)
    private final int[] touched;
    private int touchedCount;

    Dry(int contextSize, float multiplier, float base, int allowedLength, int penaltyLastN, List<int[]> breakers) {
        this.contextSize = Params.atLeast("dry", "contextSize", contextSize, 1);
        this.multiplier = Params.finite("dry", "multiplier", multiplier);
        this.base = Params.finite("dry", "base", base);
        this.allowedLength = Params.atLeast("dry", "allowedLength", allowedLength, 0);
        Params.atLeast("dry", "penaltyLastN", penaltyLastN, -1);
        this.lastN = penaltyLastN == -1 ? contextSize : penaltyLastN;
        this.enabled = multiplier != 0f && base >= 1f && penaltyLastN != 0;
        int cap = enabled ? lastN : 0;
        this.history = new TokenHistory(cap);
        this.repeatCount = new int[cap];
        this.touched = new int[cap];
        // Group the breakers by first token.
        List<int[]> list = new ArrayList<>();
        for (int[] b : breakers) {
            if (b.length == 0) {
                throw new SamplingException("sequenceBreakers", -1, "dry: a sequence breaker is empty");
            }
            list.add(b.clone());
        }
        this.heads = list.stream().mapToInt(b -> b[0]).sorted().distinct().toArray();
        this.tails = new int[heads.length][][];
        this.singleToken = new boolean[heads.length];
        for (int h = 0; h < heads.length; h++) {
            int head = heads[h];
            tails[h] = list.stream().filter(b -> b[0] == head).map(b -> Arrays.copyOfRange(b, 1, b.length))
                    .toArray(int[][]::new);
            for (int[] t : tails[h]) {
                singleToken[h] |= t.length == 0;
            }
        }
    }

    @Override
    public void accept(int token) {
        if (enabled) {
            history.push(token);
        }
    }

    @Override
    public void apply(Candidates c) {
        if (!enabled) {
            return;
        }
        int n = Math.min(Math.min(history.size(), lastN), contextSize);
        if (n <= allowedLength) {
            return;
        }
        int limit = restartLimit(n);
        if (limit < allowedLength) {
            return;
        }
        zRepeats(n, limit);
        for (int i = 0; i < n - 1; i++) {
            int len = repeatCount[i];
            if (len >= allowedLength) {
                int token = history.recent(n - 2 - i); // the token that followed this repeat
                if (token >= maxLen.length) {
                    maxLen = Arrays.copyOf(maxLen, Math.max(token + 1, 2 * maxLen.length));
                }
                if (maxLen[token] == 0) {
                    touched[touchedCount++] = token;
                }
                maxLen[token] = Math.max(maxLen[token], len + 1);
            }
        }
        int maxExponent = base > 1.000001f ? (int) (FLOAT_MAX_LOG / (float) Math.log(base)) : 0;
        for (int i = 0; i < c.size; i++) {
            int id = c.ids[i];
            if (id >= maxLen.length || maxLen[id] == 0) {
                continue;
            }
            int h = Arrays.binarySearch(heads, id);
            if (h >= 0 && singleToken[h]) {
                continue;
            }
            int exponent = maxLen[id] - 1 - allowedLength;
            if (maxExponent > 0 && exponent > maxExponent) {
                exponent = maxExponent;
            }
            c.logits[i] = (float) (c.logits[i] - multiplier * Math.pow(base, exponent));
        }
        for (int i = 0; i < touchedCount; i++) {
            maxLen[touched[i]] = 0;
        }
        touchedCount = 0;
        c.sorted = false;
    }

    /** Step 1: the distance back to the newest complete breaker, minus its length beyond the head; else n. */
    private int restartLimit(int n) {
        for (int i = 0; i < n; i++) {
            int h = Arrays.binarySearch(heads, history.recent(i));
            if (h < 0) {
                continue;
            }
            int longest = -1;
            for (int[] tail : tails[h]) {
                if (tail.length > longest && tail.length <= i && matches(tail, i)) {
                    longest = tail.length;
                }
            }
            if (longest >= 0) {
                return i - longest;
            }
        }
        return n;
    }

    private boolean matches(int[] tail, int i) {
        for (int o = 0; o < tail.length; o++) {
            if (tail[o] != history.recent(i - o - 1)) {
                return false;
            }
        }
        return true;
    }

    /** Step 2: {@code repeatCount[last − k]} = longest common suffix of the history and its prefix ending k back. */
    private void zRepeats(int n, int limit) {
        Arrays.fill(repeatCount, 0, n, 0);
        int last = n - 1;
        int rt = 0;
        int lt = 0;
        for (int k = 1; k < n; k++) {
            if (k > rt) {
                int len = 0;
                while (len + k < n && history.recent(len) == history.recent(len + k)) {
                    len++;
                }
                repeatCount[last - k] = Math.min(len, limit);
                if (len > 0) {
                    lt = k;
                    rt = k + len - 1;
                }
            } else {
                int pair = k - lt;
                int rightPart = rt - k + 1;
                if (repeatCount[last - pair] < rightPart) {
                    repeatCount[last - k] = Math.min(repeatCount[last - pair], limit);
                } else {
                    int i = rt + 1;
                    while (i < n && history.recent(i) == history.recent(i - k)) {
                        i++;
                    }
                    repeatCount[last - k] = Math.min(i - k, limit);
                    lt = k;
                    rt = i - 1;
                }
            }
        }
    }

    @Override
    public void reset() {
        history.clear();
    }

    @Override
    public String name() {
        return "dry";
    }
}
