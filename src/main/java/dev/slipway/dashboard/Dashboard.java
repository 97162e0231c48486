package dev.slipway.dashboard;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpStatus;

/** The web dashboard's handler groups, for the route table. */
public record Dashboard(Auth auth, SignInPages signIn, PasswordResetPages passwordReset, KeyPages keys, WebhookPages webhooks, ProjectPages projects,
                        DeleteProjectPages deleteProject, NewProjectPages newProject, RunPages runs, Assets assets) {
    public void home(Context ctx) {
        ctx.redirect("/dashboard/projects", HttpStatus.FOUND);
    }

    /** The new-project form's folder or zip, behind the session and its CSRF token like every form. */
    public Handler newProjectUpload() {
        return auth.fileForm(newProject.maxUploadBytes(), newProject::createFromUpload, newProject::uploadUnread);
    }

    public void settings(Context ctx) {
        ctx.redirect(Layout.SETTINGS.getFirst().path(), HttpStatus.FOUND);
    }
}
