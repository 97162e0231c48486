package dev.slipway.dashboard;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.api.ApiException;
import dev.slipway.api.AppUrls;
import dev.slipway.api.Body;
import dev.slipway.core.Json;
import dev.slipway.dashboard.Html.Safe;
import dev.slipway.migrations.Migration;
import dev.slipway.migrations.MigrationService;
import dev.slipway.projects.ProjectInput;
import dev.slipway.projects.ProjectStore;
import dev.slipway.runtime.InstanceType;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A new project from a git repository: the form of {@code POST /v1/migrations} for people, read and checked by the
 * same code, so it refuses what the API refuses with the same words. The project's first deployment then shows on
 * its migration's page, live.
 */
public final class NewProjectPages {
    static final String PATH = "/dashboard/projects/new";
    private static final List<String> FIELDS = List.of("source", "repo", "branch", "name", "framework", "root_directory");
    private static final String AUTO = "auto";

    private final ProjectStore projects;
    private final MigrationService migrations;
    private final List<String> regions;
    private final AppUrls urls;

    public NewProjectPages(ProjectStore projects, MigrationService migrations, List<String> regions, AppUrls urls) {
        this.projects = projects;
        this.migrations = migrations;
        this.regions = regions;
        this.urls = urls;
    }

    public void form(Context ctx, Viewer viewer) {
        render(ctx, 200, viewer, Map.of("source", "github"), null);
    }

    public void create(Context ctx, Viewer viewer, Form form) {
        Map<String, String> draft = new LinkedHashMap<>();
        ObjectNode node = Json.MAPPER.createObjectNode();
        for (String field : FIELDS) {
            String value = form.get(field) == null ? "" : form.get(field).strip();
            draft.put(field, value);
            if (!value.isEmpty() && !(field.equals("framework") && value.equals(AUTO))) node.put(field, value);
        }
        try {
            Body body = new Body(node);
            String name = ProjectInput.name(body);
            if (name != null) projects.nameProblem(name).ifPresent(problem -> body.problem("name", problem));
            ProjectInput input = ProjectInput.read(body, regions, urls.appsDomain());
            if (input.source() != null && !ProjectInput.GIT_SOURCES.contains(input.source())) {
                body.problem("source", "must be github, gitlab or bitbucket here (an upload or an image goes through the API)");
            }
            body.check();
            Migration m = migrations.start(viewer.account(), name, input, null, null, InstanceType.defaultFor(viewer.account().tier()));
            ctx.redirect("/dashboard/migrations/" + m.id(), HttpStatus.SEE_OTHER);
        } catch (ApiException e) {
            if (e.status() != 400) throw e;
            render(ctx, 400, viewer, draft, problems(e));
        }
    }

    /** "repo is required; name is already taken" from the API's per-field details. */
    private static String problems(ApiException e) {
        if (e.details() == null || e.details().isEmpty()) return e.getMessage();
        return e.details().entrySet().stream().map(d -> d.getKey().replace('_', ' ') + " " + d.getValue())
                .reduce((a, b) -> a + "; " + b).orElse(e.getMessage()) + ".";
    }

    private void render(Context ctx, int status, Viewer viewer, Map<String, String> draft, String error) {
        String source = draft.getOrDefault("source", "github");
        Safe sources = Html.each(List.copyOf(new TreeSet<>(ProjectInput.GIT_SOURCES)), s ->
                Html.fmt("<option value=\"%s\"%s>%s</option>", s, Html.when(s.equals(source), new Safe(" selected")), s));
        String framework = draft.getOrDefault("framework", AUTO);
        List<String> kinds = new ArrayList<>(List.of(AUTO));
        kinds.addAll(new TreeSet<>(ProjectInput.FRAMEWORKS));
        Safe frameworks = Html.each(kinds, f -> Html.fmt("<option value=\"%s\"%s>%s</option>", f,
                Html.when(f.equals(framework), new Safe(" selected")), f.equals(AUTO) ? "detect it" : f));
        Layout.render(ctx, status, viewer, "New project", Html.fmt("""
                <p class="crumbs"><a href="/dashboard/projects">Projects</a></p>
                <h1>New project</h1>
                <p class="muted">Slipway clones the repository, detects how to build and start it, and makes it live.
                A private repository needs its credentials set through the API first.</p>
                %s
                <form method="post" action="%s" class="stack">
                  %s
                  <label for="source">Git host</label>
                  <select id="source" name="source">%s</select>
                  <label for="repo">Repository</label>
                  <input id="repo" name="repo" type="text" required placeholder="owner/repo" value="%s" spellcheck="false" autocomplete="off">
                  <label for="branch">Branch <span class="muted">(optional: the default branch)</span></label>
                  <input id="branch" name="branch" type="text" value="%s" spellcheck="false" autocomplete="off">
                  <label for="root_directory">Folder <span class="muted">(optional: the app's folder in a monorepo)</span></label>
                  <input id="root_directory" name="root_directory" type="text" value="%s" spellcheck="false" autocomplete="off">
                  <label for="name">Project name <span class="muted">(optional: from the repository)</span></label>
                  <input id="name" name="name" type="text" maxlength="40" value="%s" spellcheck="false" autocomplete="off">
                  <label for="framework">Framework</label>
                  <select id="framework" name="framework">%s</select>
                  <button type="submit" class="primary">Create and deploy</button>
                </form>""", Layout.error(error), PATH, Layout.csrf(viewer), sources, draft.getOrDefault("repo", ""),
                draft.getOrDefault("branch", ""), draft.getOrDefault("root_directory", ""), draft.getOrDefault("name", ""),
                frameworks));
    }
}
