package dev.slipway.pushes;

import dev.slipway.core.Ids;
import dev.slipway.projects.ProjectChanges;
import dev.slipway.projects.ProjectGitStore;
import dev.slipway.secrets.SecretBox;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Each project's push webhook (its id and sealed secret in {@code project_git}) and the deliveries it accepted, and its
 * deploy hook (the SHA-256 of its token).
 */
public final class PushHookStore {
    /** How long a delivery id is remembered as received: a replay within it is refused. */
    public static final Duration DELIVERY_MEMORY = Duration.ofDays(90);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Jdbi jdbi;
    private final SecretBox secrets;
    private final Clock clock;
    private final Ids ids;
    private final ProjectChanges changes;

    /** A project's push webhook: {@code secret} verifies what the git host signs. */
    public record Hook(String id, String projectId, String secret, Instant createdAt) {
        @Override
        public String toString() {
            return "Hook[id=" + id + ", projectId=" + projectId + ", secret=***]";
        }
    }

    /** @param changes told of a project whose webhook changed (its read shows the webhook's URL) */
    public PushHookStore(Jdbi jdbi, SecretBox secrets, Clock clock, ProjectChanges changes) {
        this.changes = changes;
        this.jdbi = jdbi;
        this.secrets = secrets;
        this.clock = clock;
        this.ids = new Ids(clock);
    }

    /** A new id and secret for the project's webhook: the previous URL and secret stop working at once. */
    public Hook rotate(String projectId) {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        Hook hook = new Hook(ids.next("gwh"), projectId, HexFormat.of().formatHex(key), clock.instant());
        jdbi.useTransaction(h -> {
            ProjectGitStore.lockRow(h, projectId);
            h.createUpdate("""
                            DELETE FROM git_push_deliveries
                            WHERE webhook_id = (SELECT webhook_id FROM project_git WHERE project_id = :p)""")
                    .bind("p", projectId).execute();
            h.createUpdate("""
                            UPDATE project_git SET webhook_id = :id, webhook_secret_enc = :secret, webhook_created_at = :at
                            WHERE project_id = :p""")
                    .bind("id", hook.id()).bind("secret", secrets.encrypt(hook.secret())).bind("at", hook.createdAt())
                    .bind("p", projectId).execute();
            changes.changedAfterCommit(h, projectId);
        });
        return hook;
    }

    /** A new deploy hook token for the project (the previous one stops working); only its SHA-256 is kept. */
    public String rotateDeployHook(String projectId) {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        String token = "dh_" + Base64.getUrlEncoder().withoutPadding().encodeToString(key);
        jdbi.useTransaction(h -> {
            ProjectGitStore.lockRow(h, projectId);
            h.createUpdate("UPDATE project_git SET deploy_hook_hash = :hash WHERE project_id = :p")
                    .bind("hash", sha256(token)).bind("p", projectId).execute();
        });
        return token;
    }

    /** The project whose deploy hook {@code token} is. */
    public Optional<String> deployHookProject(String token) {
        return jdbi.withHandle(h -> h.createQuery("SELECT project_id FROM project_git WHERE deploy_hook_hash = :hash")
                .bind("hash", sha256(token)).mapTo(String.class).findOne());
    }

    private static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    public Optional<Hook> find(String hookId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT project_id, webhook_secret_enc, webhook_created_at FROM project_git WHERE webhook_id = :id""")
                .bind("id", hookId)
                .map((rs, ctx) -> new Hook(hookId, rs.getString(1), secrets.decrypt(rs.getString(2)),
                        rs.getTimestamp(3).toInstant()))
                .findOne());
    }

    /**
     * Records a delivery the first time its id is seen; false when it was seen before (a replay). Deliveries older
     * than {@link #DELIVERY_MEMORY} are forgotten here.
     */
    public boolean firstDelivery(String hookId, String deliveryId) {
        Instant now = clock.instant();
        try {
            return jdbi.inTransaction(h -> {
                h.createUpdate("DELETE FROM git_push_deliveries WHERE received_at < :before")
                        .bind("before", now.minus(DELIVERY_MEMORY)).execute();
                return h.createUpdate("""
                                INSERT INTO git_push_deliveries (webhook_id, delivery_id, received_at)
                                SELECT :hook, :delivery, :at
                                WHERE NOT EXISTS (SELECT 1 FROM git_push_deliveries WHERE webhook_id = :hook AND delivery_id = :delivery)""")
                        .bind("hook", hookId).bind("delivery", deliveryId).bind("at", now).execute() == 1;
            });
        } catch (JdbiException e) {
            // the same delivery inserted at the same moment by another request: the key refuses the second
            if (jdbi.withHandle(h -> h.createQuery("""
                            SELECT COUNT(*) FROM git_push_deliveries WHERE webhook_id = :hook AND delivery_id = :delivery""")
                    .bind("hook", hookId).bind("delivery", deliveryId).mapTo(Integer.class).one()) > 0) {
                return false;
            }
            throw e;
        }
    }
}
