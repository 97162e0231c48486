package dev.slipway.projects;

import dev.slipway.runtime.HealthSpec;
import dev.slipway.api.Paging;
import dev.slipway.api.Access;
import dev.slipway.api.Body;
import dev.slipway.api.Envelope;
import dev.slipway.api.Reply;
import dev.slipway.store.Page;
import dev.slipway.store.PageRequest;
import dev.slipway.api.Requests;
import dev.slipway.auth.Principal;
import dev.slipway.api.AppUrls;
import dev.slipway.source.GitNames;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.InstanceTypeField;
import dev.slipway.runtime.Replicas;
import io.javalin.http.ContentType;
import io.javalin.http.Context;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/** {@code /v1/projects}: list, read, create without deploying, and change. */
public final class ProjectHandlers {
    private static final Set<String> CREATE_FIELDS =
            Set.of("name", "source", "repo", "image", "registry_auth", "dockerfile_path", "branch", "framework", "region", "domain",
                    "env_vars", "root_directory", "hsts", "git_credentials", "watch_paths", "deploy_on_push", "commit_statuses");
    private static final Set<String> UPDATE_FIELDS = Set.of("branch", "git_credentials", "watch_paths", "deploy_on_push",
            "commit_statuses", "root_directory", InstanceTypeField.NAME, HealthCheckInput.FIELD, "replicas", "name");

    private final ProjectStore projects;
    private final AppUrls urls;
    private final List<String> regions;
    private final ProjectView.Certificates certificates;
    private final Scaling scaling;
    private final Renames renames;
    private final ReadAnswers answers = new ReadAnswers();

    public ProjectHandlers(ProjectStore projects, AppUrls urls, List<String> regions) {
        this(projects, urls, regions, ProjectView.Certificates.NONE, Scaling.NONE, Renames.NONE);
    }

    /**
     * @param certificates the certificate of a custom domain, as its project shows it
     * @param scaling      what runs its production as many instances as a changed {@code replicas} says
     * @param renames      what moves its addresses to a changed {@code name}
     */
    public ProjectHandlers(ProjectStore projects, AppUrls urls, List<String> regions, ProjectView.Certificates certificates,
                           Scaling scaling, Renames renames) {
        this.renames = renames;
        this.projects = projects;
        this.urls = urls;
        this.regions = regions;
        this.certificates = certificates;
        this.scaling = scaling;
    }

    public void list(Context ctx) {
        Principal principal = Requests.principal(ctx);
        Page<Project> page = projects.page(principal.accountId(), Paging.request(ctx));
        List<String> ids = page.data().stream().map(Project::id).toList();
        var auths = projects.registryAuths(ids);
        var git = projects.git().shown(ids);
        ctx.json(new Page<>(page.data().stream().map(p -> ProjectView.of(p, urls, certificates, auths.get(p.id()),
                git.getOrDefault(p.id(), ProjectGit.NONE))).toList(), page.pagination()));
    }

    public void get(Context ctx) {
        String id = ctx.pathParam("project_id");
        ProjectStore.Shown s = Access.owned(Requests.principal(ctx), projects.shown(id), x -> x.project().accountId(), "Project", id);
        String domain = s.project().domain();
        ProjectView.Certificate certificate = domain == null ? null : certificates.of(domain).orElse(null);
        ctx.contentType(ContentType.APPLICATION_JSON).result(answers.of(s, certificate, () -> new Envelope<>(ProjectView.of(
                s.project(), urls, d -> Optional.ofNullable(certificate), s.registryAuth(), s.git()))));
    }

