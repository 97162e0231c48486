package dev.slipway.deployments;

import dev.slipway.api.Paging;
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
import dev.slipway.databases.DatabaseService;
import dev.slipway.databases.DatabaseState;
import dev.slipway.api.AppUrls;
import dev.slipway.logs.LogHandlers;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectInput;
import dev.slipway.projects.ProjectStore;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.InstanceTypeField;
import dev.slipway.runtime.ProcessState;
import dev.slipway.source.GitNames;
import dev.slipway.source.Upload;
import dev.slipway.source.UploadStore;
import io.javalin.http.Context;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.Set;
import java.util.stream.Collectors;

/** {@code /v1/deployments}: list, read (with {@code ?wait}), trigger, roll back, cancel, logs. */
public final class DeploymentHandlers {
    private static final Set<String> CREATE_FIELDS = Set.of("project_id", "commit_sha", "env_vars", "upload_id", "image", "target", "branch", "share_database",
            InstanceTypeField.NAME);

    private final DeploymentStore deployments;
    private final DeploymentService service;
    private final ProjectStore projects;
    private final UploadStore uploads;
    private final LogHandlers logs;
    private final AppUrls urls;
    private final Function<String, List<ProcessState>> processes;

    /** @param processes what the runtime runs of a deployment now ({@code AppRuntime#processes}) */
    public DeploymentHandlers(DeploymentStore deployments, DeploymentService service, ProjectStore projects,
                              UploadStore uploads, LogHandlers logs, AppUrls urls, Function<String, List<ProcessState>> processes) {
        this.processes = processes;
        this.deployments = deployments;
        this.service = service;
        this.projects = projects;
        this.uploads = uploads;
        this.logs = logs;
        this.urls = urls;
    }

    public void list(Context ctx) {
        Principal principal = Requests.principal(ctx);
        PageRequest request = Paging.request(ctx);
        DeploymentStatus status = status(ctx.queryParam("status"));
        String projectId = ctx.queryParam("project_id");
        if (projectId != null) {
            Access.owned(principal, projects.find(projectId), Project::accountId, "Project", projectId);
        }
        Page<Deployment> page = deployments.page(principal.accountId(), projectId, status, request);
        // one query for the names of every project on the page (a page of 100 may name 100 projects)
        Map<String, String> names = projects.names(page.data().stream().map(Deployment::projectId).collect(Collectors.toSet()));
        List<DeploymentView> views = page.data().stream()
                .map(d -> DeploymentView.of(d, names.getOrDefault(d.projectId(), "unknown"), urls)).toList();
        ctx.json(new Page<>(views, page.pagination()));
    }

    public void get(Context ctx) throws InterruptedException {
        Deployment first = owned(ctx, ctx.pathParam("deployment_id"));
        Deployment d = LongPoll.await(ctx, deployments.changes(), first.id(), () -> deployments.find(first.id()).orElseThrow(),
                x -> x.status().label(), x -> x.status().finished());
        Project project = projects.find(d.projectId()).orElseThrow();
        // a prebuilt image's deployment shows the image it runs from the start: the reference asked for, then its digest
        String image = d.image() != null ? d.image() : d.artifactId() == null ? null : deployments.image(d.artifactId()).orElse(null);
        ctx.json(new Envelope<>(DeploymentView.Detail.of(d, project.name(), d.id().equals(project.productionDeploymentId()), urls, image,
                running(d)).withConfig(d.artifactId() == null ? null : deployments.config(d.artifactId()).orElse(null))));
    }

    /** What runs of it: a live rollback that switched to its target's still-running app shows that app's processes. */
    private List<ProcessState> running(Deployment d) {
        List<ProcessState> own = processes.apply(d.id());
        if (!own.isEmpty() || d.rollbackOf() == null || d.status() != DeploymentStatus.LIVE) return own;
        return processes.apply(d.rollbackOf());
    }

