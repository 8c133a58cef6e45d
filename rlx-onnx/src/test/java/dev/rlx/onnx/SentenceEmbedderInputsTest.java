package dev.rlx.onnx;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A {@link SentenceEmbedder} needs a BERT-style encoder; another model is refused up front, naming its inputs. */
class SentenceEmbedderInputsTest {
    @Test
    void constructor_modelWithoutBertInputs_isRejected() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("pixels", 1, 1, 4).output("y", 1, 1, 4).node("Relu", List.of("pixels"), List.of("y"));
        OnnxModel model = OnnxModel.parse(b.build(), null);
        try (Session s = new Session(Device.CPU)) {
            OnnxImportException e = assertThrows(OnnxImportException.class,
                    () -> new SentenceEmbedder(model, MiniLm.FP32.tokenizer(), s));
            assertTrue(e.getMessage().contains("input_ids") && e.getMessage().contains("[pixels]"), e.getMessage());
        }
    }
}
