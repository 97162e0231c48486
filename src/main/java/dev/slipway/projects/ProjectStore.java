package dev.slipway.projects;

import dev.slipway.store.Keyset;
import dev.slipway.store.Page;
import dev.slipway.store.PageRequest;
import dev.slipway.core.Ids;
import dev.slipway.secrets.SecretBox;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

public final class ProjectStore {
    private static final java.security.SecureRandom NAME_SUFFIX = new java.security.SecureRandom();
    private static final RowMapper<Project> MAPPER = (rs, ctx) -> new Project(
            rs.getString("id"), rs.getString("account_id"), rs.getString("name"), rs.getString("source"),
            rs.getString("repo"), rs.getString("branch"), rs.getString("framework"), rs.getString("region"),
            rs.getString("domain"), rs.getString("production_deployment_id"),
            rs.getTimestamp("created_at").toInstant(), List.of(), null, rs.getString("root_directory"));
    /** A project, a row per env var name (or one with a null name), and its newest database. */
    private static final String FIND = """
            SELECT p.*, e.name AS env_name, d.id AS db_id, d.type AS db_type, d.state AS db_state
            FROM projects p
            LEFT JOIN project_env_vars e ON e.project_id = p.id
            LEFT JOIN databases d ON d.id = (SELECT id FROM databases WHERE project_id = p.id
                                             ORDER BY created_at DESC, id DESC LIMIT 1)
            WHERE p.id = :id
            ORDER BY e.name""";

    private final Jdbi jdbi;
    private final Clock clock;
    private final Ids ids;
    private final SecretBox secrets;
    private final ProjectCache cache;

