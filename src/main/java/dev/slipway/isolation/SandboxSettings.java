package dev.slipway.isolation;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Where the sandbox finds what it runs on: the directories its tools are looked up in (never the server's
 * {@code PATH}), and the tun device its networks' pastas connect through.
 *
 * @param toolDirs  searched in order for bwrap, pasta, nft and the util-linux and coreutils tools ({@code SLIPWAY_SANDBOX_TOOLS})
 * @param tunDevice the tun character device ({@code SLIPWAY_SANDBOX_TUN})
 */
public record SandboxSettings(List<Path> toolDirs, Path tunDevice) {
    public static final Setting TOOLS = Setting.env("SLIPWAY_SANDBOX_TOOLS",
            "`/usr/bin:/bin:/usr/sbin:/sbin:/usr/local/bin:/usr/local/sbin`",
            "the directories the sandbox's tools (bwrap, pasta, nft, setpriv, nsenter, unshare, mount, mknod, …) are "
                    + "looked up in, in order; never the server's `PATH`");
    public static final Setting TUN_DEVICE = Setting.env("SLIPWAY_SANDBOX_TUN", "`/dev/net/tun`",
            "the tun device the cells' pastas connect through; where it is not open to every user, or is elsewhere, each "
                    + "pasta gets a node of that device of its own ([Isolation](#isolation-tenants-are-hostile))");
    public static final Path TUN = Path.of("/dev/net/tun");
    public static final SandboxSettings DEFAULTS = new SandboxSettings(
            List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin").stream().map(Path::of).toList(), TUN);

    public SandboxSettings {
        toolDirs = List.copyOf(toolDirs);
        for (Path d : toolDirs) {
            if (!d.isAbsolute()) throw new IllegalArgumentException(TOOLS.variable() + ": " + d + " is not an absolute path");
        }
        if (!tunDevice.isAbsolute()) {
            throw new IllegalArgumentException(TUN_DEVICE.variable() + ": " + tunDevice + " is not an absolute path");
        }
    }

    /** Unset or blank variables keep the defaults; a relative path is an {@link IllegalArgumentException} that names its variable. */
    public static SandboxSettings fromEnv(Env env) {
        List<Path> dirs = env.text(TOOLS).map(v -> Arrays.stream(v.split(":")).filter(d -> !d.isBlank())
                .map(d -> Path.of(d.strip())).toList()).orElse(DEFAULTS.toolDirs);
        return new SandboxSettings(dirs, env.text(TUN_DEVICE).map(Path::of).orElse(TUN));
    }
}
