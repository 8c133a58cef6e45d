package dev.rlx.serve;

import dev.rlx.ir.RlxException;

/**
 * A request the server refuses, as the OpenAI API reports it: an HTTP status and an error object
 * {@code {"error": {"message", "type", "param", "code"}}}. Handlers throw it; the server's error handler writes
 * it, so no refusal ever reaches the client as a bare 500.
 */
public final class ApiError extends RlxException {
    private final int status;
    private final String type;
    private final String param;
    private final String code;
    private final long retryAfterSeconds;

    private ApiError(int status, String type, String message, String param, String code, long retryAfterSeconds) {
        super(message);
        this.status = status;
        this.type = type;
        this.param = param;
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** 400: the request is malformed or names a value out of range; {@code param} is the field (or null). */
    public static ApiError invalid(String message, String param) {
        return new ApiError(400, "invalid_request_error", message, param, null, 0);
    }

    /** 400 with an OpenAI error code, e.g. {@code context_length_exceeded}. */
    public static ApiError invalid(String message, String param, String code) {
        return new ApiError(400, "invalid_request_error", message, param, code, 0);
    }

    /** 401: no API key or the wrong one. */
    public static ApiError unauthorized(String message) {
        return new ApiError(401, "invalid_request_error", message, null, "invalid_api_key", 0);
    }

    /** 404: an unknown model or path. */
    public static ApiError notFound(String message, String param, String code) {
        return new ApiError(404, "invalid_request_error", message, param, code, 0);
    }

    /** 413: the request body is over the server's limit. */
    public static ApiError tooLarge(String message) {
        return new ApiError(413, "invalid_request_error", message, null, "request_too_large", 0);
    }

    /** 429: the queue is full; the client should retry after {@code seconds}. */
    public static ApiError overloaded(String message, long seconds) {
        return new ApiError(429, "rate_limit_error", message, null, "queue_full", seconds);
    }

    /** 503: the server is shutting down. */
    public static ApiError unavailable(String message) {
        return new ApiError(503, "server_error", message, null, "shutting_down", 0);
    }

    /** 500: the model failed while running a request that was valid. */
    public static ApiError internal(String message) {
        return new ApiError(500, "server_error", message, null, null, 0);
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    /** The request field at fault, or null. */
    public String param() {
        return param;
    }

    /** The OpenAI error code, or null. */
    public String code() {
        return code;
    }

    /** Seconds for {@code Retry-After}; 0 when the answer carries none. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
