package dev.slipway;

import dev.slipway.operator.AccountsCommand;
import dev.slipway.operator.BackupCommand;
import dev.slipway.operator.EdgeCommand;
import dev.slipway.operator.KeysCommand;
import dev.slipway.operator.ServerCommand;
import dev.slipway.operator.UsersCommand;
import dev.slipway.client.Client;
import dev.slipway.operator.WarmUp;
import java.io.PrintStream;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(name = "slipway", mixinStandardHelpOptions = true, version = "slipway 0.1.0",
        description = {"Self-hosted deployment platform: git or zip in, running web app out.",
                "server, accounts, keys and users are operator commands on the store; the other commands are the",
                "client: they use the HTTP API at $SLIPWAY_API_URL with the key in $SLIPWAY_API_KEY."},
        subcommands = {ServerCommand.class, AccountsCommand.class, KeysCommand.class, UsersCommand.class,
                BackupCommand.Make.class, BackupCommand.Load.class, EdgeCommand.class})
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("server")) WarmUp.start();
        System.exit(run(args));
    }

    public static int run(String... args) {
        return run(args, System.getenv(), System.out, System.err);
    }

    /** The launcher in-process with this environment and these streams (see {@link Client#run}). */
    public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        return Client.run(args, env, out, err, Main::commandLine);
    }

    /**
     * The launcher's command line for {@code args}. A server start gets a tree with its one command:
     * picocli reads every command class of the whole tree by reflection, a fifth of a second on a cold JVM.
     */
    public static CommandLine commandLine(CommandLine.IFactory factory, String... args) {
        if (args.length == 0 || !(args[0].equals("server") || args[0].equals("edge"))) return commandLine(factory);
        CommandLine cl = new CommandLine(CommandLine.Model.CommandSpec.create().name("slipway"), factory);
        cl.addSubcommand(new CommandLine(args[0].equals("edge") ? EdgeCommand.class : ServerCommand.class, factory));
        return cl;
    }

    /** The whole launcher: operator commands, client commands and help, with commands made by {@code factory}. */
    public static CommandLine commandLine(CommandLine.IFactory factory) {
        CommandLine cl = new CommandLine(new Main(), factory);
        Client.register(cl);
        cl.addSubcommand(CommandLine.HelpCommand.class);
        return cl.setCaseInsensitiveEnumValuesAllowed(true);
    }
}
