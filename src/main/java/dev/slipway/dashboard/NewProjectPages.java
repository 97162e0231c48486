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
import dev.slipway.source.Upload;
import dev.slipway.source.UploadIntake;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A new project from a git repository, or from a folder or zip uploaded from the browser: the forms of
 * {@code POST /v1/migrations} (and {@code POST /v1/uploads}) for people, read and checked by the same code, so they
 * refuse what the API refuses with the same words. The project's first deployment then shows on its migration's
 * page, live.
 */
public final class NewProjectPages {
    static final String PATH = "/dashboard/projects/new";
    static final String UPLOAD_PATH = PATH + "/upload";
    private static final List<String> FIELDS = List.of("source", "repo", "branch", "name", "framework", "root_directory");
    private static final List<String> UPLOAD_FIELDS = List.of("name", "framework", "root_directory");
    /** In a draft: the form it belongs to, {@link #UPLOAD} for the folder-or-zip form. */
    private static final String FROM = "from";
    private static final String UPLOAD = "upload";
    private static final String AUTO = "auto";

    private final ProjectStore projects;
    private final MigrationService migrations;
    private final UploadIntake uploads;
    private final List<String> regions;
    private final AppUrls urls;

    public NewProjectPages(ProjectStore projects, MigrationService migrations, UploadIntake uploads, List<String> regions,
                           AppUrls urls) {
        this.projects = projects;
        this.migrations = migrations;
        this.uploads = uploads;
        this.regions = regions;
        this.urls = urls;
    }

    public void form(Context ctx, Viewer viewer) {
        render(ctx, 200, viewer, Map.of("source", "github"), null);
    }

    public void create(Context ctx, Viewer viewer, Form form) {
        Map<String, String> draft = new LinkedHashMap<>();
        ObjectNode node = Json.MAPPER.createObjectNode();
        read(form::get, FIELDS, draft, node);
        try {
            Body body = new Body(node);
            String name = name(body);
            ProjectInput input = ProjectInput.read(body, regions, urls.appsDomain());
            if (input.source() != null && !ProjectInput.GIT_SOURCES.contains(input.source())) {
                body.problem("source", "must be github, gitlab or bitbucket here (a folder or zip has its own form below; an image goes through the API)");
            }
            body.check();
            Migration m = migrations.start(viewer.account(), name, input, null, null, InstanceType.defaultFor(viewer.account().tier()));
            ctx.redirect("/dashboard/migrations/" + m.id(), HttpStatus.SEE_OTHER);
        } catch (ApiException e) {
            if (e.status() != 400) throw e;
            render(ctx, 400, viewer, draft, problems(e));
        }
    }

    /** The form's fields into the draft shown back and the API's body; "detect it" is no framework. */
    private static void read(Function<String, String> form, List<String> fields, Map<String, String> draft, ObjectNode node) {
        for (String field : fields) {
            String value = form.apply(field) == null ? "" : form.apply(field).strip();
            draft.put(field, value);
            if (!value.isEmpty() && !(field.equals("framework") && value.equals(AUTO))) node.put(field, value);
        }
    }

    /** The project's name, refused on {@code body} as {@code POST /v1/migrations} refuses it (taken, reserved). */
    private String name(Body body) {
        String name = ProjectInput.name(body);
        if (name != null) projects.nameProblem(name).ifPresent(problem -> body.problem("name", problem));
        return name;
    }

    /** The largest folder or zip the upload form takes, in bytes. */
    long maxUploadBytes() { return uploads.maxBytes(); }

    /**
     * The folder-or-zip form: its fields checked first, so a refused field stores nothing; then the zip, or the
     * folder packed into one, stored as {@code POST /v1/uploads} stores it; then the migration, as from git.
     */
    void createFromUpload(Context ctx, Viewer viewer, FileForm form) {
        Map<String, String> draft = new LinkedHashMap<>();
        draft.put(FROM, UPLOAD);
        ObjectNode node = Json.MAPPER.createObjectNode().put("source", "zip");
        read(form::get, UPLOAD_FIELDS, draft, node);
        try {
            Body body = new Body(node);
            String name = name(body);
            ProjectInput input = ProjectInput.read(body, regions, urls.appsDomain());
            body.check();
            Upload upload = UploadedFiles.store(uploads, viewer.account(), form.files("zip"), form.files("folder"));
            Migration m = migrations.start(viewer.account(), name, input, upload, null, InstanceType.defaultFor(viewer.account().tier()));
            ctx.redirect("/dashboard/migrations/" + m.id(), HttpStatus.SEE_OTHER);
        } catch (ApiException e) {
            if (e.status() != 400 && e.status() != 413) throw e;
            render(ctx, e.status(), viewer, draft, problems(e));
        }
    }

