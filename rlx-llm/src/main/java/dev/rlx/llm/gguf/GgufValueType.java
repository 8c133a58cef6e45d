package dev.rlx.llm.gguf;

/** The type tags of GGUF metadata values ({@code gguf_type} in ggml's {@code gguf.h}), with their on-disk ids. */
public enum GgufValueType {
    UINT8(0, 1),
    INT8(1, 1),
    UINT16(2, 2),
    INT16(3, 2),
    UINT32(4, 4),
    INT32(5, 4),
    FLOAT32(6, 4),
    BOOL(7, 1),
    STRING(8, 8),
    ARRAY(9, 12),
    UINT64(10, 8),
    INT64(11, 8),
    FLOAT64(12, 8);

    private static final GgufValueType[] BY_ID = values();

    private final int id;
    private final int minBytes;

    GgufValueType(int id, int minBytes) {
        this.id = id;
        this.minBytes = minBytes;
    }

    /** The id written in the file. */
    public int id() {
        return id;
    }

    /**
     * The fewest bytes one value of this type takes in a file (a string's length field, an array's element type
     * and count): a count of values is checked against the bytes left times this before anything is allocated.
     */
    int minBytes() {
        return minBytes;
    }

    /** Whether this is one of the eight integer types. */
    public boolean integer() {
        return switch (this) {
            case UINT8, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64 -> true;
            default -> false;
        };
    }

    /** The type with on-disk id {@code id}, or null. */
    static GgufValueType ofId(long id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[(int) id] : null;
    }
}
