package dev.slipway.client.runs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.RunKind;
import dev.slipway.client.api.Uploads;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.Deadline;
import dev.slipway.client.context.UsageException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

@Command(name = "migrate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Connect a source, build it and make it live: creates the project and its first deployment.",
                "A git source (--source github --repo owner/repo), a zip (--zip PATH, uploaded first) or a prebuilt image (--image REF).",
                "Exit codes: 0 complete (or started, without --wait), 1 failed, 2 usage, 3 timed out, 4 API error."})
public final class MigrateCommand extends RunCommand {
    private static final Set<String> GIT_SOURCES = Set.of("github", "gitlab", "bitbucket");

    @Option(names = "--source", paramLabel = "SOURCE", description = "github, gitlab or bitbucket (zip with --zip, image with --image)")
    String source;

    @Option(names = "--repo", paramLabel = "OWNER/REPO", description = "The repository of a git source")
    String repo;

    @Option(names = "--zip", paramLabel = "PATH", description = "Upload this zip and migrate it (source zip)")
    Path zip;

    @Option(names = "--image", paramLabel = "REF", description = "Run this prebuilt OCI image, host[:port]/path[:tag] (source image)")
    String image;

    @Option(names = "--branch", description = "Branch to deploy (default: main)")
    String branch;

    @Option(names = "--framework", description = "react-vite, nextjs, node-express, python-fastapi, node, python, static or docker (default: detected; docker when there is a Dockerfile)")
    String framework;

    @Option(names = "--env", paramLabel = "KEY=VALUE", description = "An env var of the project (repeatable)")
    List<String> env = new ArrayList<>();

    @Option(names = "--domain", description = "A custom hostname for the project's production")
    String domain;

    @Option(names = "--region", description = "Region (default: us-east-1)")
    String region;

    @Option(names = "--instance-type", paramLabel = "TYPE",
            description = "starter, standard or performance, within your tier (default: the tier's)")
    String instanceType;

    @Option(names = "--database", paramLabel = "SPEC",
            description = "type=postgres,action=create or type=…,action=connect,url=… (service key from $SLIPWAY_DATABASE_SERVICE_KEY)")
    String database;

    @Mixin
    WaitOptions wait;

    MigrateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected int execute() {
        ObjectNode body = body();
        Deadline deadline = wait.deadline();
        try (Api api = api(deadline)) {
            String key = idempotencyKey();
            if (zip != null) body.put("upload_id", Uploads.upload(ctx, api, zip, key + "-upload"));
            JsonNode created = api.post("/migrations", body, key + "-migrate").path("data");
            String id = JsonTrees.text(created, "id");
            if (!output.json()) {
                ctx.out().println("Migration " + id + " " + JsonTrees.text(created, "status") + " (project "
                        + JsonTrees.text(created, "project_id") + ")");
            }
            return started(api, wait, RunKind.MIGRATION, id, created);
        }
    }

    /** The request, checked before anything is sent. */
    private ObjectNode body() {
        ObjectNode body = JsonTrees.object();
        if (image != null) {
            if (source != null && !source.equals("image")) throw new UsageException("--image is an image source; leave out --source " + source);
            if (repo != null || zip != null) throw new UsageException("--image runs an image: leave out --repo and --zip");
            body.put("source", "image").put("image", image.trim());
        } else if (zip != null) {
            if (source != null && !source.equals("zip")) throw new UsageException("--zip is a zip source; leave out --source " + source);
            if (repo != null) throw new UsageException("--repo is for git sources, not --zip");
            Uploads.readable(zip);
            body.put("source", "zip");
        } else {
            if (source == null) throw new UsageException("--source github|gitlab|bitbucket (with --repo), --zip PATH or --image REF is required");
            if (source.equals("image")) throw new UsageException("--source image needs --image REF");
            if (source.equals("zip")) throw new UsageException("--source zip needs --zip PATH");
            if (!GIT_SOURCES.contains(source)) throw new UsageException("--source must be github, gitlab or bitbucket, not '" + source + "'");
            body.put("source", source).put("repo", required(repo, "--repo (owner/repo)"));
        }
        if (branch != null) body.put("branch", branch);
        if (framework != null) body.put("framework", framework);
        EnvPairs.put(body, EnvPairs.parse(env));
        if (domain != null) body.put("domain", domain);
        if (region != null) body.put("region", region);
        if (instanceType != null) body.put("instance_type", instanceType);
        if (database != null) body.set("database", DatabaseOption.parse(database, ctx));
        return body;
    }
}
