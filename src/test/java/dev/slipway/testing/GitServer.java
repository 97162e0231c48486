package dev.slipway.testing;

import dev.slipway.source.GitHosts;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jgit.http.server.GitServlet;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real git server for tests: bare repositories in a temp dir, served read-only over smart HTTP by
 * JGit's {@link GitServlet} (jakarta.servlet 6, which fits the Jetty 12 ee10 that Javalin brings) on a
 * random loopback port. Point Slipway at it with {@link #hosts()} (every host kind maps here), create
 * repositories and push commits with {@link #createRepo} and {@link #commit}.
 *
 * <pre>{@code
 * try (GitServer git = GitServer.start()) {
 *     git.createRepo("acme/web");
 *     String sha = git.commit("acme/web", "main", Map.of("package.json", "{}"), "first");
 *     TestServer.start(kind, c -> c.gitHosts(git.hosts()));
 * }
 * }</pre>
 */
public final class GitServer implements AutoCloseable {
    private static final PersonIdent AUTHOR = new PersonIdent("Slipway Tests", "tests@slipway.invalid");

    private final Path root;
    private final Server jetty;
    private final Map<String, Repository> repositories = new ConcurrentHashMap<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger deniedRequests = new AtomicInteger();
    private final Map<String, Login> privateRepos = new ConcurrentHashMap<>();

    private GitServer(Path root) throws Exception {
        this.root = root;
        GitServlet servlet = new GitServlet();
        servlet.setRepositoryResolver((request, name) -> {
            requests.incrementAndGet();
            Repository repository = repositories.get(name.endsWith(".git") ? name.substring(0, name.length() - 4) : name);
            if (repository == null) throw new RepositoryNotFoundException(name);
            repository.incrementOpen(); // the servlet closes what it resolves
            return repository;
        });
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        context.addFilter(new FilterHolder((Filter) this::authorize), "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(servlet), "/*");
        jetty.setHandler(context);
        jetty.start();
    }

    /**
     * Basic auth, as GitHub and GitLab ask it of a private repository over HTTPS: a request for a private repository
     * without the token (and the user name, when one is set) gets 401 with a Basic challenge.
     */
    private void authorize(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        String path = http.getRequestURI();
        for (var e : privateRepos.entrySet()) {
            String name = "/" + e.getKey();
            if (!path.startsWith(name + "/") && !path.startsWith(name + ".git/")) continue;
            if (!e.getValue().accepts(http.getHeader("Authorization"))) {
                deniedRequests.incrementAndGet();
                HttpServletResponse out = (HttpServletResponse) response;
                out.setHeader("WWW-Authenticate", "Basic realm=\"git\"");
                out.sendError(401, "Authentication is required");
                return;
            }
        }
        chain.doFilter(request, response);
    }

    private record Login(String user, String token) {
        boolean accepts(String header) {
            if (header == null || !header.startsWith("Basic ")) return false;
            String pair;
            try {
                pair = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return false;
            }
            int colon = pair.indexOf(':');
            return colon >= 0 && pair.substring(colon + 1).equals(token) && (user == null || pair.substring(0, colon).equals(user));
        }
    }

    /** Makes {@code name} private: cloned only with {@code token} as the password (and {@code user} as the name, unless null). */
    public void makePrivate(String name, String user, String token) {
        privateRepos.put(name, new Login(user, token));
    }

    /** How many requests for a private repository were refused for want of its credentials. */
    public int deniedRequests() {
        return deniedRequests.get();
    }

    public static GitServer start() {
        Path root = null;
        try {
            root = Files.createTempDirectory("slipway-git-");
            return new GitServer(root);
        } catch (Exception e) {
            if (root != null) TestStore.deleteTree(root);
            throw new IllegalStateException("git server did not start: " + e, e);
        }
    }

    /** {@code http://127.0.0.1:<port>}: the clone base of every repository here. */
    public String baseUrl() {
        return "http://127.0.0.1:" + ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
    }

    /** Host kinds github, gitlab and bitbucket all pointing at this server. */
    public GitHosts hosts() {
        GitHosts hosts = GitHosts.defaults();
        for (String kind : GitHosts.DEFAULTS.keySet()) hosts = hosts.with(kind, baseUrl());
        return hosts;
    }

    /** The folder of the bare repositories, {@code <owner>/<name>.git} (an SSH server may serve it too). */
    public Path root() {
        return root;
    }

    /** How many requests reached a repository (for proving that something made none). */
    public int requests() {
        return requests.get();
    }

    /** A new empty bare repository {@code owner/name}. */
    public void createRepo(String name) {
        try {
            Path dir = root.resolve(name + ".git");
            Files.createDirectories(dir);
            Repository repository = Git.init().setBare(true).setGitDir(dir.toFile()).setInitialBranch("main").call()
                    .getRepository();
            if (repositories.putIfAbsent(name, repository) != null) {
                repository.close();
                throw new IllegalArgumentException("repository " + name + " exists");
            }
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot create repository " + name, e);
        }
    }

    /** Commits text files on top of the branch (created if missing); a null content deletes the path. Returns the sha. */
    public String commit(String repo, String branch, Map<String, String> files, String message) {
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        files.forEach((path, text) -> bytes.put(path, text == null ? null : text.getBytes(StandardCharsets.UTF_8)));
        return commitBytes(repo, branch, bytes, message);
    }

    public String commitBytes(String repo, String branch, Map<String, byte[]> files, String message) {
        Repository repository = repository(repo);
        try (ObjectInserter inserter = repository.newObjectInserter(); RevWalk walk = new RevWalk(repository)) {
            Ref ref = repository.exactRef(Constants.R_HEADS + branch);
            RevCommit parent = ref == null ? null : walk.parseCommit(ref.getObjectId());
            Map<String, DirCacheEntry> tree = new TreeMap<>();
            if (parent != null) {
                try (TreeWalk walkTree = new TreeWalk(repository)) {
                    walkTree.addTree(parent.getTree());
                    walkTree.setRecursive(true);
                    while (walkTree.next()) {
                        DirCacheEntry entry = new DirCacheEntry(walkTree.getPathString());
                        entry.setFileMode(walkTree.getFileMode(0));
                        entry.setObjectId(walkTree.getObjectId(0));
                        tree.put(walkTree.getPathString(), entry);
                    }
                }
            }
            for (var file : files.entrySet()) {
                if (file.getValue() == null) {
                    tree.remove(file.getKey());
                    continue;
                }
                DirCacheEntry entry = new DirCacheEntry(file.getKey());
                entry.setFileMode(file.getKey().endsWith(".sh") ? FileMode.EXECUTABLE_FILE : FileMode.REGULAR_FILE);
                entry.setObjectId(inserter.insert(Constants.OBJ_BLOB, file.getValue()));
                tree.put(file.getKey(), entry);
            }
            DirCache index = DirCache.newInCore();
            DirCacheBuilder builder = index.builder();
            tree.values().forEach(builder::add);
            builder.finish();
            CommitBuilder commit = new CommitBuilder();
            commit.setTreeId(index.writeTree(inserter));
            if (parent != null) commit.setParentId(parent);
            PersonIdent who = new PersonIdent(AUTHOR, Instant.now(), ZoneOffset.UTC);
            commit.setAuthor(who);
            commit.setCommitter(who);
            commit.setMessage(message);
            ObjectId id = inserter.insert(commit);
            inserter.flush();
            setBranch(repository, branch, parent, id);
            return id.name();
        } catch (IOException e) {
            throw new IllegalStateException("cannot commit to " + repo, e);
        }
    }

    /** Creates or moves {@code branch} to {@code sha} (for branches that share history). */
    public void branch(String repo, String branch, String sha) {
        Repository repository = repository(repo);
        try {
            Ref ref = repository.exactRef(Constants.R_HEADS + branch);
            setBranch(repository, branch, ref == null ? null : ref.getObjectId(), ObjectId.fromString(sha));
        } catch (IOException e) {
            throw new IllegalStateException("cannot move " + branch + " in " + repo, e);
        }
    }

    private static void setBranch(Repository repository, String branch, ObjectId expected, ObjectId id) throws IOException {
        RefUpdate update = repository.updateRef(Constants.R_HEADS + branch);
        update.setNewObjectId(id);
        update.setExpectedOldObjectId(expected == null ? ObjectId.zeroId() : expected);
        update.setForceUpdate(true);
        RefUpdate.Result result = update.update();
        if (result != RefUpdate.Result.NEW && result != RefUpdate.Result.FAST_FORWARD && result != RefUpdate.Result.FORCED) {
            throw new IllegalStateException("branch " + branch + " not updated: " + result);
        }
    }

    private Repository repository(String name) {
        Repository repository = repositories.get(name);
        if (repository == null) throw new IllegalArgumentException("no repository " + name + " (createRepo first)");
        return repository;
    }

    @Override
    public void close() {
        try {
            jetty.stop();
        } catch (Exception e) {
            throw new IllegalStateException("git server did not stop", e);
        } finally {
            repositories.values().forEach(Repository::close);
            TestStore.deleteTree(root);
        }
    }
}
