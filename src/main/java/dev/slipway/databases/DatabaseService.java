package dev.slipway.databases;

import dev.slipway.api.ApiException;
import dev.slipway.core.Ids;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.LogStore;
import dev.slipway.net.DatabaseEndpoint;
import dev.slipway.net.EgressAllow;
import dev.slipway.projects.ProjectChanges;
import dev.slipway.secrets.SecretBox;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * A project's database from request to removal. At request time {@link #plan} refuses what cannot
 * work (a provider that is not configured, a malformed {@code url}); the migration's transaction
 * records the database with its generated name, user and sealed password ({@link #record}); the
 * pipeline then makes it on the server, or checks that the given credentials connect
 * ({@link #prepare}), and every deployment of the project gets its {@code DATABASE_URL}
 * ({@link #link}). When the migration fails, what it made is removed ({@link #release}, and
 * {@link #sweep} after a crash).
 */
public final class DatabaseService {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseService.class);
    private static final List<String> SSL_MODES = List.of("disable", "allow", "prefer", "require",
            "verify-ca", "verify-full");

    /** A validated {@code database} request. {@code target} is the admin server (create) or the given address (connect). */
    public record Plan(DbKind kind, String action, DbAddress target, String serviceKey) {
        @Override
        public String toString() {
            return "Plan[" + kind.label() + " " + action + " " + target + (serviceKey == null ? "" : " service_key=****") + "]";
        }
    }

    /** The variable a project's database sets in its app's and build's environment. */
    public static final String VARIABLE = "DATABASE_URL";

    /**
     * What a deployment gets: the {@code DATABASE_URL}, every form of its secret (to mask in logs), and where the
     * database is, for the app's network rules.
     */
    public record Link(String databaseId, String url, Set<String> secrets, DatabaseEndpoint endpoint) {
        @Override
        public String toString() {
            return "Link[" + databaseId + "]";
        }
    }

    private final EgressAllow egressAllow;
    private final DatabaseStore store;
    private final AdminServers admins;
    private final SecretBox secrets;
    private final LogStore logs;
    private final Clock clock;
    private final Ids ids;
    private final Provisioner.Steps steps;

    /** @param changes told of each project whose database changed, after the commit */
    public DatabaseService(Jdbi jdbi, AdminServers admins, SecretBox secrets, LogStore logs, Clock clock,
                           ProjectChanges changes) {
        this(jdbi, admins, secrets, logs, clock, changes, Provisioner.Steps.NONE, EgressAllow.NONE);
    }

    /** @param egressAllow the private addresses the operator opens to apps: a {@code connect} may target them */
    public DatabaseService(Jdbi jdbi, AdminServers admins, SecretBox secrets, LogStore logs, Clock clock,
                           ProjectChanges changes, EgressAllow egressAllow) {
        this(jdbi, admins, secrets, logs, clock, changes, Provisioner.Steps.NONE, egressAllow);
    }

    DatabaseService(Jdbi jdbi, AdminServers admins, SecretBox secrets, LogStore logs, Clock clock,
                    ProjectChanges changes, Provisioner.Steps steps) {
        this(jdbi, admins, secrets, logs, clock, changes, steps, EgressAllow.NONE);
    }

    DatabaseService(Jdbi jdbi, AdminServers admins, SecretBox secrets, LogStore logs, Clock clock,
                    ProjectChanges changes, Provisioner.Steps steps, EgressAllow egressAllow) {
        this.egressAllow = egressAllow;
        this.store = new DatabaseStore(jdbi, clock, changes);
        this.admins = admins;
        this.secrets = secrets;
        this.logs = logs;
        this.clock = clock;
        this.ids = new Ids(clock);
        this.steps = steps;
    }

    /**
     * Checks a {@code database} request whose shape is valid: 400 when the provider of a create is not
     * configured (naming its setting), or when a connect's {@code url} cannot be used (never echoing it).
     */
    public Plan plan(String type, String action, String url, String serviceKey) {
        DbKind kind = DbKind.parse(type).orElseThrow(() -> ApiException.invalidField("database.type", "must be postgres or mysql"));
        if ("create".equals(action)) {
            DbAddress admin = admins.admin(kind).orElseThrow(() -> ApiException.invalidField("database.type",
                    "the " + kind.label() + " provider is not configured on this installation: the operator must set "
                            + kind.adminSetting() + " to create " + kind.label() + " databases"));
            return new Plan(kind, action, admin, null);
        }
        DbAddress target;
        try {
            target = DbAddress.parse(url);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("database.url", e.getMessage());
        }
        if (target.kind() != kind) {
            throw ApiException.invalidField("database.url", "is a " + target.kind().label() + " URL but database.type is " + kind.label());
        }
        if (target.password() != null) {
            throw ApiException.invalidField("database.url", "must not contain a password: pass it as database.service_key");
        }
        if (target.user() == null) {
            throw ApiException.invalidField("database.url", "must name the user, as in " + kind.label() + "://USER@host:"
                    + kind.defaultPort() + "/database");
        }
        if (target.database() == null) {
            throw ApiException.invalidField("database.url", "must name the database, as in " + kind.label() + "://user@host:"
                    + kind.defaultPort() + "/DATABASE");
        }
        checkOptions(target);
        String refusal = ConnectTargets.check(target, admins, egressAllow).refusal();
        if (refusal != null) throw ApiException.invalidField("database.url", "cannot be used: " + refusal);
        return new Plan(kind, action, target, serviceKey);
    }

    /**
     * A client's URL may carry only {@code sslmode} (PostgreSQL): any other query parameter would
     * become a JDBC driver property here (some load classes or write files), so it is refused.
     */
    private static void checkOptions(DbAddress target) {
        for (var e : target.params().entrySet()) {
            if (target.kind() == DbKind.POSTGRES && e.getKey().equals("sslmode")) {
                if (!SSL_MODES.contains(e.getValue())) {
                    throw ApiException.invalidField("database.url", "sslmode must be one of " + String.join(", ", SSL_MODES));
                }
                continue;
            }
            throw ApiException.invalidField("database.url", "may not carry the query parameter " + e.getKey()
                    + (target.kind() == DbKind.POSTGRES ? " (only sslmode)" : " (none are accepted)"));
        }
    }

    /**
     * Records the project's database inside the migration's transaction, before anything is made:
     * a create gets its id, name, user and a random password now, so a run resumed after a restart
     * makes exactly this one. Returns the database id.
     */
    public String record(Handle h, String accountId, String projectId, String migrationId, Plan plan) {
        String id = ids.next("db");
        DbAddress t = plan.target();
        ProjectDatabase d;
        if ("create".equals(plan.action())) {
            String name = Identifiers.nameFor(id);
            d = new ProjectDatabase(id, accountId, projectId, migrationId, plan.kind(), "create", t.host(), t.port(),
                    name, name, null, secrets.encrypt(Identifiers.password()), DatabaseState.PROVISIONING, clock.instant());
        } else {
            d = new ProjectDatabase(id, accountId, projectId, migrationId, plan.kind(), "connect", t.host(), t.port(),
                    t.database(), t.user(), t.query().isEmpty() ? null : t.query(), secrets.encrypt(plan.serviceKey()),
                    DatabaseState.PROVISIONING, clock.instant());
        }
        store.insert(h, d);
        return id;
    }

    /** The project's database as the API shows it (id, type, state), if it has one. */
    public Optional<Summary> summary(String projectId) {
        return store.forProject(projectId).map(d -> new Summary(d.id(), d.kind().label(), d.state().label()));
    }

    public record Summary(String id, String type, String state) {}

    /** The {@code DATABASE_URL} of the project's database, unless it has none or it was dropped. */
    public Optional<Link> link(String projectId) {
        return store.forProject(projectId).filter(d -> d.secretEnc() != null
                        && d.state().usable())
                .map(d -> {
                    String secret = secrets.decrypt(d.secretEnc());
                    String url = d.address(secret).appUrl();
                    Set<String> forms = new LinkedHashSet<>(List.of(secret, DbAddress.encode(secret), url));
                    return new Link(d.id(), url, forms, new DatabaseEndpoint(d.host(), d.port(), provided(d)));
                });
    }

    /** On a server the operator configured: made there, or connected at that server's own host and port. */
    private boolean provided(ProjectDatabase d) {
        return d.created() || admins.admin(d.kind())
                .filter(a -> a.host().equalsIgnoreCase(d.host()) && a.port() == d.port()).isPresent();
    }

    /**
     * The pipeline's step before the build: makes the database (create) or checks that the given
     * credentials connect (connect) while it is {@code provisioning}; says which database is used
     * once {@code ready}. Throws, with a plain reason and no secret, when it cannot.
     */
    public void prepare(String projectId, LogSink log) {
        Optional<ProjectDatabase> found = store.forProject(projectId);
        if (found.isEmpty()) return;
        ProjectDatabase d = found.get();
        switch (d.state()) {
            case DROPPED, FAILED -> throw new IllegalStateException("the project's " + d.kind().label() + " database "
                    + d.id() + " was removed when its migration failed; start a new migration to get a database");
            case READY -> log.log(Level.INFO, "Using the project's " + d.kind().label() + " database " + d.id()
                    + " (" + d.host() + ":" + d.port() + "/" + d.name() + "); DATABASE_URL is set");
            case PROVISIONING -> {
                if (d.created()) provision(d, log);
                else verify(d, log);
            }
        }
    }

    private void provision(ProjectDatabase d, LogSink log) {
        String kind = d.kind().label();
        DbAddress admin = admins.admin(d.kind()).orElseThrow(() -> new IllegalStateException("cannot provision the "
                + kind + " database " + d.id() + ": " + d.kind().adminSetting() + " is no longer set"));
        String password = secrets.decrypt(d.secretEnc());
        log.log(Level.INFO, "Provisioning the " + kind + " database " + d.id() + " on " + admin.host() + ":" + admin.port()
                + ": database " + d.name() + " and its own user " + d.user());
        try {
            Provisioner.of(d.kind()).ensure(admin, d.name(), password, steps);
        } catch (SQLException e) {
            String why = Connections.isConnectFailure(e)
                    ? "cannot connect to the " + kind + " admin server: " + Connections.describe(e, admin)
                    : Connections.describeAdmin(e, password);
            throw new IllegalStateException("provisioning the " + kind + " database " + d.id() + " failed: " + why);
        }
        store.transition(d, DatabaseState.PROVISIONING, DatabaseState.READY);
        log.log(Level.INFO, "Database " + d.id() + " is ready (" + kind + " " + d.host() + ":" + d.port() + "/" + d.name()
                + "); DATABASE_URL is set for the build and the app");
    }

    private void verify(ProjectDatabase d, LogSink log) {
        String kind = d.kind().label();
        DbAddress target = d.address(secrets.decrypt(d.secretEnc()));
        log.log(Level.INFO, "Connecting to the " + kind + " database at " + target.where() + " as user " + d.user()
                + " with the service_key");
        // checked again now, and connected to at the addresses checked: the name may resolve elsewhere now than when
        // the request was checked, and elsewhere again at a second lookup
        ConnectTargets.Checked checked = ConnectTargets.check(target, admins, egressAllow);
        if (checked.refusal() != null) {
            throw new IllegalStateException("cannot connect to the " + kind + " database at " + target.where() + ": " + checked.refusal());
        }
        if (!checked.resolved()) {
            throw new IllegalStateException("cannot connect to the " + kind + " database at " + target.where() + " as user "
                    + d.user() + ": the host " + target.host() + " cannot be resolved (unknown host)");
        }
        try (Connection c = Connections.open(target, checked.addresses()); var s = c.createStatement()) {
            s.execute("SELECT 1");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to the " + kind + " database at " + target.where()
                    + " as user " + d.user() + ": " + Connections.describeTarget(e, target));
        }
        store.transition(d, DatabaseState.PROVISIONING, DatabaseState.READY);
        log.log(Level.INFO, "Connected to the " + kind + " database at " + target.where()
                + "; DATABASE_URL is set for the build and the app");
    }

    /** After the migration failed: removes the database it made (or forgets the one it connected to). */
    public void release(String projectId, String migrationId) {
        if (!store.migrationFailed(migrationId)) return;
        store.forProject(projectId).filter(d -> migrationId.equals(d.migrationId())).ifPresent(this::remove);
    }

    /**
     * Its project is being deleted: with {@code drop}, removes the database Slipway made (and forgets one it only
     * connected to), throwing while that fails so the deletion is tried again; without, leaves it on its server.
     *
     * @return what was left on its server (kind, host, database name) when it was kept; empty otherwise
     */
    public Optional<String> removeForProject(String projectId, boolean drop) {
        Optional<ProjectDatabase> found = store.forProject(projectId).filter(d -> d.state() != DatabaseState.DROPPED);
        if (found.isEmpty()) return Optional.empty();
        ProjectDatabase d = found.get();
        if (!drop) return d.created() ? Optional.of(d.kind().label() + " database " + d.name() + " on " + d.host() + ":" + d.port())
                : Optional.empty();
        remove(d);
        if (store.forProject(projectId).filter(left -> left.state() != DatabaseState.DROPPED).isPresent()) {
            throw new IllegalStateException("the " + d.kind().label() + " database " + d.id() + " could not be removed yet");
        }
        return Optional.empty();
    }

    /** Removes what failed migrations left (a crash between failing and removing, a removal that failed). */
    public void sweep() {
        for (ProjectDatabase d : store.leftByFailedMigrations()) remove(d);
    }

    private void remove(ProjectDatabase d) {
        if (d.state() == DatabaseState.DROPPED) return;
        String kind = d.kind().label();
        if (!d.created()) {
            store.dropped(d);
            note(d, Level.INFO, "Discarded the connection details of the " + kind + " database " + d.id()
                    + " (nothing was created on that server)");
            return;
        }
        try {
            DbAddress admin = admins.admin(d.kind()).orElseThrow(() -> new IllegalStateException(
                    d.kind().adminSetting() + " is no longer set"));
            Provisioner.of(d.kind()).drop(admin, d.name());
            store.dropped(d);
            note(d, Level.INFO, "Removed the " + kind + " database " + d.id() + " made for this migration (database and user "
                    + d.name() + ")");
        } catch (SQLException | RuntimeException e) {
            String why = e instanceof SQLException se ? Connections.describeAdmin(se, null) : e.getMessage();
            LOG.warn("removing database {} ({} {}) failed: {}", d.id(), kind, d.name(), why);
            if (d.state() != DatabaseState.FAILED) {
                store.dropFailed(d);
                note(d, Level.WARNING, "Could not remove the " + kind + " database " + d.id() + " (" + d.name()
                        + "): " + why + "; Slipway will try again");
            }
        }
    }

    private void note(ProjectDatabase d, Level level, String message) {
        if (d.migrationId() != null) logs.append(d.migrationId(), level, message);
    }
}
