package dev.rlx.onnx;

import dev.rlx.ir.RlxException;
import dev.rlx.ir.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads a serialized {@code TensorProto} file (the {@code input_0.pb} files of ONNX test data). */
public final class OnnxTensorFile {
    private OnnxTensorFile() {}

    /**
     * @throws OnnxFormatException when the file is malformed
     * @throws OnnxUnsupportedException when its element type is not supported (strings, UINT16, ...)
     */
    public static Tensor read(Path file) {
        byte[] bytes;
        try {
            if (!Files.isRegularFile(file)) { // a FIFO or device would block or never end
                throw new OnnxFormatException(file.toString(), "not a regular file");
            }
            if (Files.size(file) > OnnxModel.MAX_FILE_BYTES) {
                throw new OnnxFormatException(file.toString(), "the file is larger than 2 GiB");
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new OnnxFormatException(file.toString(), "cannot read the file: " + e.getMessage(), e);
        }
        try {
            return TensorDecoder.decode(OnnxProto.parseTensor(bytes, file.getFileName().toString()), null,
                    dev.rlx.ir.limits.Limits.defaults());
        } catch (RlxException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new OnnxFormatException(file.toString(), "cannot parse (" + e + ")", e);
        }
    }
}
