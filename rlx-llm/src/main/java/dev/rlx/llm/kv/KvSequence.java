package dev.rlx.llm.kv;

import java.util.Arrays;

/**
 * One sequence in a {@link PagedKvCache}: its id, how many tokens it holds and its block table (block
 * {@code i} holds tokens {@code [i*tokensPerBlock, (i+1)*tokensPerBlock)}). A handle, changed only through
 * its cache; once {@link PagedKvCache#free freed} every use of it is refused.
 */
public final class KvSequence {
    final long id;
    final PagedKvCache owner;
    int[] table; // (capacity >= blocks) block ids, grown by doubling
    int blocks;
    int length;
    boolean live = true;

    KvSequence(long id, PagedKvCache owner, int[] table, int blocks, int length) {
        this.id = id;
        this.owner = owner;
        this.table = table;
        this.blocks = blocks;
        this.length = length;
    }

    public long id() {
        return id;
    }

    /** Tokens held. */
    public int length() {
        return length;
    }

    /** Blocks in the table: {@code ceil(length / tokensPerBlock)}. */
    public int blockCount() {
        return blocks;
    }

    /** Block id at table index {@code i}. */
    public int block(int i) {
        if (i < 0 || i >= blocks) {
            throw new KvCacheException(KvCacheException.Reason.OUT_OF_RANGE,
                    "[KvSequence] sequence " + id + " has " + blocks + " blocks; no table entry " + i);
        }
        return table[i];
    }

    /** A copy of the block table. */
    public int[] blockTable() {
        return Arrays.copyOf(table, blocks);
    }

    /** False once the sequence has been freed. */
    public boolean isLive() {
        return live;
    }

    @Override
    public String toString() {
        return "KvSequence[id=" + id + ", length=" + length + ", blocks=" + blocks + (live ? "" : ", freed") + "]";
    }
}
