package dev.slipway.source;

import dev.slipway.core.Sizes;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import org.eclipse.jgit.api.FetchCommand;
import org.eclipse.jgit.api.LsRemoteCommand;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.dircache.DirCacheCheckout;
import org.eclipse.jgit.errors.NoRemoteRepositoryException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.api.TransportCommand;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.TagOpt;
import org.eclipse.jgit.treewalk.TreeWalk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Fetches one commit of a branch from a repository host into a workspace with JGit: shallow where
 * possible, bounded in time and checked-out size, validated before any network call.
 */
public final class GitFetcher {
    /** How much history to fetch first when looking for an older commit, before fetching all of it. */
    private static final int FIRST_DEPTH = 50;

    /**
     * @param timeout      the whole fetch (listing, download, checkout)
     * @param maxTreeBytes the checked-out tree, summed from the commit's blobs before anything is written
     */
    public record Limits(Duration timeout, long maxTreeBytes) {
        public static final Limits DEFAULTS = new Limits(Duration.ofMinutes(5), 1024L * 1024 * 1024);
    }

    private final GitHosts hosts;
    private final Limits limits;
    private final Clock clock;
    private final HostKeyStore hostKeys;

    /** A fetcher for public repositories and HTTPS tokens: a deploy key is refused. */
    public GitFetcher(GitHosts hosts, Limits limits, Clock clock) {
        this(hosts, limits, clock, null);
    }

    /** @param hostKeys the SSH host keys recorded on first use, for deploy keys */
    public GitFetcher(GitHosts hosts, Limits limits, Clock clock, HostKeyStore hostKeys) {
        this.hosts = hosts;
        this.limits = limits;
        this.clock = clock;
        this.hostKeys = hostKeys;
    }

    /** The full sha at the head of {@code branch}, asked of the host without downloading anything. */
    public String resolveHead(String kind, String repo, String branch) {
        return resolveHead(kind, repo, branch, null);
    }

    /** As above, signed in with {@code credentials} (null: anonymously). */
    public String resolveHead(String kind, String repo, String branch, GitCredentials credentials) {
        validate(kind, repo, branch, null);
        FetchDeadline deadline = new FetchDeadline(clock, limits.timeout());
        try (Target target = target(kind, repo, branch, credentials)) {
            return remoteHead(target, deadline).name();
        }
    }

    /**
     * Checks out the head of {@code branch}, or {@code commitSha} (full or at least 7 hex characters,
     * reachable from the branch), into {@code workspace}, which must be missing or empty. On failure the
     * workspace is removed.
     */
    public FetchedSource fetch(String kind, String repo, String branch, String commitSha, Path workspace, LogSink log) {
        return fetch(kind, repo, branch, commitSha, workspace, log, null);
    }

    /** As above, signed in with {@code credentials} (null: anonymously). */
    public FetchedSource fetch(String kind, String repo, String branch, String commitSha, Path workspace, LogSink log,
                               GitCredentials credentials) {
        String wanted = commitSha == null ? null : commitSha.trim().toLowerCase(Locale.ROOT);
        validate(kind, repo, branch, wanted);
        FetchDeadline deadline = new FetchDeadline(clock, limits.timeout());
        try (Target target = target(kind, repo, branch, credentials)) {
            log.log(Level.INFO, "Cloning " + target + " (branch " + branch + (target.ssh() != null ? ", over SSH" : "") + ")");
            ObjectId head = remoteHead(target, deadline);
            Workspaces.prepare(workspace);
            boolean done = false;
            try {
                FetchedSource source = checkout(target, head, wanted, workspace, deadline, log);
                done = true;
                return source;
            } finally {
                if (!done) Workspaces.delete(workspace);
            }
        }
    }

