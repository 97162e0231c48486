package dev.slipway.client.runs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.ProjectRef;
import dev.slipway.client.api.RunKind;
import dev.slipway.client.api.Uploads;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.Deadline;
import dev.slipway.client.context.UsageException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

@Command(name = "deploy", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Deploy a project again (by name or id): the head of its branch, or --commit; a zip project deploys --zip.",
                "--preview builds a preview instead (its own address, never production), of --branch if given.",
                "Exit codes: 0 live (or created, without --wait), 1 failed, 2 usage, 3 timed out, 4 API error."})
public final class DeployCommand extends RunCommand {
    @Parameters(arity = "0..1", paramLabel = "PROJECT", description = "The project: its name or its id (prj_…)")
    String projectArg;

    @Option(names = "--project", paramLabel = "PROJECT", description = "The same, as an option")
    String project;

    @Option(names = "--commit", paramLabel = "SHA", description = "Deploy this commit (7-40 hex characters) instead of the branch head")
    String commit;

    @Option(names = "--preview", description = "A preview: served at its own address and its branch's, never production")
    boolean preview;

    @Option(names = "--branch", paramLabel = "BRANCH", description = "For a git project: build this branch (with --preview; production builds the project's)")
    String branch;

    @Option(names = "--env", paramLabel = "KEY=VALUE", description = "An env var for this deployment only, over the project's (repeatable)")
    List<String> env = new ArrayList<>();

    @Option(names = "--zip", paramLabel = "PATH", description = "For a zip project: upload this zip and deploy it")
    Path zip;

    @Option(names = "--image", paramLabel = "REF", description = "For an image project: run this image (a new tag, or @sha256:…)")
    String image;

    @Option(names = "--instance-type", paramLabel = "TYPE",
            description = "starter, standard or performance, within your tier (default: production's, else the tier's)")
    String instanceType;

    @Mixin
    WaitOptions wait;

    DeployCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected int execute() {
        String named = project != null ? project : projectArg;
        if (project != null && projectArg != null) throw new UsageException("name the project once: as PROJECT or with --project");
        if (named == null || named.isBlank()) {
            throw new UsageException("name the project to deploy: slipway deploy PROJECT, by its name or its id (prj_…)");
        }
        Map<String, String> vars = EnvPairs.parse(env);
        Deadline deadline = wait.deadline();
        if (zip != null) Uploads.readable(zip);
        try (Api api = api(deadline)) {
            String projectId = ProjectRef.resolve(api, named);
            String key = idempotencyKey();
            ObjectNode body = JsonTrees.object().put("project_id", projectId);
            if (commit != null) body.put("commit_sha", commit.trim());
            if (preview) body.put("target", "preview");
            if (branch != null) body.put("branch", branch);
            if (image != null) body.put("image", image.trim());
            EnvPairs.put(body, vars);
            if (instanceType != null) body.put("instance_type", instanceType);
            if (zip != null) body.put("upload_id", Uploads.upload(ctx, api, zip, key + "-upload"));
            JsonNode created = api.post("/deployments", body, key + "-deploy").path("data");
            String id = JsonTrees.text(created, "id");
            if (!output.json()) {
                ctx.out().println((preview ? "Preview " : "Deployment ") + id + " " + JsonTrees.text(created, "status")
                        + " (project " + projectId + ")");
            }
            return started(api, wait, RunKind.DEPLOYMENT, id, created);
        }
    }
}
