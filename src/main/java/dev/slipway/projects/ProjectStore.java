package dev.slipway.projects;

import dev.slipway.api.ApiException;
import dev.slipway.runtime.HealthSpec;
import dev.slipway.core.Json;
import dev.slipway.store.Keyset;
import dev.slipway.store.Page;
import dev.slipway.store.PageRequest;
import dev.slipway.core.Ids;
import dev.slipway.secrets.SecretBox;
import dev.slipway.build.RegistryLogin;
import java.security.SecureRandom;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.mapper.RowMapper;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

public final class ProjectStore {
    private static final SecureRandom NAME_SUFFIX = new SecureRandom();
    private static final RowMapper<Project> MAPPER = (rs, ctx) -> new Project(
            rs.getString("id"), rs.getString("account_id"), rs.getString("name"), rs.getString("source"),
            rs.getString("repo"), rs.getString("branch"), rs.getString("framework"), rs.getString("region"),
            rs.getString("domain"), rs.getString("production_deployment_id"),
            rs.getTimestamp("created_at").toInstant(), List.of(), null, rs.getString("root_directory"), domainCheck(rs),
            rs.getBoolean("hsts"), rs.getString("dockerfile_path"), new Project.RunSettings(rs.getString("instance_type"), health(rs.getString("health_check")),
            rs.getObject("replicas", Integer.class)));
    /** A project, a row per env var name (or one with a null name), and its newest database. */
    private static final String FIND = """
            SELECT p.*, e.name AS env_name, d.id AS db_id, d.type AS db_type, d.state AS db_state
            FROM projects p
            LEFT JOIN project_env_vars e ON e.project_id = p.id
            LEFT JOIN databases d ON d.id = (SELECT id FROM databases WHERE project_id = p.id
                                             ORDER BY created_at DESC, id DESC LIMIT 1)
            WHERE p.id = :id AND p.deleting_at IS NULL
            ORDER BY e.name""";

    private final Jdbi jdbi;
    private final Clock clock;
    private final Ids ids;
    private final SecretBox secrets;
    private final ProjectCache cache;
    private final boolean domainProof;
    private final DomainListener domainListener;
    private final ProjectGitStore git;
    private final ProjectEnvStore env;

    /** Told inside the transaction that verifies a project's domain (the webhook outbox). */
    public interface DomainListener {
        DomainListener NONE = (h, p) -> {};

        void verified(Handle h, Project project);
    }

    /** Custom domains need a proof of control; nobody is told when one is verified. */
    public ProjectStore(Jdbi jdbi, Clock clock, SecretBox secrets, ProjectCache cache) {
        this(jdbi, clock, secrets, cache, true, DomainListener.NONE);
    }