    private FetchedSource checkout(Target target, ObjectId head, String wanted, Path workspace, FetchDeadline deadline,
                                   LogSink log) {
        RevCommit commit;
        try (Git git = Git.init().setDirectory(workspace.toFile()).setInitialBranch("slipway").call()) {
            Repository repository = git.getRepository();
            // verify what the host sends (malformed trees, ".git" paths); FetchCommand's own check needs full history
            repository.getConfig().setBoolean("fetch", null, "fsckObjects", true);
            boolean headWanted = wanted == null || head.name().startsWith(wanted);
            if (!headWanted) log.log(Level.INFO, "Looking for commit " + wanted + " on branch " + target.branch());
            ObjectId tip = fetch(git, target, headWanted ? 1 : FIRST_DEPTH, false, deadline);
            // searched even when the head was wanted: the branch may have moved since it was listed
            ObjectId found = wanted == null ? tip : findOnBranch(repository, tip, wanted, target);
            if (found == null && isShallow(repository)) {
                tip = fetch(git, target, 0, true, deadline);
                found = findOnBranch(repository, tip, wanted, target);
            }
            if (found == null) {
                throw new SourceException(SourceException.Reason.COMMIT_NOT_FOUND,
                        "Commit " + wanted + " not found on branch " + target.branch() + " of " + target);
            }
            try (RevWalk walk = new RevWalk(repository)) {
                commit = walk.parseCommit(found);
                checkSize(repository, commit, target);
                DirCacheCheckout checkout = new DirCacheCheckout(repository, repository.lockDirCache(), commit.getTree());
                checkout.setProgressMonitor(deadline);
                checkout.checkout();
            }
            if (deadline.passed()) throw timedOut(target);
        } catch (SourceException e) {
            throw e;
        } catch (Exception e) {
            throw classify(e, target, deadline);
        }
        Workspaces.delete(workspace.resolve(Constants.DOT_GIT));
        String message = commit.getFullMessage().trim();
        if (message.length() > FetchedSource.MAX_MESSAGE) message = message.substring(0, FetchedSource.MAX_MESSAGE);
        FetchedSource source = new FetchedSource(workspace, commit.name(), message, target.branch());
        log.log(Level.INFO, "Checked out " + source.shortSha() + " '" + source.title() + "'");
        return source;
    }

    /** Fetches the branch into refs/remotes/origin/<branch> and returns its tip. */
    private ObjectId fetch(Git git, Target target, int depth, boolean unshallow, FetchDeadline deadline) throws Exception {
        String remoteRef = "refs/remotes/origin/" + target.branch();
        FetchCommand fetch = git.fetch()
                .setRemote(target.url())
                .setRefSpecs(new RefSpec("+" + Constants.R_HEADS + target.branch() + ":" + remoteRef))
                .setTagOpt(TagOpt.NO_TAGS)
                .setProgressMonitor(deadline)
                .setTimeout(deadline.ioTimeoutSeconds());
        target.configure(fetch);
        if (unshallow) fetch.setUnshallow(true);
        else if (depth > 0) fetch.setDepth(depth);
        fetch.call();
        Ref ref = git.getRepository().exactRef(remoteRef);
        if (ref == null) throw branchNotFound(target);
        return ref.getObjectId();
    }

    private static ObjectId findOnBranch(Repository repository, ObjectId tip, String prefix, Target target) throws IOException {
        List<ObjectId> matches = new ArrayList<>(2);
        try (RevWalk walk = new RevWalk(repository)) {
            walk.markStart(walk.parseCommit(tip));
            for (RevCommit c : walk) {
                if (c.name().startsWith(prefix)) matches.add(c.copy());
                if (matches.size() > 1) {
                    throw new SourceException(SourceException.Reason.INVALID_INPUT,
                            "Commit " + prefix + " is ambiguous on branch " + target.branch() + ": give more characters");
                }
            }
        }
        return matches.isEmpty() ? null : matches.get(0);
    }

    private static boolean isShallow(Repository repository) throws IOException {
        Path shallow = repository.getDirectory().toPath().resolve("shallow");
        return Files.exists(shallow) && Files.size(shallow) > 0;
    }

    private void checkSize(Repository repository, RevCommit commit, Target target) throws IOException {
        long total = 0;
        try (TreeWalk tree = new TreeWalk(repository); ObjectReader reader = repository.newObjectReader()) {
            tree.addTree(commit.getTree());
            tree.setRecursive(true);
            while (tree.next()) {
                if (tree.getFileMode(0).getObjectType() != Constants.OBJ_BLOB) continue;
                total += reader.getObjectSize(tree.getObjectId(0), Constants.OBJ_BLOB);
                if (total > limits.maxTreeBytes()) {
                    throw new SourceException(SourceException.Reason.TOO_LARGE, target + " at " + commit.name().substring(0, 7)
                            + " is larger than the limit of " + Sizes.human(limits.maxTreeBytes()) + " checked out");
                }
            }
        }
    }

    private ObjectId remoteHead(Target target, FetchDeadline deadline) {
        try {
            LsRemoteCommand ls = Git.lsRemoteRepository()
                    .setRemote(target.url())
                    .setHeads(true)
                    .setTimeout(deadline.ioTimeoutSeconds());
            target.configure(ls);
            Ref ref = ls.callAsMap()
                    .get(Constants.R_HEADS + target.branch());
            if (ref == null || ref.getObjectId() == null) throw branchNotFound(target);
            return ref.getObjectId();
        } catch (SourceException e) {
            throw e;
        } catch (Exception e) {
            throw classify(e, target, deadline);
        }
    }

