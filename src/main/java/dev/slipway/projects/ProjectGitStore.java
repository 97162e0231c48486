package dev.slipway.projects;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.slipway.core.Json;
import dev.slipway.secrets.SecretBox;
import dev.slipway.source.GitCredentials;
import dev.slipway.source.SshKeys;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The git settings of projects (table {@code project_git}): credentials sealed, watch paths, the push webhook's id. */
public final class ProjectGitStore {
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {};
    private static final RowMapper<ProjectGit> SHOWN = (rs, ctx) -> {
        var created = rs.getTimestamp("webhook_created_at");
        return new ProjectGit(rs.getString("credential_type"), rs.getString("username"), rs.getString("ssh_public_key"),
                paths(rs.getString("watch_paths")), rs.getString("webhook_id"), created == null ? null : created.toInstant(),
                rs.getString("deploy_on_push"), !Boolean.FALSE.equals(rs.getObject("commit_statuses", Boolean.class)));
    };

    private final Jdbi jdbi;
    private final SecretBox secrets;

    public ProjectGitStore(Jdbi jdbi, SecretBox secrets) {
        this.jdbi = jdbi;
        this.secrets = secrets;
    }

    public Jdbi jdbi() {
        return jdbi;
    }

    /** Applies what the request names (credentials, watch paths, what pushes deploy, statuses) inside the caller's transaction. */
    public void apply(Handle h, String projectId, GitInput input) {
        if (!input.any()) return;
        ensureRow(h, projectId);
        if (input.credentialsGiven()) {
            GitInput.Credentials c = input.credentials();
            // a deploy key is made anew each time one is asked for: asking again rotates it
            SshKeys.Generated key = c != null && GitInput.Credentials.SSH.equals(c.type()) ? SshKeys.generate("slipway-" + projectId) : null;
            String secret = c == null ? null : key != null ? key.privateKey() : c.token();
            h.createUpdate("""
                            UPDATE project_git SET credential_type = :type, username = :user, secret_enc = :secret,
                                                   ssh_public_key = :public
                            WHERE project_id = :p""")
                    .bind("type", c == null ? null : c.type()).bind("user", c == null ? null : c.username())
                    .bind("secret", secret == null ? null : secrets.encrypt(secret))
                    .bind("public", key == null ? null : key.publicKey())
                    .bind("p", projectId).execute();
        }
        if (input.deployOnPush() != null) {
            h.createUpdate("UPDATE project_git SET deploy_on_push = :on WHERE project_id = :p")
                    .bind("on", input.deployOnPush()).bind("p", projectId).execute();
        }
        if (input.commitStatuses() != null) {
            h.createUpdate("UPDATE project_git SET commit_statuses = :on WHERE project_id = :p")
                    .bind("on", input.commitStatuses()).bind("p", projectId).execute();
        }
        if (input.watchPaths() != null) {
            h.createUpdate("UPDATE project_git SET watch_paths = :paths WHERE project_id = :p")
                    .bind("paths", input.watchPaths().isEmpty() ? null : Json.write(input.watchPaths()))
                    .bind("p", projectId).execute();
        }
    }

    /** Locks the project's row for the caller's transaction and makes its git row when it has none. */
    public static void lockRow(Handle h, String projectId) {
        h.createQuery("SELECT id FROM projects WHERE id = :p FOR UPDATE").bind("p", projectId).mapTo(String.class).one();
        ensureRow(h, projectId);
    }

    /** The row of the project, made empty when it has none; the caller holds the project's row lock or may race. */
    private static void ensureRow(Handle h, String projectId) {
        h.createUpdate("""
                        INSERT INTO project_git (project_id) SELECT :p
                        WHERE NOT EXISTS (SELECT 1 FROM project_git WHERE project_id = :p)""")
                .bind("p", projectId).execute();
    }

    /** The project's credentials with their secret (a token, a deploy key), for a fetch; never for a response. */
    public Optional<GitCredentials> credentials(String projectId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT credential_type, username, secret_enc FROM project_git
                        WHERE project_id = :p AND credential_type IS NOT NULL AND secret_enc IS NOT NULL""")
                .bind("p", projectId)
                .map((rs, ctx) -> {
                    String secret = secrets.decrypt(rs.getString(3));
                    return GitInput.Credentials.SSH.equals(rs.getString(1)) ? (GitCredentials) new GitCredentials.SshKey(secret)
                            : new GitCredentials.Token(rs.getString(2), secret);
                })
                .findOne());
    }

    /** The project's git settings as reads show them ({@link ProjectGit#NONE} when it has none). */
    public ProjectGit shown(String projectId) {
        return shown(List.of(projectId)).getOrDefault(projectId, ProjectGit.NONE);
    }

    /** The git settings of each of the projects that has any. */
    public Map<String, ProjectGit> shown(Collection<String> projectIds) {
        if (projectIds.isEmpty()) return Map.of();
        return jdbi.withHandle(h -> shown(h, projectIds));
    }

    static Map<String, ProjectGit> shown(Handle h, Collection<String> projectIds) {
        Map<String, ProjectGit> out = new HashMap<>();
        h.createQuery("SELECT * FROM project_git WHERE project_id IN (<ids>)")
                .bindList("ids", List.copyOf(projectIds))
                .map((rs, ctx) -> Map.entry(rs.getString("project_id"), SHOWN.map(rs, ctx)))
                .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    private static List<String> paths(String json) {
        if (json == null) return List.of();
        try {
            return Json.MAPPER.readValue(json, STRINGS);
        } catch (IOException e) {
            throw new IllegalStateException("stored watch paths are not a JSON array", e);
        }
    }
}
