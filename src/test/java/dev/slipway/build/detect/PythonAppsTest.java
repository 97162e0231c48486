package dev.slipway.build.detect;

import dev.slipway.build.BuildException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PythonAppsTest {
    @TempDir
    Path root;

    private void write(String file, String content) throws IOException {
        Path p = root.resolve(file);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    @Test
    void fastapiIsFoundInTheTutorialsLayoutAndInASrcLayout() throws IOException {
        write("app/__init__.py", "");
        write("app/main.py", "from fastapi import FastAPI\napp = FastAPI()\n");
        PythonApps.Entry e = PythonApps.fastapi(root);
        assertThat(e.target()).isEqualTo("app.main:app");
        assertThat(e.appDir()).isEqualTo(".");
        assertThat(StartCommands.python(root, e)).containsSubsequence("-m", "uvicorn", "app.main:app", "--port", "${PORT}");

        Files.delete(root.resolve("app/main.py"));
        write("src/shop/main.py", "import fastapi\napp = fastapi.FastAPI(title='shop')\n");
        e = PythonApps.fastapi(root);
        assertThat(e.target()).isEqualTo("shop.main:app");
        assertThat(StartCommands.python(root, e)).containsSequence("--app-dir", "src");
    }

    @Test
    void theFirstLayoutInTheDocumentedOrderWins() throws IOException {
        write("api/index.py", "from fastapi import FastAPI\napp = FastAPI()\n");
        assertThat(PythonApps.fastapi(root).target()).isEqualTo("api.index:app");
        write("main.py", "from fastapi import FastAPI\napp = FastAPI()\n");
        assertThat(PythonApps.fastapi(root).target()).isEqualTo("main:app");
    }

    @Test
    void flaskAndDjangoAreWsgiThroughGunicorn() throws IOException {
        write("app.py", "from flask import Flask\napp = Flask(__name__)\n");
        PythonApps.Entry flask = PythonApps.any(root);
        assertThat(flask.asgi()).isFalse();
        assertThat(StartCommands.python(root, flask)).containsSubsequence("-m", "gunicorn", "app:app", "--bind", "127.0.0.1:${PORT}");

        Files.delete(root.resolve("app.py"));
        write("manage.py", "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'site1.settings')\n");
        write("site1/wsgi.py", "from django.core.wsgi import get_wsgi_application\nx = get_wsgi_application()\n");
        assertThat(PythonApps.any(root).target()).isEqualTo("site1.wsgi:application");
    }

    @Test
    void nothingFoundNamesTheLayoutsAndTheWayOut() {
        assertThatThrownBy(() -> PythonApps.any(root)).isInstanceOf(BuildException.class)
                .hasMessageContaining("app/main.py").hasMessageContaining("Procfile");
    }

    @Test
    void aProcfilesBareServerRunsThroughTheVenvsInterpreter() throws IOException {
        Path python = root.resolve(".venv/bin/python");
        Files.createDirectories(python.getParent());
        Files.writeString(python, "#!/bin/sh\n");
        python.toFile().setExecutable(true);
        assertThat(StartCommands.procfile(root, List.of("uvicorn", "app.main:app", "--port", "${PORT}")))
                .containsExactly(python.toString(), "-m", "uvicorn", "app.main:app", "--port", "${PORT}");
        assertThat(StartCommands.procfile(root, List.of("python", "serve.py"))).containsExactly(python.toString(), "serve.py");
        assertThat(StartCommands.procfile(root, List.of("gunicorn", "w:app")).subList(0, 3))
                .containsExactly(python.toString(), "-m", "gunicorn");
    }
}
