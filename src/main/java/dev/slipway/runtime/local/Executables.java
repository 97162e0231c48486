package dev.slipway.runtime.local;

import java.nio.file.Files;
import java.nio.file.Path;

/** Absolute paths of the system tools the runtime runs, so the server's PATH cannot substitute them. */
final class Executables {
    static final String SETSID = find("setsid");
    static final String KILL = find("kill");

    private Executables() {}

    private static String find(String name) {
        for (String dir : new String[]{"/usr/bin", "/bin", "/usr/sbin", "/sbin"}) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) return p.toString();
        }
        return name; // left to the PATH lookup; a missing tool fails loudly at the first start
    }
}