    public ProjectStore(Jdbi jdbi, Clock clock, SecretBox secrets, ProjectCache cache) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.ids = new Ids(clock);
        this.secrets = secrets;
        this.cache = cache;
    }

    public Project create(NewProject p) {
        return jdbi.inTransaction(h -> create(h, p));
    }

    /** Creates the project inside the caller's transaction. */
    public Project create(Handle h, NewProject p) {
        String id = ids.next("prj");
        var now = clock.instant();
        h.createUpdate("""
                        INSERT INTO projects (id, account_id, name, source, repo, branch, framework, region, domain,
                                              root_directory, created_at)
                        VALUES (:id, :account, :name, :source, :repo, :branch, :framework, :region, :domain, :root, :at)""")
                .bind("id", id).bind("account", p.accountId()).bind("name", p.name()).bind("source", p.source())
                .bind("repo", p.repo()).bind("branch", p.branch()).bind("framework", p.framework())
                .bind("region", p.region()).bind("domain", p.domain()).bind("root", p.rootDirectory()).bind("at", now)
                .execute();
        Map<String, String> env = p.envVars() == null ? Map.of() : p.envVars();
        for (var e : env.entrySet()) {
            h.createUpdate("INSERT INTO project_env_vars (project_id, name, value_enc) VALUES (:p, :n, :v)")
                    .bind("p", id).bind("n", e.getKey()).bind("v", secrets.encrypt(e.getValue())).execute();
        }
        return new Project(id, p.accountId(), p.name(), p.source(), p.repo(), p.branch(), p.framework(),
                p.region(), p.domain(), null, now, env.keySet().stream().sorted().toList(), null, p.rootDirectory());
    }

    /**
     * One project with its env var names and its newest database, in one query (the hottest read of
     * the API): a row per env var name, or one row with a null name when it has none.
     */
    public Optional<Project> find(String id) {
        return jdbi.withHandle(h -> {
            List<String> names = new ArrayList<>();
            Project[] found = new Project[1];
            Project.DatabaseRef[] database = new Project.DatabaseRef[1];
            h.createQuery(FIND).bind("id", id).map((rs, ctx) -> {
                if (found[0] == null) {
                    found[0] = MAPPER.map(rs, ctx);
                    String db = rs.getString("db_id");
                    if (db != null) database[0] = new Project.DatabaseRef(db, rs.getString("db_type"), rs.getString("db_state"));
                }
                String name = rs.getString("env_name");
                if (name != null) names.add(name);
                return Boolean.TRUE;
            }).list();
            if (found[0] == null) return Optional.<Project>empty();
            return Optional.of(found[0].with(names, database[0]));
        });
    }

    /**
     * {@link #find}, from the project cache when it holds a fresh copy: for reads that show a project and
     * nothing else. Writes and decisions read with {@link #find}.
     */
    public Optional<Project> read(String id) {
        return cache.get(id, this::find);
    }

    /** The names of the given projects in one query (id → name); ids of no project are absent. */
    public Map<String, String> names(Collection<String> projectIds) {
        if (projectIds.isEmpty()) return Map.of();
        return jdbi.withHandle(h -> {
            Map<String, String> out = new HashMap<>();
            h.createQuery("SELECT id, name FROM projects WHERE id IN (<ids>)")
                    .bindList("ids", List.copyOf(projectIds))
                    .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2)))
                    .forEach(e -> out.put(e.getKey(), e.getValue()));
            return out;
        });
    }

    /** The project's production deployment, its row locked until the caller's transaction ends. */
    public Optional<String> lockProduction(Handle h, String projectId) {
        return h.createQuery("SELECT production_deployment_id FROM projects WHERE id = :p FOR UPDATE")
                .bind("p", projectId).mapTo(String.class).findOne();
    }

    /** Points the project's production at a deployment, inside the caller's transaction. */
    public void setProduction(Handle h, String projectId, String deploymentId) {
        h.createUpdate("UPDATE projects SET production_deployment_id = :d WHERE id = :p")
                .bind("d", deploymentId).bind("p", projectId).execute();
        cache.changedAfterCommit(h, projectId);
    }

    /** Every project with a production deployment: (project id, name, domain, production deployment id). */
    public List<Project> withProduction() {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM projects WHERE production_deployment_id IS NOT NULL")
                .map(MAPPER).list());
    }

    /** The project of this name (names are unique), read as {@link #find} reads it. */
    public Optional<Project> findByName(String name) {
        return idWhere("name", name).flatMap(this::find);
    }

    /** The project with this custom domain (domains are unique), read as {@link #find} reads it. */
    public Optional<Project> findByDomain(String domain) {
        return idWhere("domain", domain).flatMap(this::find);
    }

    private Optional<String> idWhere(String uniqueColumn, String value) {
        return jdbi.withHandle(h -> h.createQuery("SELECT id FROM projects WHERE " + uniqueColumn + " = :v")
                .bind("v", value).mapTo(String.class).findOne());
    }

    /** The base name if free, else the base with a short random suffix. */
    public String freeName(String base) {
        if (!nameTaken(base)) return base;
        String alphabet = "abcdefghijkmnpqrstuvwxyz23456789";
        for (int attempt = 0; attempt < 20; attempt++) {
            StringBuilder s = new StringBuilder(base).append('-');
            for (int i = 0; i < 5; i++) s.append(alphabet.charAt(NAME_SUFFIX.nextInt(alphabet.length())));
            if (!nameTaken(s.toString())) return s.toString();
        }
        throw new IllegalStateException("no free project name for " + base);
    }

    public boolean nameTaken(String name) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM projects WHERE name = :n")
                .bind("n", name).mapTo(Long.class).one()) > 0;
    }

    public boolean domainTaken(String domain) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM projects WHERE domain = :d")
                .bind("d", domain).mapTo(Long.class).one()) > 0;
    }

    public Page<Project> page(String accountId, PageRequest request) {
        return jdbi.withHandle(h -> {
            Page<Project> page = Keyset.page(h, "projects", List.of("account_id = :account"),
                    Map.of("account", accountId), request, MAPPER, Project::createdAt, Project::id);
            return new Page<>(withEnvNames(h, page.data()), page.pagination());
        });
    }

    /** The decrypted env vars of a project, for starting its app; never for a response. */
    public Map<String, String> envVars(String projectId) {
        return jdbi.withHandle(h -> {
            Map<String, String> out = new LinkedHashMap<>();
            h.createQuery("SELECT name, value_enc FROM project_env_vars WHERE project_id = :p ORDER BY name")
                    .bind("p", projectId)
                    .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2)))
                    .forEach(e -> out.put(e.getKey(), secrets.decrypt(e.getValue())));
            return out;
        });
    }

    /** Adds env var names and the database to each project. */
    private static List<Project> withEnvNames(Handle h, List<Project> projects) {
        if (projects.isEmpty()) return projects;
        Map<String, List<String>> names = new LinkedHashMap<>();
        h.createQuery("SELECT project_id, name FROM project_env_vars WHERE project_id IN (<ids>) ORDER BY name")
                .bindList("ids", projects.stream().map(Project::id).toList())
                .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2)))
                .forEach(e -> names.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue()));
        Map<String, Project.DatabaseRef> databases = new LinkedHashMap<>();
        h.createQuery("SELECT project_id, id, type, state FROM databases WHERE project_id IN (<ids>) ORDER BY created_at, id")
                .bindList("ids", projects.stream().map(Project::id).toList())
                .map((rs, ctx) -> Map.entry(rs.getString(1), new Project.DatabaseRef(rs.getString(2), rs.getString(3), rs.getString(4))))
                .forEach(e -> databases.put(e.getKey(), e.getValue())); // the newest wins
        return projects.stream().map(p -> p.with(names.getOrDefault(p.id(), List.of()), databases.get(p.id()))).toList();
    }
}