    /**
     * {@code PATCH}: changes the fields the request names ({@code branch}, {@code git_credentials}, {@code watch_paths},
     * {@code root_directory}, {@code instance_type}, …) and keeps the others; answers the project as a read does. A
     * null {@code root_directory} or {@code instance_type} clears it.
     */
    public void update(Context ctx) {
        Project p = owned(ctx, ctx.pathParam("project_id"));
        Body body = Requests.json(ctx, Requests.MAX_JSON_BODY);
        body.only(UPDATE_FIELDS);
        String branch = null;
        if (body.node().has("branch")) {
            if (!ProjectInput.GIT_SOURCES.contains(p.source())) {
                body.problem("branch", "is only for git sources (github, gitlab, bitbucket)");
            } else {
                branch = body.string("branch", true, 255, null, null);
                if (branch != null && !GitNames.validBranch(branch)) body.problem("branch", "is not a valid git branch name");
            }
        }
        Optional<String> rootDirectory = null;
        if (body.node().has("root_directory")) {
            if (ProjectInput.IMAGE.equals(p.source())) body.problem("root_directory", "is not for a prebuilt image");
            else rootDirectory = Optional.ofNullable(ProjectInput.rootDirectory(body));
        }
        Optional<String> instanceType = null;
        if (body.node().has(InstanceTypeField.NAME)) {
            InstanceType type = InstanceTypeField.read(body, Requests.principal(ctx).account().tier());
            instanceType = Optional.ofNullable(type).map(InstanceType::label);
        }
        Optional<HealthSpec> health = body.node().has(HealthCheckInput.FIELD)
                ? Optional.ofNullable(HealthCheckInput.read(body)) : null;
        String name = null;
        if (body.node().has("name")) {
            name = ProjectInput.name(body);
            if (name == null) body.problem("name", "is required (it cannot be cleared)");
            else if (name.equals(p.name())) name = null;
            else projects.nameProblem(name).ifPresent(problem -> body.problem("name", problem));
        }
        Optional<Integer> replicas = null;
        if (body.node().has("replicas")) {
            replicas = Optional.ofNullable(body.integer("replicas", 1, Replicas.MAX));
            var tier = Requests.principal(ctx).account().tier();
            if (replicas.isPresent() && replicas.get() > tier.maxReplicas()) {
                body.problem("replicas", "is over the " + tier.label() + " tier's " + tier.maxReplicas() + " instances");
            } else {
                replicas.flatMap(n -> scaling.refusal(p, n)).ifPresent(why -> body.problem("replicas", why));
            }
        }
        GitInput git = GitInput.read(body, p.source());
        body.check();
        projects.update(p.id(), new ProjectPatch(branch, rootDirectory, instanceType, health, replicas, name), git);
        if (name != null) renames.renamed(p.id(), p.name(), name);
        if (replicas != null) scaling.changed(p.id());
        ctx.json(new Envelope<>(view(projects.find(p.id()).orElseThrow())));
    }

    private ProjectView view(Project p) {
        return ProjectView.of(p, urls, certificates, projects.registryAuths(List.of(p.id())).get(p.id()), projects.git().shown(p.id()));
    }

    public Reply create(Context ctx) {
        Principal principal = Requests.principal(ctx);
        Body body = Requests.json(ctx, Requests.MAX_JSON_BODY);
        body.only(CREATE_FIELDS);
        String name = ProjectInput.name(body);
        ProjectInput input = ProjectInput.read(body, regions, urls.appsDomain());
        if (name != null) projects.nameProblem(name).ifPresent(problem -> body.problem("name", problem));
        if (input.domain() != null && projects.domainTaken(input.domain())) body.problem("domain", "is already used by a project");
        body.check();
        if (name == null) name = projects.freeName(ProjectInput.nameFrom(input.source(), input.repo()));
        Project created = projects.create(new NewProject(principal.accountId(), name, input.source(), input.repo(),
                input.branch(), input.framework(), input.region(), input.domain(), input.envVars(), input.rootDirectory(), input.hsts(),
                input.dockerfilePath()), input.registryLogin(), input.git());
        return Reply.created("/v1/projects/" + created.id(), view(created));
    }

    /** The project if the caller's account owns it; 404 or 403 otherwise. */
    public Project owned(Context ctx, String id) {
        return Access.owned(Requests.principal(ctx), projects.find(id), Project::accountId, "Project", id);
    }
}
