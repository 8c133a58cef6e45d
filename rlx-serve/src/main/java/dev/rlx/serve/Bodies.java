package dev.rlx.serve;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Request bodies read with a size bound: a declared or actual length over the limit is a 413, never a buffer. */
final class Bodies {
    private Bodies() {}

    static byte[] read(ServerRequest req, long limit) {
        long declared = req.headers().first(HeaderNames.CONTENT_LENGTH).map(Bodies::parseLength).orElse(-1L);
        if (declared > limit) {
            throw ApiError.tooLarge("the request body has " + declared + " bytes, more than this server's limit of " + limit);
        }
        try (InputStream in = req.content().inputStream()) {
            // limit + 1 bytes at most: one more than allowed proves the body too long without reading it all
            byte[] b = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limit + 1));
            if (b.length > limit) {
                throw ApiError.tooLarge("the request body is more than this server's limit of " + limit + " bytes");
            }
            return b;
        } catch (IOException | UncheckedIOException e) {
            throw ApiError.invalid("the request body could not be read: " + e.getMessage(), null);
        }
    }

    private static long parseLength(String v) {
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw ApiError.invalid("Content-Length is not a number: " + v, null);
        }
    }
}
