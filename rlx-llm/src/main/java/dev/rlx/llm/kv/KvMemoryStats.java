package dev.rlx.llm.kv;

/**
 * A snapshot of how a {@link PagedKvCache} uses its blocks.
 *
 * @param usedBlocks blocks referenced by at least one sequence
 * @param freeBlocks blocks free for allocation
 * @param sharedBlocks used blocks referenced by more than one sequence
 * @param allocatedTokenSlots {@code usedBlocks * tokensPerBlock}
 * @param filledTokenSlots token slots holding data, each shared block counted once
 * @param ramResidentBlocks used blocks whose bytes are in process memory
 * @param spilledBlocks used blocks whose bytes are in the spill file
 * @param demotions blocks moved from RAM to the spill file since the cache opened
 * @param ramPoolBytes bytes of the RAM pools (all layers), allocated up front
 * @param filePoolBytes bytes of the mapped spill pools (all layers)
 */
public record KvMemoryStats(int usedBlocks, int freeBlocks, int sharedBlocks, long allocatedTokenSlots,
                            long filledTokenSlots, int ramResidentBlocks, int spilledBlocks, long demotions,
                            long ramPoolBytes, long filePoolBytes) {
    /** Allocated minus filled token slots: the internal fragmentation of the last block of each sequence. */
    public long wastedTokenSlots() {
        return allocatedTokenSlots - filledTokenSlots;
    }

    /** {@link #wastedTokenSlots()} as a fraction of the allocated slots; 0 when nothing is allocated. */
    public double wasteFraction() {
        return allocatedTokenSlots == 0 ? 0 : (double) wastedTokenSlots() / allocatedTokenSlots;
    }
}