    /** The upload form again, with why its body could not be read (too large, not multipart). */
    void uploadUnread(Context ctx, Viewer viewer, ApiException problem) {
        render(ctx, problem.status(), viewer, Map.of(FROM, UPLOAD), problems(problem));
    }

    /** "repo is required; name is already taken" from the API's per-field details. */
    private static String problems(ApiException e) {
        if (e.details() == null || e.details().isEmpty()) return e.getMessage();
        return e.details().entrySet().stream().map(d -> d.getKey().replace('_', ' ') + " " + d.getValue())
                .reduce((a, b) -> a + "; " + b).orElse(e.getMessage()) + ".";
    }

    private void render(Context ctx, int status, Viewer viewer, Map<String, String> draft, String error) {
        boolean upload = UPLOAD.equals(draft.get(FROM));
        Map<String, String> git = upload ? Map.of() : draft;
        Map<String, String> files = upload ? draft : Map.of();
        String source = git.getOrDefault("source", "github");
        Safe sources = Html.each(List.copyOf(new TreeSet<>(ProjectInput.GIT_SOURCES)), s ->
                Html.fmt("<option value=\"%s\"%s>%s</option>", s, Html.when(s.equals(source), new Safe(" selected")), s));
        Layout.render(ctx, status, viewer, "New project", Html.fmt("""
                <p class="crumbs"><a href="/dashboard/projects">Projects</a></p>
                <h1>New project</h1>
                %s
                <h2>From a git repository</h2>
                <p class="muted">Slipway clones the repository, detects how to build and start it, and makes it live.
                A private repository needs its credentials set through the API first.</p>
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
                </form>
                <h2>From a folder or zip</h2>
                <p class="muted">Choose a .zip of the app or its folder (up to %s MB): Slipway detects how to build and
                start it, and makes it live. Leave out what a build makes, such as node_modules.</p>
                <form method="post" action="%s" enctype="multipart/form-data" class="stack">
                  %s
                  <label for="zip">Zip file</label>
                  <input id="zip" name="zip" type="file" accept=".zip,application/zip">
                  <label for="folder">Or a folder</label>
                  <input id="folder" name="folder" type="file" webkitdirectory multiple>
                  <label for="upload_root_directory">Folder <span class="muted">(optional: the app's folder inside it)</span></label>
                  <input id="upload_root_directory" name="root_directory" type="text" value="%s" spellcheck="false" autocomplete="off">
                  <label for="upload_name">Project name <span class="muted">(optional: from the folder)</span></label>
                  <input id="upload_name" name="name" type="text" maxlength="40" value="%s" spellcheck="false" autocomplete="off">
                  <label for="upload_framework">Framework</label>
                  <select id="upload_framework" name="framework">%s</select>
                  <button type="submit" class="primary">Upload and deploy</button>
                </form>""", Layout.error(error), PATH, Layout.csrf(viewer), sources, git.getOrDefault("repo", ""),
                git.getOrDefault("branch", ""), git.getOrDefault("root_directory", ""), git.getOrDefault("name", ""),
                frameworks(git.getOrDefault("framework", AUTO)), uploads.maxBytes() / (1024 * 1024), UPLOAD_PATH,
                Layout.csrf(viewer), files.getOrDefault("root_directory", ""), files.getOrDefault("name", ""),
                frameworks(files.getOrDefault("framework", AUTO))));
    }

    private static Safe frameworks(String selected) {
        List<String> kinds = new ArrayList<>(List.of(AUTO));
        kinds.addAll(new TreeSet<>(ProjectInput.FRAMEWORKS));
        return Html.each(kinds, f -> Html.fmt("<option value=\"%s\"%s>%s</option>", f,
                Html.when(f.equals(selected), new Safe(" selected")), f.equals(AUTO) ? "detect it" : f));
    }
}
