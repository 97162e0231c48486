package dev.slipway.isolation;

import java.io.IOException;

/**
 * Why the sandbox does not work on this machine: the part that failed, what it said, and the command that
 * fixes it.
 */
public record SandboxProblem(String part, String detail, String fix) {
    static final String TUN_PART = "network (the tun device)";
    static final String TUN_FIX = "modprobe tun, and make /dev/net/tun the character device 10:200 (mknod -m 0666 "
            + "/dev/net/tun c 10 200); in a container, pass the device in (docker run --device /dev/net/tun)";

    /** One line: the part, what went wrong, and the fix. */
    public String message() {
        return part + ": " + detail + "; fix: " + fix;
    }

    /** The warning a server without a working sandbox gives everywhere (it starts as {@link Confinement#NOT_ISOLATED} does). */
    public String warning() {
        return "WARNING: apps are not isolated on this server: it has no working sandbox (" + part + ": " + detail + "). "
                + "It serves only its first account until the sandbox works: " + fix + ", then restart it; or start it "
                + "with --isolation=none to serve every account NOT isolated";
    }

    /** Why another account, or a key or user for one, is refused. */
    public String refusal() {
        return "This server has no working sandbox (" + part + ": " + detail + "), so it serves only its first account: "
                + "another account's apps would run NOT isolated, as the server's own user. Fix: " + fix
                + ", then restart the server; or start it with --isolation=none to serve every account NOT isolated.";
    }

    static SandboxProblem cgroups(String detail) {
        return new SandboxProblem("cgroups", detail, "mount the memory, cpu and pids controllers writable under /sys/fs/cgroup "
                + "(in a container: --cgroupns=host with /sys/fs/cgroup mounted read-write)");
    }

    static SandboxProblem tun(String detail) {
        return new SandboxProblem(TUN_PART, detail, TUN_FIX);
    }

    static SandboxProblem network(String detail) {
        return new SandboxProblem("network (pasta)", detail, "check that `unshare --net true` and `pasta --config-net -- true` run as root");
    }

    static SandboxProblem firewall(String detail) {
        return new SandboxProblem("firewall (nftables)", detail, "modprobe nf_tables (and in a container, give it CAP_NET_ADMIN)");
    }

    static SandboxProblem cell(String detail) {
        return new SandboxProblem("cell (bubblewrap, setpriv)", detail,
                "check that `bwrap --ro-bind / / --unshare-pid --unshare-ipc --unshare-uts --unshare-net true` runs as root");
    }

    /** A step of a cell's set-up that failed, with the part it names. */
    static final class Failure extends IOException {
        private final SandboxProblem problem;

        Failure(SandboxProblem problem, Throwable cause) {
            super(problem.part() + ": " + problem.detail(), cause);
            this.problem = problem;
        }

        SandboxProblem problem() {
            return problem;
        }
    }
}
