package dev.slipway.isolation;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;
import dev.slipway.net.Cidr;
import dev.slipway.net.NonPublic;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Where the sandbox finds what it runs on: the directories its tools are looked up in (never the server's
 * {@code PATH}), and the tun device its networks' pastas connect through.
 *
 * @param toolDirs  searched in order for bwrap, pasta, nft and the util-linux and coreutils tools ({@code SLIPWAY_SANDBOX_TOOLS})
 * @param tunDevice the tun character device ({@code SLIPWAY_SANDBOX_TUN})
 * @param cellNetwork the private IPv4 range the cells' veth pairs take their /30s from ({@code SLIPWAY_SANDBOX_CELL_NET})
 */
public record SandboxSettings(List<Path> toolDirs, Path tunDevice, Cidr cellNetwork) {
    public static final Setting TOOLS = Setting.env("SLIPWAY_SANDBOX_TOOLS",
            "`/usr/bin:/bin:/usr/sbin:/sbin:/usr/local/bin:/usr/local/sbin`",
            "the directories the sandbox's tools (bwrap, pasta, nft, setpriv, nsenter, unshare, mount, mknod, …) are "
                    + "looked up in, in order; never the server's `PATH`");
    public static final Setting TUN_DEVICE = Setting.env("SLIPWAY_SANDBOX_TUN", "`/dev/net/tun`",
            "the tun device the cells' pastas connect through; where it is not open to every user, or is elsewhere, each "
                    + "pasta gets a node of that device of its own ([Isolation](#isolation-tenants-are-hostile))");
    public static final Setting CELL_NET = Setting.env("SLIPWAY_SANDBOX_CELL_NET", "`10.203.0.0/16`",
            "the private IPv4 range (a /28 or larger) whose /30s join each serving cell to the host by a veth pair: the "
                    + "way in to its app ([Isolation](#isolation-tenants-are-hostile)); every cell's firewall refuses all of it. "
                    + "Pick a range no network of this machine uses");
    public static final Path TUN = Path.of("/dev/net/tun");
    public static final Cidr CELL_NETWORK = Cidr.parse("10.203.0.0/16");
    public static final SandboxSettings DEFAULTS = new SandboxSettings(
            List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin").stream().map(Path::of).toList(), TUN,
            CELL_NETWORK);

    public SandboxSettings {
        toolDirs = List.copyOf(toolDirs);
        for (Path d : toolDirs) {
            if (!d.isAbsolute()) throw new IllegalArgumentException(TOOLS.variable() + ": " + d + " is not an absolute path");
        }
        if (!tunDevice.isAbsolute()) {
            throw new IllegalArgumentException(TUN_DEVICE.variable() + ": " + tunDevice + " is not an absolute path");
        }
        if (!cellNetwork.family().equals("ip") || cellNetwork.prefix() > 28
                || NonPublic.RANGES.stream().noneMatch(r -> r.kind().equals("private") && r.cidr().contains(cellNetwork))) {
            throw new IllegalArgumentException(CELL_NET.variable() + ": " + cellNetwork
                    + " is not a private IPv4 range of at least 16 addresses (10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16)");
        }
    }

    /** Unset or blank variables keep the defaults; a relative path is an {@link IllegalArgumentException} that names its variable. */
    public static SandboxSettings fromEnv(Env env) {
        List<Path> dirs = env.text(TOOLS).map(v -> Arrays.stream(v.split(":")).filter(d -> !d.isBlank())
                .map(d -> Path.of(d.strip())).toList()).orElse(DEFAULTS.toolDirs);
        Cidr cells;
        try {
            cells = env.text(CELL_NET).map(Cidr::parse).orElse(CELL_NETWORK);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(CELL_NET.variable() + ": " + e.getMessage());
        }
        return new SandboxSettings(dirs, env.text(TUN_DEVICE).map(Path::of).orElse(TUN), cells);
    }
}
