package dev.slipway.isolation;

import dev.slipway.accounts.Account;
import dev.slipway.accounts.AccountStore;

import java.util.Optional;
import java.util.function.Function;

/**
 * Which accounts are served. With a working sandbox, or with isolation off by the operator's choice
 * ({@code --isolation=none}), every one. A server without a working sandbox serves only the store's first account
 * (the operator's own, made by the first start): the API and the dashboard refuse the others, its cells run only
 * the first account's code, and no new account, nor a key or dashboard user for another account, is made while any
 * server of the store is in that state (the operator commands, another process, learn it from
 * {@link ServersWithoutSandbox}).
 */
public final class AccountAdmission {
    private final AccountStore accounts;
    private final ServersWithoutSandbox servers;
    /** This server's own problem: null when it serves every account (or this is not a server). */
    private final SandboxProblem own;
    /** This server's node id; null for the operator commands. */
    private final String nodeId;
    private volatile String firstAccount;

    private AccountAdmission(AccountStore accounts, ServersWithoutSandbox servers, SandboxProblem own, String nodeId) {
        this.accounts = accounts;
        this.servers = servers;
        this.own = own;
        this.nodeId = nodeId;
    }

    /** A server's, from what its start found; the store holds it until {@link #close}. */
    public static AccountAdmission forServer(Confinement confinement, AccountStore accounts, ServersWithoutSandbox servers,
                                             String nodeId) {
        AccountAdmission admission = new AccountAdmission(accounts, servers, confinement.missingSandbox().orElse(null), nodeId);
        servers.record(nodeId, confinement.missingSandbox());
        return admission;
    }

    /** The operator commands': from what the store's servers found. */
    public static AccountAdmission forOperator(AccountStore accounts, ServersWithoutSandbox servers) {
        return new AccountAdmission(accounts, servers, null, null);
    }

    /**
     * At a server's clean stop: the store forgets what its start found. (Best effort: where it cannot, the record
     * stays until this server starts again, and the operator commands keep refusing meanwhile.)
     */
    public void close() {
        if (nodeId != null && own != null) servers.clear(nodeId);
    }

    /** Whether this server serves only the first account. */
    public boolean firstAccountOnly() {
        return own != null;
    }

    /** Empty when this server serves the account's requests; else why not, with the fix. */
    public Optional<String> refusal(String accountId) {
        if (own == null || isFirst(accountId)) return Optional.empty();
        return Optional.of(own.refusal());
    }

    /** Empty when a new account may be made: the store has none yet, or none of its servers lacks a sandbox. */
    public Optional<String> refusalOfNewAccount() {
        SandboxProblem problem = storeProblem();
        if (problem == null || accounts.isEmpty()) return Optional.empty();
        return Optional.of(problem.refusal());
    }

    /** Empty when an API key or a dashboard user may be made for the account. */
    public Optional<String> refusalOfCredentials(String accountId) {
        if (isFirst(accountId)) return Optional.empty();
        return Optional.ofNullable(storeProblem()).map(SandboxProblem::refusal);
    }

    /**
     * The confinement that runs only the first account's cells when this server serves only that account.
     *
     * @param accountOfProject the account a project belongs to
     */
    public Confinement guard(Confinement confinement, Function<String, Optional<String>> accountOfProject) {
        if (own == null) return confinement;
        return new FirstAccountOnly(confinement, projectId -> accountOfProject.apply(projectId).map(this::isFirst).orElse(false),
                own.refusal());
    }

    private SandboxProblem storeProblem() {
        return own != null ? own : servers.any().orElse(null);
    }

    private boolean isFirst(String accountId) {
        String first = firstAccount;
        if (first == null) {
            first = accounts.first().map(Account::id).orElse(null);
            if (first == null) return false;
            firstAccount = first; // the first account stays the first
        }
        return first.equals(accountId);
    }
}