    /** @param domainProof false: a custom domain is verified as soon as it is set (a single-team install) */
    public ProjectStore(Jdbi jdbi, Clock clock, SecretBox secrets, ProjectCache cache, boolean domainProof,
                        DomainListener domainListener) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.ids = new Ids(clock);
        this.secrets = secrets;
        this.cache = cache;
        this.domainProof = domainProof;
        this.domainListener = domainListener;
        this.git = new ProjectGitStore(jdbi, secrets);
        this.env = new ProjectEnvStore(jdbi, secrets, cache, clock);
    }

    /** The projects' git settings: credentials, watch paths, push webhooks. */
    /** Its env vars one at a time. */
    public ProjectEnvStore env() {
        return env;
    }

    public ProjectGitStore git() {
        return git;
    }

    public Project create(NewProject p) {
        return jdbi.inTransaction(h -> create(h, p));
    }

    /** As {@link #create(NewProject)}, with the project's registry login (null: none). */
    public Project create(NewProject p, RegistryLogin login) {
        return create(p, login, GitInput.NONE);
    }

    /** As {@link #create(NewProject)}, with the project's registry login (null: none) and git settings. */
    public Project create(NewProject p, RegistryLogin login, GitInput gitInput) {
        return jdbi.inTransaction(h -> {
            Project created = create(h, p);
            if (login != null) saveRegistryLogin(h, created.id(), login);
            git.apply(h, created.id(), gitInput);
            return created;
        });
    }

    /**
     * Changes what a {@code PATCH} names: the branch (null: unchanged) and the git settings. Deployed builds keep the
     * source they were built from.
     */
    public void update(String projectId, String branch, GitInput gitInput) {
        update(projectId, new ProjectPatch(branch, null, null, null), gitInput);
    }

    /** Changes what a {@code PATCH} names ({@link ProjectPatch}) and the git settings, in one transaction. */
    public void update(String projectId, ProjectPatch patch, GitInput gitInput) {
        jdbi.useTransaction(h -> {
            h.createQuery("SELECT id FROM projects WHERE id = :p FOR UPDATE").bind("p", projectId).mapTo(String.class).one();
            if (patch.branch() != null) {
                h.createUpdate("UPDATE projects SET branch = :b WHERE id = :p").bind("b", patch.branch()).bind("p", projectId).execute();
            }
            if (patch.rootDirectory() != null) {
                h.createUpdate("UPDATE projects SET root_directory = :d WHERE id = :p")
                        .bind("d", patch.rootDirectory().orElse(null)).bind("p", projectId).execute();
            }
            if (patch.health() != null) {
                h.createUpdate("UPDATE projects SET health_check = :c WHERE id = :p")
                        .bind("c", patch.health().map(Json::write).orElse(null)).bind("p", projectId).execute();
            }
            if (patch.name() != null) {
                try {
                    h.createUpdate("UPDATE projects SET name = :n WHERE id = :p").bind("n", patch.name()).bind("p", projectId).execute();
                } catch (org.jdbi.v3.core.statement.UnableToExecuteStatementException e) {
                    // another project took the name between the check and this write
                    throw ApiException.invalidField("name", "is already taken");
                }
            }
            if (patch.replicas() != null) {
                h.createUpdate("UPDATE projects SET replicas = :r WHERE id = :p")
                        .bind("r", patch.replicas().orElse(null)).bind("p", projectId).execute();
            }
            if (patch.instanceType() != null) {
                h.createUpdate("UPDATE projects SET instance_type = :t WHERE id = :p")
                        .bind("t", patch.instanceType().orElse(null)).bind("p", projectId).execute();
            }
            git.apply(h, projectId, gitInput);
            cache.changedAfterCommit(h, projectId);
        });
    }

    private static HealthSpec health(String json) {
        if (json == null) return null;
        try {
            return Json.MAPPER.readValue(json, HealthSpec.class);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return null;
        }
    }

    /** Creates the project inside the caller's transaction. */
    public Project create(Handle h, NewProject p) {
        String id = ids.next("prj");
        var now = clock.instant();
        Project.DomainCheck check = p.domain() == null ? null : newDomainCheck();
        h.createUpdate("""
                        INSERT INTO projects (id, account_id, name, source, repo, branch, framework, region, domain,
                                              root_directory, created_at, domain_status, domain_token,
                                              domain_next_check_at, domain_verified_at, verified_domain, hsts, dockerfile_path)
                        VALUES (:id, :account, :name, :source, :repo, :branch, :framework, :region, :domain, :root, :at,
                                :status, :token, :next, :verified, :verifiedDomain, :hsts, :dockerfile)""")
                .bind("id", id).bind("account", p.accountId()).bind("name", p.name()).bind("source", p.source())
                .bind("repo", p.repo()).bind("branch", p.branch()).bind("framework", p.framework())
                .bind("region", p.region()).bind("domain", p.domain()).bind("root", p.rootDirectory()).bind("at", now)
                .bind("status", check == null ? null : check.status().label())
                .bind("token", check == null ? null : check.token())
                .bind("next", check == null ? null : now)
                .bind("verified", check != null && check.status() == DomainStatus.VERIFIED ? now : null)
                .bind("verifiedDomain", check != null && check.status() == DomainStatus.VERIFIED ? p.domain() : null)
                .bind("hsts", p.hsts()).bind("dockerfile", p.dockerfilePath())
                .execute();
        Map<String, String> env = p.envVars() == null ? Map.of() : p.envVars();
        for (var e : env.entrySet()) {
            h.createUpdate("INSERT INTO project_env_vars (project_id, name, value_enc, updated_at) VALUES (:p, :n, :v, :at)")
                    .bind("p", id).bind("n", e.getKey()).bind("v", secrets.encrypt(e.getValue())).bind("at", now).execute();
        }
        Project created = new Project(id, p.accountId(), p.name(), p.source(), p.repo(), p.branch(), p.framework(),
                p.region(), p.domain(), null, now, env.keySet().stream().sorted().toList(), null, p.rootDirectory(), check,
                p.hsts(), p.dockerfilePath());
        verifiedAtOnce(h, check, id);
        return created;
    }

    /** Proofs off: a domain is verified as it is set, and that is told as a proof would be ({@code domain.verified}). */
    private void verifiedAtOnce(Handle h, Project.DomainCheck check, String projectId) {
        if (check != null && check.status() == DomainStatus.VERIFIED) domainListener.verified(h, findIn(h, projectId));
    }

    private Project.DomainCheck newDomainCheck() {
        return new Project.DomainCheck(domainProof ? DomainStatus.PENDING_VERIFICATION : DomainStatus.VERIFIED,
                DomainTokens.next(), null, null);
    }

    private static Project.DomainCheck domainCheck(ResultSet rs) throws SQLException {
        if (rs.getString("domain") == null) return null;
        var checked = rs.getTimestamp("domain_checked_at");
        return new Project.DomainCheck(DomainStatus.parse(rs.getString("domain_status")), rs.getString("domain_token"),
                checked == null ? null : checked.toInstant(), rs.getString("domain_check_reason"));
    }

    /**
     * One project with its env var names and its newest database, in one query (the hottest read of
     * the API): a row per env var name, or one row with a null name when it has none.
     */
    public Optional<Project> find(String id) {
        return jdbi.withHandle(h -> find(h, id));
    }

    /** A project as a read shows it, with its registry login (or null) and its git settings. */
    public record Shown(Project project, ProjectView.RegistryAuth registryAuth, ProjectGit git) {}

    /**
     * The project and what its read shows beside it, from the project cache when it holds a fresh copy, else on one
     * connection: for reads that show a project and nothing else (the API's hottest). Writes and decisions read with
     * {@link #find}.
     */
    public Optional<Shown> shown(String id) {
        return cache.get(id, x -> jdbi.withHandle(h -> find(h, x).map(p -> new Shown(p, registryAuths(h, List.of(x)).get(x),
                ProjectGitStore.shown(h, List.of(x)).getOrDefault(x, ProjectGit.NONE)))));
    }

    private static Optional<Project> find(Handle h, String id) {
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
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM projects WHERE production_deployment_id IS NOT NULL AND deleting_at IS NULL")
                .map(MAPPER).list());
    }

    /** The project of this name (names are unique), read as {@link #find} reads it. */
    public Optional<Project> findByName(String name) {
        return idWhere("name", name).flatMap(this::find);
    }

    /**
     * The project that proved control of this custom domain, read as {@link #find} reads it. Several projects
     * may claim a domain while it waits for its proof; one may hold it verified.
     */
    public Optional<Project> findByDomain(String domain) {
        return idWhere("verified_domain", domain).flatMap(this::find);
    }

    private Optional<String> idWhere(String uniqueColumn, String value) {
        return jdbi.withHandle(h -> h.createQuery("SELECT id FROM projects WHERE " + uniqueColumn + " = :v")
                .bind("v", value).mapTo(String.class).findOne());
    }

    /** The base name if free, else the base with a short random suffix. */
    public String freeName(String base) {
        if (nameProblem(base).isEmpty()) return base;
        String alphabet = "abcdefghijkmnpqrstuvwxyz23456789";
        for (int attempt = 0; attempt < 20; attempt++) {
            StringBuilder s = new StringBuilder(base).append('-');
            for (int i = 0; i < 5; i++) s.append(alphabet.charAt(NAME_SUFFIX.nextInt(alphabet.length())));
            if (nameProblem(s.toString()).isEmpty()) return s.toString();
        }
        throw new IllegalStateException("no free project name for " + base);
    }

    /**
     * Whether a preview may be served at this {@code <project>-git-<branch>} label: no project has it as its name, and
     * it does not read as a deployment address of another project (whose names came before these rules).
     */
    public boolean previewLabelFree(String label) {
        if (nameTaken(label)) return false;
        var m = ProjectInput.DEPLOYMENT_LABEL.matcher(label);
        return !(m.matches() && nameTaken(m.group(1)));
    }

        /** Every project's name by id, but those being deleted: what a server's routes are named after. */
    public Map<String, String> names() {
        Map<String, String> out = new java.util.HashMap<>();
        jdbi.useHandle(h -> h.createQuery("SELECT id, name FROM projects WHERE deleting_at IS NULL")
                .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2))).forEach(e -> out.put(e.getKey(), e.getValue())));
        return out;
    }

    public boolean nameTaken(String name) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM projects WHERE name = :n")
                .bind("n", name).mapTo(Long.class).one()) > 0;
    }

    /**
     * True when another project proved control of the domain. A claim still waiting for its proof takes
     * nothing: whoever controls the domain's DNS can claim it and prove it, whoever claimed it first.
     */
    public boolean domainTaken(String domain) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM projects WHERE verified_domain = :d")
                .bind("d", domain).mapTo(Long.class).one()) > 0;
    }

    /**
     * Why a new project may not take this name, or empty: it is taken, or it and another project's name could
     * be read as one project and one of its deployment addresses ({@code <project>-<short id>}, DESIGN §3):
     * {@code app-ndzz43be} is refused while a project {@code app} exists, and {@code app} while a project named
     * {@code app-<8 letters or digits>} does. The router also lets a deployment address win over a project of
     * the same label, for names stored before this rule.
     */
    public Optional<String> nameProblem(String name) {
        if (nameTaken(name)) return Optional.of("is already taken");
        for (String owner : PreviewAddress.projectsOf(name)) {
            if (nameTaken(owner)) {
                return Optional.of("reads as the address of a preview of the project '" + owner + "' (<project>-git-<branch>)");
            }
        }
        if (name.endsWith("-git") && nameTaken(name.substring(0, name.length() - 4))) {
            return Optional.of("would make the addresses of its deployments read as previews of the project '"
                    + name.substring(0, name.length() - 4) + "' (<project>-git-<branch>)");
        }
        var m = ProjectInput.DEPLOYMENT_LABEL.matcher(name);
        if (m.matches() && nameTaken(m.group(1))) {
            return Optional.of("reads as the address of a deployment of the project '" + m.group(1) + "' (<project>-<short id>): "
                    + "a name may not end in '-' and 8 letters or digits after an existing project's name");
        }
        Optional<String> shadow = jdbi.withHandle(h -> h.createQuery(
                        "SELECT name FROM projects WHERE name LIKE :prefix AND LENGTH(name) = :length")
                .bind("prefix", name + "-%").bind("length", name.length() + 9).mapTo(String.class).stream()
                .filter(n -> ProjectInput.DEPLOYMENT_LABEL.matcher(n).matches()).findFirst());
        return shadow.map(n -> "would make the project '" + n + "' read as one of its deployment addresses "
                + "(<project>-<short id>)");
    }

    /** Every custom domain whose control is proven, in order: the ones the router serves and certificates are for. */
    public List<String> verifiedDomains() {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT domain FROM projects WHERE domain IS NOT NULL AND domain_status = :verified ORDER BY domain")
                .bind("verified", DomainStatus.VERIFIED.label()).mapTo(String.class).list());
    }

    /** Projects whose domain waits for its proof and is due to be checked at {@code now}, the most overdue first. */
    public List<String> domainChecksDue(Instant now, int limit) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT id FROM projects WHERE domain_status = :pending AND domain_next_check_at <= :now
                        ORDER BY domain_next_check_at, id LIMIT :limit""")
                .bind("pending", DomainStatus.PENDING_VERIFICATION.label()).bind("now", now).bind("limit", limit)
                .mapTo(String.class).list());
    }

    /**
     * Takes the project's due check for this server: true when it was still due and pending, and then no other
     * server (sharing the store) takes it before {@code next}.
     */
    public boolean claimDomainCheck(String projectId, Instant now, Instant next) {
        return jdbi.withHandle(h -> h.createUpdate("""
                        UPDATE projects SET domain_next_check_at = :next
                        WHERE id = :id AND domain_status = :pending AND domain_next_check_at <= :now""")
                .bind("next", next).bind("id", projectId).bind("pending", DomainStatus.PENDING_VERIFICATION.label())
                .bind("now", now).execute()) == 1;
    }

    /** Records a check that did not verify the domain, if the project still has the token that was checked. */
    public void domainNotVerified(String projectId, String token, String reason) {
        jdbi.useHandle(h -> {
            h.createUpdate("""
                            UPDATE projects SET domain_checked_at = :now, domain_check_reason = :reason
                            WHERE id = :id AND domain_token = :token AND domain_status = :pending""")
                    .bind("now", clock.instant()).bind("reason", reason.length() > 500 ? reason.substring(0, 500) : reason)
                    .bind("id", projectId).bind("token", token).bind("pending", DomainStatus.PENDING_VERIFICATION.label())
                    .execute();
            cache.changed(projectId);
        });
    }

    /**
     * Moves the project's domain to verified if it still has the token that was proven (its domain may have
     * been changed meanwhile); the listener hears it in the same transaction. True when this call moved it:
     * of several servers checking at once, one does.
     */
    public boolean domainVerified(String projectId, String token) {
        Instant now = clock.instant();
        try {
            return jdbi.inTransaction(h -> {
                String current = h.createQuery("SELECT domain_token FROM projects WHERE id = :id FOR UPDATE")
                        .bind("id", projectId).mapTo(String.class).findOne().orElse(null);
                if (current == null || !current.equals(token)) return false;
                if (verifiedElsewhere(h, projectId)) return false;
                return DomainStatus.MACHINE.stored("projects", "domain_status").move(h, projectId,
                        DomainStatus.PENDING_VERIFICATION, DomainStatus.VERIFIED,
                        "domain_verified_at = :now, domain_checked_at = :now, domain_check_reason = NULL, verified_domain = domain",
                        now, moved -> {
                            cache.changedAfterCommit(moved, projectId);
                            domainListener.verified(moved, findIn(moved, projectId));
                        });
            });
        } catch (JdbiException e) {
            // another project's proof of the same domain committed first: the unique index kept it theirs
            if (jdbi.withHandle(h -> verifiedElsewhere(h, projectId))) return false;
            throw e;
        }
    }

    /** True when another project holds this project's claimed domain verified. */
    public boolean domainVerifiedElsewhere(String projectId) {
        return jdbi.withHandle(h -> verifiedElsewhere(h, projectId));
    }

    private static boolean verifiedElsewhere(Handle h, String projectId) {
        return h.createQuery("""
                        SELECT COUNT(*) FROM projects o JOIN projects p ON o.verified_domain = p.domain
                        WHERE p.id = :id AND o.id <> p.id""")
                .bind("id", projectId).mapTo(Long.class).one() > 0;
    }

    /**
     * Sets (or with null, removes) the project's custom domain: a new domain starts over, pending with a new
     * token (verified at once when proofs are off), whatever the old one's state.
     */
    public void changeDomain(Handle h, String projectId, String domain) {
        Instant now = clock.instant();
        Project.DomainCheck check = domain == null ? null : newDomainCheck();
        h.createUpdate("""
                        UPDATE projects SET domain = :domain, domain_status = :status, domain_token = :token,
                            domain_checked_at = NULL, domain_check_reason = NULL, domain_next_check_at = :next,
                            domain_verified_at = :verified, verified_domain = :verifiedDomain
                        WHERE id = :id""")
                .bind("domain", domain).bind("status", check == null ? null : check.status().label())
                .bind("token", check == null ? null : check.token()).bind("next", check == null ? null : now)
                .bind("verified", check != null && check.status() == DomainStatus.VERIFIED ? now : null)
                .bind("verifiedDomain", check != null && check.status() == DomainStatus.VERIFIED ? domain : null)
                .bind("id", projectId).execute();
        cache.changedAfterCommit(h, projectId);
        verifiedAtOnce(h, check, projectId);
    }

    /** {@link #changeDomain(Handle, String, String)} in a transaction of its own. */
    public void changeDomain(String projectId, String domain) {
        jdbi.useTransaction(h -> changeDomain(h, projectId, domain));
    }

    /** Every verified custom domain and its project's name (domain → name). */
    public Map<String, String> servedDomains() {
        return jdbi.withHandle(h -> {
            Map<String, String> out = new HashMap<>();
            h.createQuery("SELECT domain, name FROM projects WHERE domain IS NOT NULL AND domain_status = :verified")
                    .bind("verified", DomainStatus.VERIFIED.label())
                    .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2)))
                    .forEach(e -> out.put(e.getKey(), e.getValue()));
            return out;
        });
    }

    /** Gives a token to each domain stored before proofs existed; returns how many got one. */
    public int assignMissingDomainTokens() {
        return jdbi.withHandle(h -> {
            List<String> ids = h.createQuery("SELECT id FROM projects WHERE domain IS NOT NULL AND domain_token IS NULL")
                    .mapTo(String.class).list();
            int n = 0;
            for (String id : ids) {
                n += h.createUpdate("UPDATE projects SET domain_token = :token WHERE id = :id AND domain_token IS NULL")
                        .bind("token", DomainTokens.next()).bind("id", id).execute();
            }
            return n;
        });
    }

    /** Pending domains, any time due: with proofs off they are all verified at once. */
    public List<String> pendingDomains() {
        return jdbi.withHandle(h -> h.createQuery("SELECT id FROM projects WHERE domain_status = :pending ORDER BY id")
                .bind("pending", DomainStatus.PENDING_VERIFICATION.label()).mapTo(String.class).list());
    }

    /** The project as the caller's transaction sees it, with its env var names and database, as a read shows it. */
    private static Project findIn(Handle h, String projectId) {
        return withEnvNames(h, List.of(h.createQuery("SELECT * FROM projects WHERE id = :id").bind("id", projectId)
                .map(MAPPER).one())).getFirst();
    }

    public Page<Project> page(String accountId, PageRequest request) {
        return jdbi.withHandle(h -> {
            Page<Project> page = Keyset.page(h, "projects", List.of("account_id = :account", "deleting_at IS NULL"),
                    Map.of("account", accountId), request, MAPPER, Project::createdAt, Project::id);
            return new Page<>(withEnvNames(h, page.data()), page.pagination());
        });
    }

    /** Keeps the project's registry login, its password sealed; inside the caller's transaction. */
    public void saveRegistryLogin(Handle h, String projectId, RegistryLogin login) {
        h.createUpdate("DELETE FROM project_registry_logins WHERE project_id = :p").bind("p", projectId).execute();
        h.createUpdate("""
                        INSERT INTO project_registry_logins (project_id, registry, username, password_enc)
                        VALUES (:p, :registry, :username, :password)""")
                .bind("p", projectId).bind("registry", login.registry()).bind("username", login.username())
                .bind("password", secrets.encrypt(login.password())).execute();
    }

    /** The project's registry login with its password, for a pull; never for a response. */
    public Optional<RegistryLogin> registryLogin(String projectId) {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT registry, username, password_enc FROM project_registry_logins WHERE project_id = :p")
                .bind("p", projectId)
                .map((rs, ctx) -> new RegistryLogin(rs.getString(1), rs.getString(2), secrets.decrypt(rs.getString(3))))
                .findOne());
    }

    /** The registry and user of each project's login, as reads show them (never the password). */
    public Map<String, ProjectView.RegistryAuth> registryAuths(Collection<String> projectIds) {
        if (projectIds.isEmpty()) return Map.of();
        return jdbi.withHandle(h -> registryAuths(h, projectIds));
    }

    private static Map<String, ProjectView.RegistryAuth> registryAuths(Handle h, Collection<String> projectIds) {
        Map<String, ProjectView.RegistryAuth> out = new HashMap<>();
        h.createQuery("SELECT project_id, registry, username FROM project_registry_logins WHERE project_id IN (<ids>)")
                .bindList("ids", List.copyOf(projectIds))
                .map((rs, ctx) -> Map.entry(rs.getString(1), new ProjectView.RegistryAuth(rs.getString(2), rs.getString(3))))
                .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
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
