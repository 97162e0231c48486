package dev.slipway.client.command;

import dev.slipway.client.api.Api;
import dev.slipway.client.api.ApiError;
import dev.slipway.client.api.ClientConfig;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.Deadline;
import dev.slipway.client.context.TimedOut;
import dev.slipway.client.context.UsageException;
import dev.slipway.client.output.OutputOption;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.UUID;
import java.util.concurrent.Callable;

/** A client command: reads its configuration from the environment and turns its failures into exit codes. */
public abstract class ClientCommand implements Callable<Integer> {
    protected final Context ctx;

    @Spec
    CommandSpec spec;

    @Mixin
    protected OutputOption output;

    protected ClientCommand(Context ctx) {
        this.ctx = ctx;
    }

    /** Does the work; returns the exit code or throws {@link UsageException}, {@link ApiError}, {@link TimedOut}. */
    protected abstract int execute() throws Exception;

    @Override
    public final Integer call() {
        String name = spec.qualifiedName(" ");
        try {
            return execute();
        } catch (UsageException e) {
            ctx.err().println(name + ": " + e.getMessage());
            ctx.err().println("Run '" + name + " --help' for usage.");
            return Exit.USAGE;
        } catch (TimedOut e) {
            ctx.err().println(name + ": " + e.getMessage());
            return Exit.TIMEOUT;
        } catch (ApiError e) {
            if (e.status() == 0) {
                ctx.err().println(name + ": " + e.code() + ": " + e.getMessage());
            } else {
                ctx.err().println(name + ": API error " + e.code() + " (HTTP " + e.status() + "): " + e.getMessage()
                        + (e.requestId() == null ? "" : " [request " + e.requestId() + "]"));
                e.details().forEach((field, problem) -> ctx.err().println("  " + field + ": " + problem));
            }
            return Exit.API;
        } catch (Exception e) {
            ctx.err().println(name + ": unexpected error: " + e);
            return Exit.API;
        } finally {
            ctx.out().flush();
            ctx.err().flush();
        }
    }

    /** A client of the API configured from the environment (exit 2 when it is not). */
    protected Api api(Deadline deadline) {
        return new Api(ClientConfig.from(ctx), ctx, deadline);
    }

    /** The Idempotency-Key of one logical command; each of its POSTs adds its own suffix. */
    protected static String idempotencyKey() {
        return "slipway-cli-" + UUID.randomUUID();
    }

    protected static String required(String value, String what) {
        if (value == null || value.isBlank()) throw new UsageException(what + " must not be empty");
        return value.trim();
    }
}