    private void validate(String kind, String repo, String branch, String commitSha) {
        if (!hosts.supports(kind)) {
            throw new SourceException(SourceException.Reason.INVALID_INPUT, "Unknown repository host '" + kind
                    + "' (expected one of " + String.join(", ", hosts.kinds()) + ")");
        }
        if (!GitNames.validRepo(repo)) {
            throw new SourceException(SourceException.Reason.INVALID_INPUT,
                    "Invalid repository name: expected owner/repo of letters, digits, '.', '_' and '-'");
        }
        if (!GitNames.validBranch(branch)) {
            throw new SourceException(SourceException.Reason.INVALID_INPUT, "Invalid branch name (git ref-name rules)");
        }
        if (commitSha != null && !GitNames.SHA.matcher(commitSha).matches()) {
            throw new SourceException(SourceException.Reason.INVALID_INPUT,
                    "Invalid commit sha: expected 7 to 40 hexadecimal characters");
        }
    }

    private SourceException classify(Exception e, Target target, FetchDeadline deadline) {
        if (deadline.passed()) return timedOut(target);
        if (target.ssh() != null && target.ssh().refusedHost() != null) {
            return new SourceException(SourceException.Reason.FAILED, "The SSH host key of " + target.ssh().refusedHost()
                    + " is not the one recorded the first time the server connected to it: refused (if the host really "
                    + "changed its key, an operator removes the old one from git_host_keys)");
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = t.getMessage() == null ? "" : t.getMessage();
            if (t instanceof SourceException s) return s;
            if (t instanceof NoRemoteRepositoryException
                    || message.contains("not authorized") || message.contains("Authentication is required")
                    || message.contains("No more authentication methods")) {
                return new SourceException(SourceException.Reason.REPO_NOT_FOUND, target.credentials() == null
                        ? "Repository " + target + " not found, or it is private: give the project git_credentials"
                        : "Repository " + target + " refused the project's git_credentials (or it does not exist)");
            }
            if (message.contains("Remote does not have " + Constants.R_HEADS)) return branchNotFound(target);
            if (t instanceof ConnectException || t instanceof UnknownHostException
                    || t instanceof NoRouteToHostException) {
                return new SourceException(SourceException.Reason.HOST_UNREACHABLE,
                        "Cannot reach " + target.kind() + " at " + hosts.displayBase(target.kind()));
            }
            if (t instanceof SocketTimeoutException || t instanceof InterruptedIOException) {
                return timedOut(target);
            }
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String detail = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        if (target.credentials() instanceof GitCredentials.Token token) detail = detail.replace(token.token(), "***");
        return new SourceException(SourceException.Reason.FAILED,
                "Fetching " + target + " failed: " + GitHosts.redact(detail));
    }

    private SourceException timedOut(Target target) {
        return new SourceException(SourceException.Reason.TIMEOUT,
                "Fetching " + target + " timed out after " + Sizes.duration(limits.timeout()));
    }

    private static SourceException branchNotFound(Target target) {
        return new SourceException(SourceException.Reason.BRANCH_NOT_FOUND,
                "Branch " + target.branch() + " not found in " + target);
    }

    private Target target(String kind, String repo, String branch, GitCredentials credentials) {
        if (!(credentials instanceof GitCredentials.SshKey key)) {
            return new Target(kind, repo, branch, credentials, hosts.cloneUrl(kind, repo), null, null);
        }
        if (hostKeys == null) throw new IllegalStateException("this fetcher has no host key store for deploy keys");
        Path home = Workspaces.temporary("slipway-ssh-");
        try {
            return new Target(kind, repo, branch, credentials, hosts.sshCloneUrl(kind, repo),
                    new SshSessions(key, hostKeys, home.toFile()), home);
        } catch (RuntimeException e) {
            Workspaces.delete(home);
            throw e;
        }
    }

    /**
     * Where a fetch goes and how it signs in.
     *
     * @param ssh  the deploy key's sessions (null: HTTPS, with a token or anonymously)
     * @param home an empty folder of the fetch's own for sshd, removed with it (null without SSH)
     */
    private record Target(String kind, String repo, String branch, GitCredentials credentials, String url,
                          SshSessions ssh, Path home) implements AutoCloseable {
        void configure(TransportCommand<?, ?> command) {
            if (credentials instanceof GitCredentials.Token token) command.setCredentialsProvider(token.provider());
            if (ssh != null) ssh.configure(command);
        }

        @Override
        public void close() {
            if (ssh != null) ssh.close();
            if (home != null) Workspaces.delete(home);
        }

        @Override
        public String toString() {
            return kind + " " + repo;
        }
    }
}
