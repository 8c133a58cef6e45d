package dev.rlx.serve;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.helidon.webserver.http.ServerResponse;

/** {@code POST /v1/completions} and {@code /v1/chat/completions} over a generation model. */
interface CompletionsEndpoint {
    /** The id the model is served as. */
    String modelId();

    /** Answers one request, streamed as server-sent events when it asks so; refusals throw {@link ApiError}. */
    void complete(ObjectNode body, ServerResponse res, boolean chat) throws InterruptedException;

    /** Cancels every generation still running (graceful shutdown, after the grace period). */
    void cancelAll();
}
