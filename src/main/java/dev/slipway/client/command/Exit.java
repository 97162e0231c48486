package dev.slipway.client.command;

/** The client's exit codes, for CI scripts. */
public final class Exit {
    /** The command did what it was asked; a run reached live (deployment) or complete (migration). */
    public static final int OK = 0;
    /** The run failed (the deployment or migration ended failed). */
    public static final int FAILED = 1;
    /** Usage error: unknown command or option, bad value, missing configuration. Nothing was sent. */
    public static final int USAGE = 2;
    /** --timeout passed before the run reached a final state (it goes on on the server). */
    public static final int TIMEOUT = 3;
    /** The API refused the request (its error code and message are printed) or could not be reached. */
    public static final int API = 4;

    private Exit() {}
}
