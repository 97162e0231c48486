package dev.slipway.pushes;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Account;
import dev.slipway.accounts.AccountStore;
import dev.slipway.api.Access;
import dev.slipway.api.ApiException;
import dev.slipway.api.AppUrls;
import dev.slipway.api.Envelope;
import dev.slipway.api.Gate;
import dev.slipway.api.Requests;
import dev.slipway.core.Json;
import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentService;
import dev.slipway.deployments.DeploymentStore;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectGit;
import dev.slipway.projects.ProjectInput;
import dev.slipway.projects.ProjectStore;
import dev.slipway.projects.ProjectView;
import dev.slipway.projects.WatchPaths;
import dev.slipway.source.GitNames;
import io.javalin.http.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Deploy on push: {@code POST /v1/projects/{id}/git-webhook} makes or rotates a project's push webhook, and the git
 * host's deliveries to its URL ({@code POST /v1/git-webhooks/{id}}, no API key: the host's signature is the proof) deploy
 * a push to the project's branch. A delivery whose proof does not verify, or whose id was received before, is
 * refused with 401 and changes nothing.
 */
public final class PushHandlers {
    private static final Logger LOG = LoggerFactory.getLogger(PushHandlers.class);
    /** Above what git hosts send for a push (GitHub caps payloads at 25 MB, but a push's is far smaller). */
    static final int MAX_PAYLOAD = 8 * 1024 * 1024;
    private static final int MAX_DELIVERY_ID = 200;
    /** The path of a deploy hook's URL, before its token. */
    public static final String DEPLOY_HOOK_PATH = "/v1/deploy-hooks/";

    private final PushHookStore hooks;
    private final ProjectStore projects;
    private final AccountStore accounts;
    private final DeploymentService deployments;
    private final AppUrls urls;
    private final Function<String, Optional<String>> refusal;
    private final DeploymentStore store;
    private final Consumer<String> retire;

    /** The webhook as its creation answers it: the secret is shown here only. */
    public record Created(String url, String secret) {}

    /** The deploy hook as its creation answers it: the URL is the secret, shown here only. */
    public record DeployHook(String url) {}

    /** What a delivery did: the deployment it started, or why it started none. */
    public record Outcome(String deploymentId, String skipped) {}

    /**
     * @param refusal why this server does not serve an account (by id); empty when it does
     * @param retire  stops a deployment's app once it is idle
     */
    public PushHandlers(PushHookStore hooks, ProjectStore projects, AccountStore accounts, DeploymentService deployments,
                        DeploymentStore store, AppUrls urls, Function<String, Optional<String>> refusal, Consumer<String> retire) {
        this.hooks = hooks;
        this.projects = projects;
        this.accounts = accounts;
        this.deployments = deployments;
        this.urls = urls;
        this.refusal = refusal;
        this.store = store;
        this.retire = retire;
    }

    public void create(Context ctx) {
        Project p = ownedGitProject(ctx, "push webhooks are for git sources (github, gitlab, bitbucket)");
        PushHookStore.Hook hook = hooks.rotate(p.id());
        ctx.json(new Envelope<>(new Created(urls.api(ProjectView.GitWebhook.PATH + hook.id()), hook.secret())));
    }

    /** {@code POST /v1/projects/{id}/deploy-hook}: makes or rotates the project's deploy hook; its URL is its secret. */
    public void createDeployHook(Context ctx) {
        Project p = ownedGitProject(ctx, "a deploy hook deploys the head of a git branch");
        ctx.json(new Envelope<>(new DeployHook(urls.api(DEPLOY_HOOK_PATH + hooks.rotateDeployHook(p.id())))));
    }

