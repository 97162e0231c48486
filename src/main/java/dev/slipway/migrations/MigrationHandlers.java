package dev.slipway.migrations;

import dev.slipway.api.Paging;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.api.Access;
import dev.slipway.api.ApiException;
import dev.slipway.api.Body;
import dev.slipway.api.Envelope;
import dev.slipway.api.LongPoll;
import dev.slipway.store.Page;
import dev.slipway.store.PageRequest;
import dev.slipway.api.Reply;
import dev.slipway.api.Requests;
import dev.slipway.auth.Principal;
import dev.slipway.api.AppUrls;
import dev.slipway.databases.DatabaseService;
import dev.slipway.runtime.InstanceTypeField;
import dev.slipway.logs.LogHandlers;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectInput;
import dev.slipway.projects.ProjectStore;
import dev.slipway.runtime.InstanceType;
import dev.slipway.source.Upload;
import dev.slipway.source.UploadStore;
import io.javalin.http.Context;

import java.util.List;
import java.util.Set;

/** {@code /v1/migrations}: start one, list, read (with {@code ?wait}), logs. */
public final class MigrationHandlers {
    private static final Set<String> CREATE_FIELDS = Set.of("hsts", "source", "repo", "image", "registry_auth", "dockerfile_path", "branch", "framework", "env_vars",
            "database", "domain", "region", "upload_id", InstanceTypeField.NAME, "name", "root_directory", "git_credentials", "watch_paths", "deploy_on_push", "commit_statuses");

    private final MigrationStore migrations;
    private final MigrationService service;
    private final ProjectStore projects;
    private final UploadStore uploads;
    private final LogHandlers logs;
    private final AppUrls urls;
    private final List<String> regions;

    public MigrationHandlers(MigrationStore migrations, MigrationService service, ProjectStore projects,
                             UploadStore uploads, LogHandlers logs, AppUrls urls, List<String> regions) {
        this.migrations = migrations;
        this.service = service;
        this.projects = projects;
        this.uploads = uploads;
        this.logs = logs;
        this.urls = urls;
        this.regions = regions;
    }

    public void list(Context ctx) {
        Principal principal = Requests.principal(ctx);
        PageRequest request = Paging.request(ctx);
        MigrationStatus status = status(ctx.queryParam("status"));
        Page<Migration> page = migrations.page(principal.accountId(), status, request);
        ctx.json(new Page<>(page.data().stream().map(MigrationView::of).toList(), page.pagination()));
    }

    public void get(Context ctx) throws InterruptedException {
        Migration first = owned(ctx, ctx.pathParam("migration_id"));
        Migration m = LongPoll.await(ctx, migrations.changes(), first.id(), () -> migrations.find(first.id()).orElseThrow(),
                x -> x.status().label(), x -> x.status().finished());
        String name = projects.find(m.projectId()).map(Project::name).orElse("unknown");
        ctx.json(new Envelope<>(MigrationView.Detail.of(m, name, urls)));
    }

    public Reply create(Context ctx) {
        Principal principal = Requests.principal(ctx);
        Body body = Requests.json(ctx, Requests.MAX_JSON_BODY);
        body.only(CREATE_FIELDS);
        String name = ProjectInput.name(body);
        if (name != null) projects.nameProblem(name).ifPresent(problem -> body.problem("name", problem));
        ProjectInput input = ProjectInput.read(body, regions, urls.appsDomain());
        String uploadId = null;
        if ("zip".equals(input.source())) {
            uploadId = body.string("upload_id", true, 40, null, null);
        } else if (body.has("upload_id")) {
            body.problem("upload_id", "is only for source zip");
        }
        InstanceType type = InstanceTypeField.read(body, principal.account().tier());
        ObjectNode database = body.object("database", false);
        DatabaseRequest db = database == null ? null : DatabaseRequest.read(database, body);
        if (input.domain() != null && projects.domainTaken(input.domain())) body.problem("domain", "is already used by a project");
        if (db != null && input.envVars() != null && input.envVars().containsKey(DatabaseService.VARIABLE)) {
            body.problem("env_vars." + DatabaseService.VARIABLE, "is set by the database of this migration; remove one of them");
        }
        body.check();
        Upload upload = null;
        if (uploadId != null) {
            String id = uploadId;
            upload = Access.owned(principal, uploads.find(id), Upload::accountId, "Upload", id);
        }
        DatabaseService.Plan plan = db == null ? null : service.databases().plan(db.type(), db.action(), db.url(), db.serviceKey());
        Migration m = service.start(principal.account(), name, input, upload, plan, type);
        return Reply.created("/v1/migrations/" + m.id(),
                new MigrationView.Created(m.id(), m.status().label(), m.projectId(), m.createdAt()));
    }

    public void logs(Context ctx) throws Exception {
        Migration m = owned(ctx, ctx.pathParam("migration_id"));
        logs.serve(ctx, m.id(), () -> migrations.find(m.id()).map(x -> x.status().finished()).orElse(true));
    }

    private Migration owned(Context ctx, String id) {
        return Access.owned(Requests.principal(ctx), migrations.find(id), Migration::accountId, "Migration", id);
    }

    private static MigrationStatus status(String raw) {
        if (raw == null || raw.isEmpty()) return null;
        try {
            return MigrationStatus.parse(raw);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("status", "must be one of pending, processing, complete, failed");
        }
    }
}
