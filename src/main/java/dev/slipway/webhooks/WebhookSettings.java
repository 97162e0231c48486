package dev.slipway.webhooks;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;
import dev.slipway.core.SettingDurations;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Operator settings of webhook delivery.
 *
 * @param allowPrivate deliver to loopback, private and link-local addresses too ({@code SLIPWAY_WEBHOOKS_ALLOW_PRIVATE})
 * @param retries      the delays before each retry after a failed attempt ({@code SLIPWAY_WEBHOOKS_RETRY_SCHEDULE});
 *                     when they are used up the delivery has failed
 */
public record WebhookSettings(boolean allowPrivate, List<Duration> retries) {
    /** About 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (each with jitter): ten attempts over ~3 days. */
    public static final List<Duration> DEFAULT_RETRIES = List.of(Duration.ofSeconds(5), Duration.ofMinutes(5),
            Duration.ofMinutes(30), Duration.ofHours(2), Duration.ofHours(5), Duration.ofHours(10), Duration.ofHours(14),
            Duration.ofHours(20), Duration.ofHours(24));
    public static final Setting ALLOW_PRIVATE = Setting.flag("--webhooks-allow-private", "SLIPWAY_WEBHOOKS_ALLOW_PRIVATE", "`false`",
            "let webhook endpoints target loopback, private and link-local addresses (refused otherwise, at creation and "
                    + "at every connection a delivery opens). Webhooks only: a database `connect` URL follows `SLIPWAY_EGRESS_ALLOW`");
    public static final Setting RETRY_SCHEDULE = Setting.env("SLIPWAY_WEBHOOKS_RETRY_SCHEDULE",
            "`5,PT5M,PT30M,PT2H,PT5H,PT10H,PT14H,PT20H,PT24H`",
            "delays between webhook attempts (seconds, `200ms` or ISO-8601; ±20 % jitter); the tests shorten them");
    public static final WebhookSettings DEFAULTS = new WebhookSettings(false, DEFAULT_RETRIES);

    public WebhookSettings {
        retries = List.copyOf(retries);
        if (retries.isEmpty() || retries.size() > 20) throw new IllegalArgumentException("the retry schedule needs 1 to 20 delays");
    }

    public WebhookSettings withAllowPrivate(boolean allow) {
        return new WebhookSettings(allow, retries);
    }

    /** What the environment sets over {@code base}; a bad value names its variable. */
    public static WebhookSettings fromEnv(WebhookSettings base, Env env) {
        return new WebhookSettings(env.bool(ALLOW_PRIVATE, base.allowPrivate),
                env.text(RETRY_SCHEDULE).map(WebhookSettings::parseSchedule).orElse(base.retries));
    }

    /** Comma-separated delays: seconds ({@code 5}), milliseconds ({@code 200ms}) or ISO-8601 ({@code PT5M}). */
    public static List<Duration> parseSchedule(String raw) {
        List<Duration> out = new ArrayList<>();
        for (String part : raw.split(",")) {
            out.add(SettingDurations.parse(RETRY_SCHEDULE.variable(), part));
        }
        if (out.isEmpty() || out.size() > 20) throw new IllegalArgumentException(RETRY_SCHEDULE.variable() + " needs 1 to 20 delays");
        return out;
    }
}
