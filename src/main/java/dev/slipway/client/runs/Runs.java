package dev.slipway.client.runs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.ApiError;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.Paths;
import dev.slipway.client.api.RunKind;
import dev.slipway.client.command.Exit;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.Durations;
import dev.slipway.client.context.TimedOut;
import dev.slipway.client.logs.LogFollower;
import dev.slipway.client.logs.LogLines;
import dev.slipway.client.output.OutputOption;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;

/** After a run is created: wait or follow it to a final state, report it, and give its exit code. */
final class Runs {
    static final int TAIL_LINES = 30;

    private Runs() {}

    static int finish(Context ctx, Api api, RunKind kind, String id, WaitOptions wait, OutputOption output) {
        String what = "waiting for " + kind.noun + " " + id;
        Waiter waiter = new Waiter(api);
        JsonNode run;
        try {
            if (wait.follow) {
                PrintStream lines = output.json() ? ctx.err() : ctx.out();
                new LogFollower(api, ctx).follow(kind.path(id) + "/logs", e -> lines.println(LogLines.format(e)), what);
                try (Progress quiet = new Progress.Plain(new PrintStream(OutputStream.nullOutputStream()))) {
                    run = waiter.await(kind, id, quiet); // the stream ended with the run: one read, normally
                }
            } else {
                try (Progress progress = Progress.of(ctx)) {
                    run = waiter.await(kind, id, progress);
                }
            }
        } catch (TimedOut e) {
            if (!api.deadline().passed()) throw e; // interrupted
            String status = waiter.lastStatus();
            throw new TimedOut("timed out after " + Durations.format(api.deadline().limit()) + " " + what + ", which is "
                    + (status == null ? "not finished" : "still " + status) + " and goes on on the server"
                    + (kind == RunKind.DEPLOYMENT ? " ('slipway cancel " + id + "' stops it)" : ""));
        }
        api = api.unbounded();
        boolean ok = kind.succeeded(run);
        if (output.json()) output.print(ctx, run);
        if (ok) {
            if (!output.json()) ctx.out().println(success(kind, id, run, api));
            return Exit.OK;
        }
        ctx.err().println(capital(kind.noun) + " " + id + " " + JsonTrees.text(run, "status") + ".");
        printTail(ctx, api, kind, id);
        return Exit.FAILED;
    }

    private static String success(RunKind kind, String id, JsonNode run, Api api) {
        if (kind == RunKind.MIGRATION) {
            return "Migration " + id + " is complete: " + JsonTrees.text(run, "url")
                    + (JsonTrees.text(run, "deployment_id") == null ? "" : " (deployment " + JsonTrees.text(run, "deployment_id") + ")");
        }
        String production;
        try {
            production = JsonTrees.text(api.get("/projects/" + Paths.segment(JsonTrees.text(run, "project_id"))).path("data"), "url");
        } catch (ApiError e) {
            production = "see 'slipway projects show " + JsonTrees.text(run, "project_id") + "'";
        }
        String status = JsonTrees.text(run, "status");
        if ("preview".equals(JsonTrees.text(run, "target"))) {
            String branch = JsonTrees.text(run, "branch_url");
            return "Preview " + id + " is " + status + ": " + JsonTrees.text(run, "url")
                    + (branch == null ? "" : " and " + branch) + " (production is unchanged: " + production + ")";
        }
        boolean isProduction = run.path("preview_url").isNull();
        return "Deployment " + id + " is " + (status.equals("live") ? "live" : "no longer production (" + status + ")")
                + (isProduction && status.equals("live") ? " in production: " + production : ": " + JsonTrees.text(run, "url"))
                + (isProduction ? "" : " (production: " + production + ")");
    }

    /** The last lines of a failed run's log, on stderr: the reason is almost always there. */
    static void printTail(Context ctx, Api api, RunKind kind, String id) {
        List<String> tail;
        try {
            tail = LogLines.last(api, kind, id, TAIL_LINES);
        } catch (ApiError | TimedOut e) {
            ctx.err().println("(its log could not be read: " + e.getMessage() + ")");
            return;
        }
        ctx.err().println("Last " + tail.size() + " log lines of " + id + ":");
        tail.forEach(line -> ctx.err().println("  " + line));
    }

    static String capital(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
