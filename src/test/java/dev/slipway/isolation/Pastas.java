package dev.slipway.isolation;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The running pasta processes (Debian's runs as {@code passt.avx2}) of the networks in a run dir. */
final class Pastas {
    private Pastas() {}

    /**
     * By their executable, not their command line alone: a network is made by a root shell whose arguments name
     * pasta until it execs it, and a look at that moment must not count the shell.
     */
    static List<Long> of(Path runDir) {
        List<Long> out = new ArrayList<>();
        ProcessHandle.allProcesses().forEach(h -> {
            // a process being replaced at this moment can report "/" as its executable: a path without a name
            String exe = h.info().command().map(c -> Path.of(c).getFileName()).map(Path::toString).orElse("");
            String cmd = h.info().commandLine().orElse("");
            if ((exe.startsWith("pasta") || exe.startsWith("passt")) && cmd.contains("--netns " + runDir)) out.add(h.pid());
        });
        return out;
    }
}
