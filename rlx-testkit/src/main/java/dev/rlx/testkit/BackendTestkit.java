package dev.rlx.testkit;

import dev.rlx.runtime.Session;
import dev.rlx.testkit.reference.ReferenceInterpreter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The op conformance suite for one backend: every case of the catalog, grouped by op family, compiled and run
 * on the backend's {@link Session} and compared with the {@link ReferenceInterpreter} (see
 * {@link ConformanceSuite}). A backend's test is a few lines:
 *
 * <pre>{@code
 * class CpuTestkitTest extends BackendTestkit {
 *     protected Session session() { return new Session(Device.CPU); }
 * }
 * }</pre>
 *
 * <p>The session is created once per test class, before the first case, and closed after the last. Random ops
 * are compared with the reference drawing from the session's default {@code RngOptions}. Override
 * {@link #skipReason} for cases the backend cannot run: each reports a skip with its reason.
 */
public abstract class BackendTestkit extends ConformanceSuite {
    private Session session;

    /** The session the cases compile with; called once per test class, and closed by the harness. */
    protected abstract Session session();

    @BeforeAll
    final void openSession() {
        session = session();
    }

    @AfterAll
    final void closeSession() {
        if (session != null) {
            session.close();
        }
    }

    @Override
    protected final GraphRunner runner() {
        return GraphRunner.of(session);
    }

    @Override
    protected final ReferenceInterpreter reference() {
        return new ReferenceInterpreter(session.defaults().rng());
    }
}