    /** A {@code POST} to a deploy hook's URL: deploys the head of the project's branch, for tools that cannot sign. */
    public void deploy(Context ctx) {
        Requests.bytes(ctx, MAX_PAYLOAD); // read and dropped: a hook's body says nothing
        String token = ctx.pathParam("token");
        Project project = (token.length() > 100 ? Optional.<String>empty() : hooks.deployHookProject(token))
                .flatMap(projects::find)
                .orElseThrow(() -> ApiException.notFound("No deploy hook at this address (it may have been rotated)"));
        Deployment d = start(project, null);
        LOG.info("deploy hook of project {}: the head of branch {} is deploying as {}", project.id(), project.branch(), d.id());
        ctx.status(202).json(new Envelope<>(new Outcome(d.id(), null)));
    }

    public void receive(Context ctx) {
        Optional<PushHookStore.Hook> found = hooks.find(ctx.pathParam("hook_id"));
        byte[] body = Requests.bytes(ctx, MAX_PAYLOAD);
        if (found.isEmpty()) throw ApiException.notFound("No push webhook at this address (it may have been rotated)");
        PushHookStore.Hook hook = found.get();
        GitHost host = GitHost.of(ctx::header).orElseThrow(() -> ApiException.unauthorized(
                "The delivery carries no signature: expected " + GitHost.HEADERS));
        if (!host.verify(host.proof(ctx::header).orElseThrow(), hook.secret(), body)) {
            LOG.info("push webhook {}: a {} delivery whose signature does not match was refused", hook.id(), host.title());
            throw ApiException.unauthorized("The " + host.title() + " signature does not match this webhook's secret");
        }
        String event = host.event(ctx::header).orElseThrow(() -> ApiException.invalid(
                "The delivery does not name its event (the " + host.title() + " event header is missing)", null));
        String delivery = host.delivery(ctx::header).orElseThrow(() -> ApiException.invalid(
                "The delivery has no id (the " + host.title() + " delivery header is missing)", null));
        if (delivery.length() > MAX_DELIVERY_ID) throw ApiException.invalid("The delivery id is longer than " + MAX_DELIVERY_ID, null);
        PushEvent push;
        try {
            push = PushEvent.parse(host, event, payload(ctx, body));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("Not a push delivery Slipway understands: " + e.getMessage(), null);
        }
        if (!hooks.firstDelivery(hook.id(), delivery)) {
            LOG.info("push webhook {}: {} delivery {} was received before: refused as a replay", hook.id(), host.title(), delivery);
            throw ApiException.unauthorized("Delivery " + delivery + " was received before: a replay is refused");
        }
        Outcome outcome = handle(hook, push);
        if (outcome.skipped() != null) {
            LOG.info("push webhook {} ({} {}): {}", hook.id(), host.title(), delivery, outcome.skipped());
        }
        ctx.status(outcome.deploymentId() != null ? 202 : 200).json(new Envelope<>(outcome));
    }

    private Outcome handle(PushHookStore.Hook hook, PushEvent push) {
        Project project = projects.find(hook.projectId()).orElseThrow(() -> ApiException.notFound("The project is gone"));
        ProjectGit git = projects.git().shown(project.id());
        switch (push.kind()) {
            case PING -> { return skipped("a ping: the webhook is reachable and its secret matches"); }
            case OTHER -> { return skipped("not a push: only pushes deploy"); }
            case DELETED -> { return skipped(push.ref() + " was deleted: nothing to deploy"); }
            case TAG -> { return tag(project, git, push); }
            case PULL_REQUEST -> { return preview(project, push); }
            case PULL_REQUEST_CLOSED -> { return closed(project, push); }
            case BRANCH -> { }
        }
        if (git.deploysTags()) {
            return skipped("a push to branch " + push.branch() + ": this project deploys pushed tags (deploy_on_push: tags)");
        }
        if (!push.branch().equals(project.branch())) {
            return skipped("a push to branch " + push.branch() + ": pushes to branch " + project.branch() + " deploy");
        }
        List<String> watched = WatchPaths.effective(git.watchPaths(), project.rootDirectory());
        if (!watched.isEmpty() && push.changed() != null && !WatchPaths.matchesAny(watched, push.changed())) {
            return skipped("commit " + push.after().substring(0, 7) + " changes nothing under the watch paths "
                    + String.join(", ", watched));
        }
        Deployment d = start(project, push.after());
        LOG.info("push webhook {}: commit {} of branch {} is deploying as {}", hook.id(), push.after(), push.branch(), d.id());
        return new Outcome(d.id(), null);
    }

