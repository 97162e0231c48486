package dev.slipway.build.detect;

import dev.slipway.build.BuildException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds a Python web app's entry point and how to serve it: ASGI apps (FastAPI, Starlette, Quart, Litestar)
 * with uvicorn, WSGI apps (Flask, Bottle, Django) with gunicorn, both through the venv's interpreter, so
 * neither needs its program on PATH.
 */
public final class PythonApps {
    /** Looked at in this order; the first file that defines an app wins. */
    static final List<String> LAYOUTS = List.of("main.py", "app.py", "server.py", "asgi.py", "wsgi.py",
            "app/main.py", "app/__init__.py", "src/*/main.py", "src/*/app.py", "api/index.py");
    private static final Pattern ASGI = Pattern.compile(
            "(?m)^(app|application|api)\\s*(?::\\s*[\\w.\\[\\]]+\\s*)?=\\s*(?:\\w+\\.)?(FastAPI|Starlette|Quart|Litestar)\\(");
    private static final Pattern FASTAPI = Pattern.compile(
            "(?m)^(app)\\s*(?::\\s*[\\w.]+\\s*)?=\\s*(?:fastapi\\.)?(FastAPI)\\(");
    private static final Pattern WSGI = Pattern.compile(
            "(?m)^(app|application)\\s*(?::\\s*[\\w.\\[\\]]+\\s*)?=\\s*(?:\\w+\\.)?(Flask|Bottle|App|get_wsgi_application)\\(");
    private static final Pattern DJANGO_SETTINGS = Pattern.compile("DJANGO_SETTINGS_MODULE['\"]\\s*,\\s*['\"]([\\w.]+)['\"]");

    /**
     * @param module  dotted module, relative to {@code appDir}
     * @param appDir  the folder the server imports from ({@code src} for a src layout), relative to the app
     * @param asgi    served by uvicorn, else by gunicorn
     */
    public record Entry(String module, String variable, String appDir, boolean asgi, String file) {
        public String target() { return module + ":" + variable; }
    }

    private PythonApps() {}

    /** A FastAPI app ({@code app = FastAPI(...)}) in the usual layouts. */
    public static Entry fastapi(Path root) {
        return find(root, List.of(FASTAPI)).orElseThrow(() -> new BuildException(
                "no FastAPI app found: looked for a line \"app = FastAPI(\" in " + String.join(", ", LAYOUTS)
                        + "; define it there or start the app with a Procfile web: line"));
    }

    /** Any ASGI or WSGI app in the usual layouts, or a Django project's WSGI application. */
    public static Entry any(Path root) {
        return find(root, List.of(ASGI, WSGI)).or(() -> django(root)).orElseThrow(() -> new BuildException(
                "no Python web app found: looked in " + String.join(", ", LAYOUTS) + " for \"app = FastAPI(\", "
                        + "Starlette(, Quart(, Litestar(, Flask( or Bottle(, and for a Django manage.py; add a Procfile "
                        + "web: line (e.g. web: gunicorn mypkg.wsgi) or set the start command there"));
    }

    private static Optional<Entry> find(Path root, List<Pattern> patterns) {
        for (String layout : LAYOUTS) {
            for (Path file : expand(root, layout)) {
                String text = read(root, file);
                for (Pattern p : patterns) {
                    Matcher m = p.matcher(text);
                    if (m.find()) return Optional.of(entry(root, file, m.group(1), p != WSGI));
                }
            }
        }
        return Optional.empty();
    }

    private static Entry entry(Path root, Path file, String variable, boolean asgi) {
        Path rel = root.relativize(file);
        String appDir = rel.getNameCount() >= 3 && rel.getName(0).toString().equals("src") ? "src" : ".";
        Path inDir = appDir.equals("src") ? rel.subpath(1, rel.getNameCount()) : rel;
        String dotted = inDir.toString().replace('/', '.').replaceFirst("\\.py$", "").replaceFirst("\\.__init__$", "");
        return new Entry(dotted, variable, appDir, asgi, rel.toString());
    }

    /** {@code manage.py} naming its settings module {@code x.settings}: the app is {@code x.wsgi:application}. */
    private static Optional<Entry> django(Path root) {
        Path manage = root.resolve(FrameworkDetector.DJANGO_MANAGE);
        if (!Files.isRegularFile(manage)) return Optional.empty();
        Matcher m = DJANGO_SETTINGS.matcher(read(root, manage));
        if (!m.find()) return Optional.empty();
        String settings = m.group(1);
        String project = settings.contains(".") ? settings.substring(0, settings.lastIndexOf('.')) : settings;
        if (!Files.isRegularFile(root.resolve(project.replace('.', '/')).resolve("wsgi.py"))) return Optional.empty();
        return Optional.of(new Entry(project + ".wsgi", "application", ".", false, project.replace('.', '/') + "/wsgi.py"));
    }

    private static List<Path> expand(Path root, String layout) {
        int star = layout.indexOf('*');
        if (star < 0) {
            Path p = root.resolve(layout);
            return Files.isRegularFile(p) ? List.of(p) : List.of();
        }
        Path parent = root.resolve(layout.substring(0, star - 1));
        String rest = layout.substring(star + 2);
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(parent)) return out;
        try (var dirs = Files.list(parent)) {
            dirs.filter(Files::isDirectory).sorted().map(d -> d.resolve(rest)).filter(Files::isRegularFile).forEach(out::add);
        } catch (IOException e) {
            throw new BuildException("cannot list " + root.relativize(parent) + ": " + e.getMessage(), e);
        }
        return out;
    }

    private static String read(Path root, Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new BuildException("cannot read " + root.relativize(file) + " (is it UTF-8 text?): " + e.getMessage(), e);
        }
    }
}
