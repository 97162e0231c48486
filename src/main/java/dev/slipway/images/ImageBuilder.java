package dev.slipway.images;

import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.ImageReference;
import com.google.cloud.tools.jib.api.InvalidImageReferenceException;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainer;
import com.google.cloud.tools.jib.api.RegistryImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import com.google.cloud.tools.jib.api.buildplan.Port;
import dev.slipway.build.Artifact;
import dev.slipway.logs.LogSink;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import dev.slipway.logs.Level;

/**
 * Makes a frozen artifact an OCI image on its runtime's base image, without a Docker daemon (Jib), pushes it
 * and records {@code <repository>@<digest>} on the artifact, once: a rollback reuses the artifact and its image.
 * The image runs the artifact's start command in its app folder as user {@value #USER}, with PORT {@value #PORT}.
 * Static sites get no image: the router serves them from the build.
 */
public final class ImageBuilder {
    public static final String USER = "65532:65532";
    public static final int PORT = 8080;
    private static final String PORT_TOKEN = "${PORT}";
    private static final int MAX_LINKS_LOGGED = 20;

    private final ImageSettings settings;
    private final ImageStore store;
    private final Path cacheDir;
    private final Clock clock;

    /** @param cacheDir Jib's layer caches (base layers pulled once, the artifact layer per build) */
    public ImageBuilder(ImageSettings settings, ImageStore store, Path cacheDir, Clock clock) {
        this.settings = settings;
        this.store = store;
        this.cacheDir = cacheDir;
        this.clock = clock;
    }

    public boolean enabled() {
        return settings.enabled();
    }

    /**
     * The artifact's image, pushed now unless it has one already. Empty when images are off or for a static site.
     *
     * @throws ImageException the image could not be made or pushed (the registry is down, the base image is missing)
     */
    public Optional<String> ensure(Artifact a, LogSink log) throws InterruptedException {
        if (!settings.enabled()) return Optional.empty();
        if (a.isStatic()) {
            log.log(Level.INFO, "Static site: no image (the router serves it from the build)");
            return Optional.empty();
        }
        if (a.isImage()) {
            // a prebuilt image is its registry's digest already, one built from a Dockerfile was pushed by its build;
            // one built before the registry was set was not
            if (a.image().reference() == null) log.log(Level.WARNING, "Image: this Dockerfile build was made before "
                    + settings.registry() + " was set, so it was not pushed; deploy again to build and push it");
            String reference = a.image().reference();
            if (reference != null && store.find(a.id()).isEmpty()) store.record(a.id(), reference);
            return Optional.ofNullable(reference);
        }
        Optional<String> recorded = store.find(a.id());
        if (recorded.isPresent()) return recorded;
        String image = push(a, log);
        store.record(a.id(), image);
        log.log(Level.INFO, "Image pushed: " + image);
        return Optional.of(image);
    }

    private String push(Artifact a, LogSink log) throws InterruptedException {
        String base = base(a);
        String repository = settings.registry() + "/" + a.projectId().toLowerCase(Locale.ROOT);
        try {
            ArtifactLayer.Result layer = ArtifactLayer.of(a.root());
            List<String> skipped = layer.skippedLinks();
            for (String link : skipped.subList(0, Math.min(skipped.size(), MAX_LINKS_LOGGED))) {
                log.log(Level.WARNING, "Image: left out the link " + link + " (it leads outside the build, dangles or loops)");
            }
            if (skipped.size() > MAX_LINKS_LOGGED) {
                log.log(Level.WARNING, "Image: left out " + (skipped.size() - MAX_LINKS_LOGGED) + " more such links");
            }
            log.log(Level.INFO, "Image: " + layer.files() + " files on " + base + " to " + repository);
            AbsoluteUnixPath workDir = a.appDir() == null ? ArtifactLayer.APP : ArtifactLayer.APP.resolve(a.appDir());
            List<String> entrypoint = entrypoint(a);
            Map<String, String> env = new TreeMap<>();
            if (PythonImage.applies(a)) env.putAll(PythonImage.environment(a));
            env.put("PORT", Integer.toString(PORT));
            JibContainer pushed = Jib.from(registryImage(base))
                    .addFileEntriesLayer(layer.layer())
                    .setEntrypoint(entrypoint)
                    .setProgramArguments(List.of())
                    .setEnvironment(env)
                    .setWorkingDirectory(workDir)
                    .setUser(USER)
                    .setExposedPorts(Port.tcp(PORT))
                    .setFormat(ImageFormat.OCI)
                    .setCreationTime(clock.instant())
                    .containerize(Containerizer.to(registryImage(repository + ":" + a.id().toLowerCase(Locale.ROOT)))
                            .setAllowInsecureRegistries(settings.insecure())
                            .setBaseImageLayersCache(cacheDir.resolve("base"))
                            .setApplicationLayersCache(cacheDir.resolve("app"))
                            .setToolName("slipway"));
            return repository + "@" + pushed.getDigest();
        } catch (InterruptedException e) {
            throw e;
        } catch (ExecutionException e) {
            throw new ImageException("Image push to " + settings.registry() + " failed: " + cause(e.getCause() == null ? e : e.getCause()), e);
        } catch (Exception e) {
            throw new ImageException("Image push to " + settings.registry() + " failed: " + cause(e), e);
        }
    }

    /**
     * The build's start command as the image runs it: paths into the build (it ran from the server's data
     * dir) under {@code /app}, {@code ${PORT}} as {@value #PORT}, and a Python app on the base image's interpreter.
     */
    static List<String> entrypoint(Artifact a) {
        String root = a.root().toAbsolutePath().normalize().toString();
        List<String> out = new ArrayList<>();
        for (String arg : a.startCommand()) {
            String v = arg.replace(PORT_TOKEN, Integer.toString(PORT));
            if (v.equals(root)) v = ArtifactLayer.APP.toString();
            else if (v.startsWith(root + "/")) v = ArtifactLayer.APP + v.substring(root.length());
            out.add(v);
        }
        return PythonImage.applies(a) ? PythonImage.entrypoint(out) : out;
    }

    /** The runtime's base image; Node's at the version the artifact was built with, Python's at its venv's. */
    String base(Artifact a) {
        if (PythonImage.applies(a)) return settings.bases().get("python").replace("{version}", PythonImage.version(a));
        String version = a.tools().stream()
                .filter(p -> p.getParent() != null && p.getParent().getFileName() != null
                        && p.getParent().getFileName().toString().equals("node"))
                .map(p -> p.getFileName().toString()).findFirst().orElse("lts");
        return settings.bases().get("node").replace("{version}", version);
    }

    private static RegistryImage registryImage(String ref) throws InvalidImageReferenceException {
        return RegistryImage.named(ImageReference.parse(ref));
    }

    private static String cause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (root != e && root.getMessage() != null && !m.contains(root.getMessage())) m += " (" + root.getMessage() + ")";
        return m;
    }
}
