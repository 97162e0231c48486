package dev.slipway.isolation;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How a cell's environment (the tenant's own variables) reaches its program without touching anything that
 * runs as root. The tools that set the cell up run as root with nothing but {@code PATH}: a tenant's
 * {@code LD_PRELOAD=./evil.so} in their environment would have loaded the tenant's code into them. The
 * environment goes to bubblewrap on its standard input ({@code --args 0}: never on a command line, which every
 * user of the host may read), and the variables that glibc's loader or libc act on are held under another
 * name while setpriv (root inside the cell) drops to the project's uid; a shell running as that uid puts
 * them back before it execs the program.
 */
final class CellEnvironment {
    /** The launchers' whole environment. */
    static final Map<String, String> LAUNCHER = Map.of("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    static final String HELD = "SLIPWAY_HELD_";
    /** glibc's list of variables it ignores in privileged programs (and the prefixes of its families). */
    private static final Set<String> UNSAFE = Set.of("GCONV_PATH", "GETCONF_DIR", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH",
            "NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR", "TZDIR", "TZ");
    private static final List<String> UNSAFE_PREFIXES = List.of("LD_", "MALLOC_", "GLIBC_");

    private CellEnvironment() {}

    static boolean held(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        return UNSAFE.contains(upper) || UNSAFE_PREFIXES.stream().anyMatch(upper::startsWith);
    }

    /** bubblewrap's {@code --args} input: a clean environment with the cell's variables, unsafe ones held. */
    static byte[] bwrapArgs(Map<String, String> env) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        arg(out, "--clearenv");
        for (var e : env.entrySet()) {
            if (e.getKey().indexOf('\0') >= 0 || e.getValue().indexOf('\0') >= 0 || e.getKey().indexOf('=') >= 0) {
                throw new IllegalArgumentException("an environment variable holds a NUL or its name an '='");
            }
            arg(out, "--setenv");
            arg(out, held(e.getKey()) ? HELD + e.getKey() : e.getKey());
            arg(out, e.getValue());
        }
        return out.toByteArray();
    }

    /**
     * What runs the program once setpriv has dropped to the project's uid: a shell that puts the held
     * variables back (empty when none is held). Names only, never values, are part of the script.
     */
    static List<String> restorer(Path sh, Map<String, String> env) {
        StringBuilder script = new StringBuilder();
        for (String name : env.keySet()) {
            if (!held(name)) continue;
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) throw new IllegalArgumentException("bad variable name " + name);
            script.append("export ").append(name).append("=\"$").append(HELD).append(name).append("\"; unset ")
                    .append(HELD).append(name).append("; ");
        }
        if (script.isEmpty()) return List.of();
        script.append("exec \"$@\"");
        return new ArrayList<>(List.of(sh.toString(), "-c", script.toString(), "sh"));
    }

    private static void arg(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        out.write(0);
    }
}
