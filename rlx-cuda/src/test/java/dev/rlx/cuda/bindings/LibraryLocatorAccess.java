package dev.rlx.cuda.bindings;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Test access to the locator's default folder list for a given environment. */
public final class LibraryLocatorAccess {
    private LibraryLocatorAccess() {}

    public static List<Path> defaultFolders(Map<String, String> env) {
        return LibraryLocator.defaultFolders(env);
    }
}