    public Reply create(Context ctx) {
        Principal principal = Requests.principal(ctx);
        Body body = Requests.json(ctx, Requests.MAX_JSON_BODY);
        body.only(CREATE_FIELDS);
        String projectId = body.string("project_id", true, 40, null, null);
        String sha = body.string("commit_sha", false, 40, GitNames.SHA, "must be 7 to 40 lowercase hex characters");
        Map<String, String> env = body.stringMap("env_vars", ProjectInput.MAX_ENV_VARS, ProjectInput.ENV_NAME,
                "is not a valid variable name (letters, digits and '_', not starting with a digit)", ProjectInput.MAX_ENV_VALUE);
        String uploadId = body.string("upload_id", false, 40, null, null);
        String image = ProjectInput.image(body, false);
        InstanceType type = InstanceTypeField.read(body, principal.account().tier());
        String target = body.oneOf("target", false, Set.of(Deployment.PRODUCTION, Deployment.PREVIEW));
        String branch = body.string("branch", false, 255, null, null);
        if (branch != null && !GitNames.validBranch(branch)) body.problem("branch", "is not a valid git branch name");
        boolean shareDatabase = Boolean.TRUE.equals(body.bool("share_database"));
        if (shareDatabase && !Deployment.PREVIEW.equals(target)) {
            body.problem("share_database", "is for previews: production always gets the project's database");
        }
        body.check();
        Project project = Access.owned(principal, projects.find(projectId), Project::accountId, "Project", projectId);
        boolean ofImage = ProjectInput.IMAGE.equals(project.source());
        if (image != null && !ofImage) throw ApiException.invalidField("image", "is only for projects with source image");
        if (ofImage && sha != null) throw ApiException.invalidField("commit_sha", "is not for projects with source image: pass image");
        if ("zip".equals(project.source())) {
            if (sha != null) throw ApiException.invalidField("commit_sha", "is only for projects with a git source");
        } else if (uploadId != null) {
            throw ApiException.invalidField("upload_id", "is only for projects with a zip source");
        }
        if (uploadId != null) Access.owned(principal, uploads.find(uploadId), Upload::accountId, "Upload", uploadId);
        boolean preview = Deployment.PREVIEW.equals(target);
        if (env != null && env.containsKey(DatabaseService.VARIABLE) && hasDatabase(project) && (!preview || shareDatabase)) {
            throw ApiException.invalidField("env_vars." + DatabaseService.VARIABLE, "is set by the project's database ("
                    + project.database().id() + "); remove it from env_vars");
        }
        if (branch != null && !ProjectInput.GIT_SOURCES.contains(project.source())) {
            throw ApiException.invalidField("branch", "is only for projects with a git source");
        }
        if (branch != null && !preview && !branch.equals(project.branch())) {
            throw ApiException.invalidField("branch", "production deploys the project's branch (" + project.branch()
                    + "); deploy another branch with \"target\": \"preview\", or change the project's branch with PATCH");
        }
        Deployment d = preview ? service.createPreview(principal.account().tier(), project, branch, sha, env, uploadId, image, type, shareDatabase)
                : service.create(principal.account().tier(), project, sha, env, uploadId, type, image);
        return Reply.created("/v1/deployments/" + d.id(),
                new DeploymentView.Triggered(d.id(), d.projectId(), d.status().label(), d.createdAt()));
    }

    /** A database the platform made or connected for the project, and has not removed: it sets DATABASE_URL. */
    private static boolean hasDatabase(Project project) {
        return project.database() != null && DatabaseState.parse(project.database().state()).usable();
    }

    public Reply rollback(Context ctx) {
        Deployment target = owned(ctx, ctx.pathParam("deployment_id"));
        Project project = projects.find(target.projectId()).orElseThrow();
        Deployment d = service.rollback(project, target, Requests.afterAnswer(ctx));
        return Reply.created("/v1/deployments/" + d.id(), new DeploymentView.RolledBack(d.id(), d.projectId(),
                d.rolledBackFrom(), target.id(), d.status().label(), d.createdAt()));
    }

    /** Makes a live preview production without rebuilding it; answers like a rollback. */
    public Reply promote(Context ctx) {
        Deployment preview = owned(ctx, ctx.pathParam("deployment_id"));
        Project project = projects.find(preview.projectId()).orElseThrow(() -> ApiException.notFound("Project " + preview.projectId()));
        Deployment d = service.promote(project, preview);
        return Reply.created("/v1/deployments/" + d.id(), new DeploymentView.RolledBack(d.id(), d.projectId(),
                project.productionDeploymentId(), preview.id(), d.status().label(), d.createdAt()));
    }

    public Reply cancel(Context ctx) {
        Deployment d = owned(ctx, ctx.pathParam("deployment_id"));
        service.cancel(d);
        Deployment now = deployments.find(d.id()).orElseThrow();
        Project project = projects.find(now.projectId()).orElseThrow();
        return new Reply(200, null, new Envelope<>(DeploymentView.Detail.of(now, project.name(), false, urls)));
    }

    /**
     * A stream ends when the run does ({@code until=finished}, the default: live or failed), or with
     * {@code until=stopped} once the deployment serves no more, so its app's output streams too.
     */
    public void logs(Context ctx) throws Exception {
        String until = ctx.queryParam("until");
        if (until != null && !until.equals("finished") && !until.equals("stopped")) {
            throw ApiException.invalidField("until", "must be finished or stopped");
        }
        Deployment d = owned(ctx, ctx.pathParam("deployment_id"));
        logs.serve(ctx, d.id(), "stopped".equals(until) ? () -> deployments.logEnded(d.id())
                : () -> deployments.find(d.id()).map(x -> x.status().finished()).orElse(true));
    }

    private Deployment owned(Context ctx, String id) {
        return Access.owned(Requests.principal(ctx), deployments.find(id), Deployment::accountId, "Deployment", id);
    }

    private static DeploymentStatus status(String raw) {
        if (raw == null || raw.isEmpty()) return null;
        try {
            return DeploymentStatus.parse(raw);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("status", "must be one of queued, building, deploying, live, failed, rolled_back");
        }
    }
}
