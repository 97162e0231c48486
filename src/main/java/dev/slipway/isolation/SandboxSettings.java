package dev.slipway.isolation;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where the sandbox finds what it runs on: the directories its tools are looked up in (never the server's
 * {@code PATH}), and the tun device its networks' pastas connect through.
 *
 * @param toolDirs  searched in order for bwrap, pasta, nft and the util-linux and coreutils tools ({@code SLIPWAY_SANDBOX_TOOLS})
 * @param tunDevice the tun character device ({@code SLIPWAY_SANDBOX_TUN})
 */
public record SandboxSettings(List<Path> toolDirs, Path tunDevice) {
    public static final String TOOLS_VARIABLE = "SLIPWAY_SANDBOX_TOOLS";
    public static final String TUN_VARIABLE = "SLIPWAY_SANDBOX_TUN";
    public static final Path TUN = Path.of("/dev/net/tun");
    public static final SandboxSettings DEFAULTS = new SandboxSettings(
            List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin").stream().map(Path::of).toList(), TUN);

    public SandboxSettings {
        toolDirs = List.copyOf(toolDirs);
        for (Path d : toolDirs) if (!d.isAbsolute()) throw new IllegalArgumentException(TOOLS_VARIABLE + ": " + d + " is not an absolute path");
        if (!tunDevice.isAbsolute()) throw new IllegalArgumentException(TUN_VARIABLE + ": " + tunDevice + " is not an absolute path");
    }

    /** Unset or blank variables keep the defaults; a relative path is an {@link IllegalArgumentException} that names its variable. */
    public static SandboxSettings fromEnv(Map<String, String> env) {
        String tools = env.get(TOOLS_VARIABLE);
        String tun = env.get(TUN_VARIABLE);
        List<Path> dirs = new ArrayList<>();
        if (tools != null) {
            for (String d : tools.split(":")) if (!d.isBlank()) dirs.add(Path.of(d.strip()));
        }
        return new SandboxSettings(tools == null || tools.isBlank() ? DEFAULTS.toolDirs : dirs,
                tun == null || tun.isBlank() ? TUN : Path.of(tun.strip()));
    }
}
