package dev.slipway.config;

import dev.slipway.core.Setting;
import dev.slipway.isolation.IsolationMode;
import dev.slipway.isolation.SandboxSettings;
import dev.slipway.net.EgressAllow;

/**
 * How tenants' apps and builds are confined.
 *
 * @param mode         sandbox apps and builds, or not; AUTO: when the tools are there
 * @param warmNetworks sandbox networks kept ready per kind, so that a start does not wait for one
 * @param sandbox      where the sandbox's tools are looked up, and its tun device
 * @param egressAllow  private, shared or reserved addresses apps and builds may reach all the same
 */
public record IsolationSettings(IsolationMode mode, int warmNetworks, SandboxSettings sandbox, EgressAllow egressAllow) {
    public static final int DEFAULT_WARM_NETWORKS = 1;
    public static final Setting ISOLATION = Setting.flag("--isolation", "SLIPWAY_ISOLATION", "`auto`",
            "`auto`: the sandbox when its start check runs a real cell ([Isolation](#isolation-tenants-are-hostile)); "
                    + "otherwise the server fails closed: it serves only its first account (the operator's own), **not "
                    + "isolated**, and refuses every other account, and keys and dashboard users for them, with the part "
                    + "that failed and the command that fixes it (`apt-get install bubblewrap passt nftables` on a bare "
                    + "machine). `sandbox`: the sandbox is required; the server does not start without it and says why. "
                    + "`none`: the operator's choice, plain processes of the server for every account, **not isolated**. "
                    + "Whenever apps are not isolated the server says so at start, in `/healthz` and `/readyz`, on every "
                    + "dashboard page and in every deployment log");
    public static final Setting WARM_NETWORKS = Setting.env("SLIPWAY_SANDBOX_WARM_NETWORKS", "`1`",
            "cell networks the sandbox keeps ready of each kind (apps, build steps), so that a start does not wait for "
                    + "one; `0` makes each on demand ([Isolation](#isolation-tenants-are-hostile))");

    public IsolationSettings {
        if (mode == null) mode = IsolationMode.AUTO;
        if (warmNetworks < 0 || warmNetworks > 16) throw new IllegalArgumentException("warm networks must be from 0 to 16");
        if (sandbox == null) sandbox = SandboxSettings.DEFAULTS;
        if (egressAllow == null) egressAllow = EgressAllow.NONE;
    }
}
