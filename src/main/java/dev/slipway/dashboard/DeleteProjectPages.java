package dev.slipway.dashboard;

import dev.slipway.dashboard.Html.Safe;
import dev.slipway.projects.Project;
import dev.slipway.teardown.Deletions;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

/**
 * Deleting a project from its page: a confirmation where the project's name must be typed, as it cannot be undone;
 * its database goes too only when that box is ticked.
 */
public final class DeleteProjectPages {
    private final ProjectPages projects;
    private final Deletions deletions;

    public DeleteProjectPages(ProjectPages projects, Deletions deletions) {
        this.projects = projects;
        this.deletions = deletions;
    }

    public void confirm(Context ctx, Viewer viewer) {
        render(ctx, 200, viewer, projects.owned(ctx, viewer), null);
    }

    public void delete(Context ctx, Viewer viewer, Form form) {
        Project p = projects.owned(ctx, viewer);
        String typed = form.get("confirm_name");
        if (!p.name().equals(typed == null ? "" : typed.strip())) {
            render(ctx, 422, viewer, p, "Type the project's name, " + p.name() + ", to delete it.");
            return;
        }
        deletions.request(p.id(), "on".equals(form.get("delete_database")));
        ctx.redirect("/dashboard/projects?deleted=" + p.name(), HttpStatus.SEE_OTHER);
    }

    private void render(Context ctx, int status, Viewer viewer, Project p, String error) {
        Safe database = p.database() == null ? Html.EMPTY : Html.fmt("""
                <p><label><input type="checkbox" name="delete_database"> Also delete its %s database
                <code>%s</code> and all its data. Unticked, the database stays on its server and Slipway no longer
                manages it.</label></p>""", p.database().type(), p.database().id());
        Layout.render(ctx, status, viewer, "Delete " + p.name(), Html.fmt("""
                <p class="crumbs"><a href="/dashboard/projects">Projects</a> / <a href="/dashboard/projects/%s">%s</a></p>
                <section class="card danger">
                  <h1>Delete %s?</h1>
                  <p>Its apps stop (production and previews), its addresses stop answering, and its deployments, builds,
                  logs and env vars are deleted. This cannot be undone.</p>
                  %s
                  <form method="post" action="/dashboard/projects/%s/delete">
                    %s
                    <p><label for="confirm-name">Type <strong>%s</strong> to confirm</label><br>
                    <input id="confirm-name" name="confirm_name" type="text" autocomplete="off" spellcheck="false" required></p>
                    %s
                    <div class="actions">
                      <button type="submit" class="danger">Delete project</button>
                      <a href="/dashboard/projects/%s" class="button">Cancel</a>
                    </div>
                  </form>
                </section>""", p.id(), p.name(), p.name(), Layout.error(error), p.id(), Layout.csrf(viewer), p.name(),
                database, p.id()));
    }
}
