package dev.rlx.onnx;

import com.google.protobuf.CodedOutputStream;
import dev.rlx.ir.Tensor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes small ONNX models for tests, field by field in the protobuf wire format (field numbers of
 * {@code onnx.proto}), so tests can build exactly the bytes they need, well-formed or not.
 */
final class OnnxModelBuilder {
    private final long opset;
    private final Graph graph = new Graph("test");

    OnnxModelBuilder(long opset) {
        this.opset = opset;
    }

    Graph graph() {
        return graph;
    }

    byte[] build() {
        return message(o -> {
            o.writeInt64(1, 8); // ir_version
            o.writeByteArray(7, graph.bytes());
            o.writeByteArray(8, message(q -> {
                q.writeString(1, "");
                q.writeInt64(2, opset);
            }));
        });
    }

    /** A graph (the main one or a subgraph). Dims are Integers or symbol Strings. */
    static final class Graph {
        private final String name;
        private final List<byte[]> nodes = new ArrayList<>();
        private final List<byte[]> inits = new ArrayList<>();
        private final List<byte[]> inputs = new ArrayList<>();
        private final List<byte[]> outputs = new ArrayList<>();

        Graph(String name) {
            this.name = name;
        }

        Graph input(String n, int elemType, Object... dims) {
            inputs.add(valueInfo(n, elemType, dims));
            return this;
        }

        Graph output(String n, int elemType, Object... dims) {
            outputs.add(valueInfo(n, elemType, dims));
            return this;
        }

        Graph initializer(String n, Tensor t) {
            inits.add(tensor(n, t));
            return this;
        }

        Graph initializerBytes(byte[] tensorProto) {
            inits.add(tensorProto);
            return this;
        }

        Graph node(String op, List<String> in, List<String> out, byte[]... attrs) {
            nodes.add(message(o -> {
                for (String s : in) {
                    o.writeString(1, s);
                }
                for (String s : out) {
                    o.writeString(2, s);
                }
                o.writeString(3, op + nodes.size());
                o.writeString(4, op);
                for (byte[] a : attrs) {
                    o.writeByteArray(5, a);
                }
            }));
            return this;
        }

        byte[] bytes() {
            return message(o -> {
                for (byte[] n : nodes) {
                    o.writeByteArray(1, n);
                }
                o.writeString(2, name);
                for (byte[] t : inits) {
                    o.writeByteArray(5, t);
                }
                for (byte[] i : inputs) {
                    o.writeByteArray(11, i);
                }
                for (byte[] i : outputs) {
                    o.writeByteArray(12, i);
                }
            });
        }
    }

    // ---------------------------------------------------------------- attributes

    static byte[] attrInt(String n, long v) {
        return message(o -> {
            o.writeString(1, n);
            o.writeInt64(3, v);
            o.writeInt32(20, 2);
        });
    }

    static byte[] attrFloat(String n, float v) {
        return message(o -> {
            o.writeString(1, n);
            o.writeFloat(2, v);
            o.writeInt32(20, 1);
        });
    }

    static byte[] attrInts(String n, long... v) {
        return message(o -> {
            o.writeString(1, n);
            for (long x : v) {
                o.writeInt64(8, x);
            }
            o.writeInt32(20, 7);
        });
    }

    static byte[] attrString(String n, String v) {
        return message(o -> {
            o.writeString(1, n);
            o.writeByteArray(4, v.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            o.writeInt32(20, 3);
        });
    }

    static byte[] attrTensor(String n, Tensor t) {
        return message(o -> {
            o.writeString(1, n);
            o.writeByteArray(5, tensor("", t));
            o.writeInt32(20, 4);
        });
    }

    static byte[] attrGraph(String n, Graph g) {
        return message(o -> {
            o.writeString(1, n);
            o.writeByteArray(6, g.bytes());
            o.writeInt32(20, 5);
        });
    }

    // ---------------------------------------------------------------- tensors and types

    /** A TensorProto holding {@code t} as raw_data. */
    static byte[] tensor(String n, Tensor t) {
        return message(o -> {
            for (int d : t.shape().dims()) {
                o.writeInt64(1, d);
            }
            o.writeInt32(2, OnnxTypes.code(t.dtype()));
            o.writeString(8, n);
            o.writeByteArray(9, t.bytes());
        });
    }

    /** A TensorProto with explicit dims, type and raw bytes, consistent or not. */
    static byte[] rawTensor(String n, int type, long[] dims, byte[] raw) {
        return message(o -> {
            for (long d : dims) {
                o.writeInt64(1, d);
            }
            o.writeInt32(2, type);
            o.writeString(8, n);
            o.writeByteArray(9, raw);
        });
    }

    /** A TensorProto whose data is external: {@code location}, {@code offset}, {@code length}. */
    static byte[] externalTensor(String n, int type, long[] dims, String location, long offset, long length) {
        return message(o -> {
            for (long d : dims) {
                o.writeInt64(1, d);
            }
            o.writeInt32(2, type);
            o.writeString(8, n);
            o.writeByteArray(13, entry("location", location));
            o.writeByteArray(13, entry("offset", Long.toString(offset)));
            o.writeByteArray(13, entry("length", Long.toString(length)));
            o.writeInt32(14, 1);
        });
    }

    private static byte[] entry(String k, String v) {
        return message(o -> {
            o.writeString(1, k);
            o.writeString(2, v);
        });
    }

    private static byte[] valueInfo(String n, int elemType, Object... dims) {
        return message(o -> {
            o.writeString(1, n);
            o.writeByteArray(2, message(t -> t.writeByteArray(1, message(tt -> {
                tt.writeInt32(1, elemType);
                tt.writeByteArray(2, message(s -> {
                    for (Object d : dims) {
                        s.writeByteArray(1, message(dd -> {
                            if (d instanceof String sym) {
                                dd.writeString(2, sym);
                            } else {
                                dd.writeInt64(1, ((Number) d).longValue());
                            }
                        }));
                    }
                }));
            }))));
        });
    }

    interface Body {
        void write(CodedOutputStream o) throws IOException;
    }

    static byte[] message(Body b) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream o = CodedOutputStream.newInstance(bytes);
            b.write(o);
            o.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
