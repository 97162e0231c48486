package dev.slipway.client;

import dev.slipway.client.command.Exit;
import dev.slipway.client.context.Context;
import dev.slipway.client.lists.DeploymentsCommand;
import dev.slipway.client.lists.MigrationsCommand;
import dev.slipway.client.lists.ProjectsCommand;
import dev.slipway.client.logs.LogsCommand;
import dev.slipway.client.runs.CancelCommand;
import dev.slipway.client.runs.DeployCommand;
import dev.slipway.client.runs.MigrateCommand;
import dev.slipway.client.runs.PromoteCommand;
import dev.slipway.client.runs.RollbackCommand;
import picocli.AutoComplete;
import picocli.CommandLine;

import java.io.Console;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

/**
 * The slipway client for CI pipelines: commands that talk to a Slipway server over its HTTP API only
 * (configured by {@code SLIPWAY_API_URL} and {@code SLIPWAY_API_KEY}), registered on the same launcher
 * as the operator commands. See {@link Exit} for the exit codes.
 */
public final class Client {
    /** The client's top-level commands, in the order {@code slipway --help} lists them. */
    static final List<Class<?>> COMMANDS = List.of(DeployCommand.class, RollbackCommand.class, PromoteCommand.class, CancelCommand.class,
            MigrateCommand.class, DeploymentsCommand.class, MigrationsCommand.class, ProjectsCommand.class, LogsCommand.class);

    private Client() {}

    /**
     * Adds the client commands to the launcher's command line (built with {@link #factory}), and {@code completion}:
     * picocli's completion script for bash and zsh ({@code source <(slipway completion)}).
     */
    public static void register(CommandLine root) {
        for (Class<?> command : COMMANDS) root.addSubcommand(command);
        root.addSubcommand("completion", AutoComplete.GenerateCompletion.class);
    }

    /** Creates commands that take a {@link Context} with it, everything else as picocli would. */
    public static CommandLine.IFactory factory(Context ctx) {
        CommandLine.IFactory fallback = CommandLine.defaultFactory();
        return new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> cls) throws Exception {
                try {
                    Constructor<K> constructor = cls.getDeclaredConstructor(Context.class);
                    constructor.setAccessible(true);
                    return constructor.newInstance(ctx);
                } catch (NoSuchMethodException e) {
                    return fallback.create(cls);
                }
            }
        };
    }

    /**
     * Runs the launcher ({@code launcher} makes its command tree for the arguments, with commands made by the
     * given factory) in-process with this environment and these streams; returns the exit code and
     * never exits the JVM. A live status line is drawn only when these are the process's own streams
     * and they are a terminal.
     */
    public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err,
                          BiFunction<CommandLine.IFactory, String[], CommandLine> launcher) {
        boolean terminal = out == System.out && err == System.err && isTerminal();
        Context ctx = new Context(Map.copyOf(env), out, err, terminal);
        CommandLine cl = launcher.apply(factory(ctx), args);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setParameterExceptionHandler(Client::usageError);
        int code = cl.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    /** Picocli's usage error output, with anything that looks like an API key masked (it quotes the arguments). */
    private static int usageError(CommandLine.ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        PrintWriter err = cl.getErr();
        err.println(KEY_LIKE.matcher(String.valueOf(ex.getMessage())).replaceAll("sk_****"));
        if (!CommandLine.UnmatchedArgumentException.printSuggestions(ex, err)) cl.usage(err, cl.getColorScheme());
        err.flush();
        return cl.getCommandSpec().exitCodeOnInvalidInput();
    }

    private static final Pattern KEY_LIKE = Pattern.compile("sk_[A-Za-z0-9_-]+");

    /** {@code System.console()}, and on JDK 22+ (where it is never null) {@code Console.isTerminal()}. */
    static boolean isTerminal() {
        Console console = System.console();
        if (console == null) return false;
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (NoSuchMethodException e) {
            return true;
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }
}