    /** The path's project when the caller owns it and it has a git source; 409 with {@code why} otherwise. */
    private Project ownedGitProject(Context ctx, String why) {
        String id = ctx.pathParam("project_id");
        Project p = Access.owned(Requests.principal(ctx), projects.find(id), Project::accountId, "Project", id);
        if (!ProjectInput.GIT_SOURCES.contains(p.source())) {
            throw ApiException.invalidState("Project " + p.id() + " has source " + p.source() + ": " + why);
        }
        return p;
    }

    /** A pushed tag deploys its commit, found on the project's branch, when the project deploys tags. */
    private Outcome tag(Project project, ProjectGit git, PushEvent push) {
        if (!git.deploysTags()) {
            return skipped("a push of " + push.ref() + ": pushes to branch " + project.branch() + " deploy (deploy_on_push: branch)");
        }
        Deployment d = start(project, push.after());
        LOG.info("push webhook: tag {} deploys commit {} of project {} as {}", push.ref(), push.after(), project.id(), d.id());
        return new Outcome(d.id(), null);
    }

    /** A pull request's head, previewed; never one from a fork, whose code would run with the project's variables. */
    private Outcome preview(Project project, PushEvent pr) {
        if (pr.fork()) return skipped("a pull request from a fork: forks are not previewed (their code would get the project's variables)");
        if (!GitNames.validBranch(pr.branch())) return skipped("the pull request's branch is not a valid git branch name");
        Account account = account(project);
        Deployment d = deployments.createPreview(account.tier(), project, pr.branch(), pr.after(), null, null, null, null);
        LOG.info("push webhook: pull request of branch {} at {} is previewing as {}", pr.branch(), pr.after(), d.id());
        return new Outcome(d.id(), null);
    }

    /** A closed pull request: the live previews of its branch are retired (stopped once idle). */
    private Outcome closed(Project project, PushEvent pr) {
        List<String> previews = store.livePreviews(project.id(), pr.branch());
        previews.forEach(retire);
        return skipped("the pull request of branch " + pr.branch() + " was closed: " + previews.size()
                + " preview(s) retired");
    }

    private Account account(Project project) {
        Account account = accounts.find(project.accountId()).orElseThrow(() -> ApiException.notFound("The project's account is gone"));
        refusal.apply(account.id()).ifPresent(why -> {
            throw Gate.notServed(why);
        });
        return account;
    }

    /** A deployment of {@code commitSha} (null: the branch's head), as the project's account would start it. */
    private Deployment start(Project project, String commitSha) {
        return deployments.create(account(project).tier(), project, commitSha, null, null, null);
    }

    private static Outcome skipped(String why) {
        return new Outcome(null, why);
    }

    /** The JSON payload: the body, or GitHub's form-encoded {@code payload} field. */
    private static JsonNode payload(Context ctx, byte[] body) {
        String type = ctx.header("Content-Type");
        String raw = new String(body, StandardCharsets.UTF_8);
        if (type != null && type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
            raw = null;
            for (String pair : new String(body, StandardCharsets.US_ASCII).split("&")) {
                if (pair.startsWith("payload=")) raw = URLDecoder.decode(pair.substring(8), StandardCharsets.UTF_8);
            }
            if (raw == null) throw new IllegalArgumentException("the form has no payload field");
        }
        try {
            JsonNode node = Json.MAPPER.readTree(raw);
            if (node == null || !node.isObject()) throw new IllegalArgumentException("the payload is not a JSON object");
            return node;
        } catch (IOException e) {
            throw new IllegalArgumentException("the payload is not valid JSON");
        }
    }
}
