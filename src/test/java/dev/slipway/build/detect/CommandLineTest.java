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

class CommandLineTest {
    @Test
    void splitsOnWhitespace() {
        assertThat(CommandLine.split("  node   server.js\t--flag ")).containsExactly("node", "server.js", "--flag");
    }

    @Test
    void quotesAndEscapes() {
        assertThat(CommandLine.split("echo 'a b' \"c \\\"d\\\" \\n\" e\\ f ''"))
                .containsExactly("echo", "a b", "c \"d\" \\n", "e f", "");
        assertThat(CommandLine.split("run 'it''s' \"x\"y")).containsExactly("run", "its", "xy");
    }

    @Test
    void portIsExpandedToTheRuntimeToken() {
        assertThat(CommandLine.split("gunicorn -b 127.0.0.1:$PORT --port=${PORT} \"$PORT\" '$PORT' \\$PORT"))
                .containsExactly("gunicorn", "-b", "127.0.0.1:${PORT}", "--port=${PORT}", "${PORT}", "$PORT", "$PORT");
    }

    @Test
    void otherVariablesNeedAShellAndAreRefused() {
        assertThatThrownBy(() -> CommandLine.split("node app.js --db $DATABASE_URL"))
                .isInstanceOf(BuildException.class).hasMessageContaining("uses $DATABASE_URL; only $PORT is expanded");
        assertThatThrownBy(() -> CommandLine.split("node ${PORT:-3000}")).hasMessageContaining("the expansion ${PORT:-3000}");
        assertThatThrownBy(() -> CommandLine.split("node $(which app)")).hasMessageContaining("command substitution");
    }

    @Test
    void shellOperatorsAreRefused() {
        for (String line : List.of("npm run build && node x.js", "node x.js | tee log", "node x.js > out", "a; b", "node `x`")) {
            assertThatThrownBy(() -> CommandLine.split(line)).as(line)
                    .isInstanceOf(BuildException.class).hasMessageContaining("needs a shell");
        }
        assertThat(CommandLine.split("node 'a && b' \"c|d\"")).containsExactly("node", "a && b", "c|d");
    }

    @Test
    void leadingAssignmentIsRefusedWithAHint() {
        assertThatThrownBy(() -> CommandLine.split("NODE_OPTIONS=--max-old-space-size=512 node x.js"))
                .isInstanceOf(BuildException.class)
                .hasMessageContaining("assignment NODE_OPTIONS=")
                .hasMessageContaining("set NODE_OPTIONS as a project environment variable");
        assertThat(CommandLine.split("node --title=a=b x.js")).containsExactly("node", "--title=a=b", "x.js");
    }

    @Test
    void malformedLinesAreRefused() {
        assertThatThrownBy(() -> CommandLine.split("node 'x")).hasMessageContaining("unterminated single quote");
        assertThatThrownBy(() -> CommandLine.split("node \"x")).hasMessageContaining("unterminated double quote");
        assertThatThrownBy(() -> CommandLine.split("node x\\")).hasMessageContaining("trailing backslash");
        assertThatThrownBy(() -> CommandLine.split("   # just a comment")).hasMessageContaining("empty");
    }

    @Test
    void commentsEndTheLine() {
        assertThat(CommandLine.split("node x.js # start it")).containsExactly("node", "x.js");
        assertThat(CommandLine.split("node a#b")).containsExactly("node", "a#b");
    }

    @Test
    void procfileWebLineIsFound(@TempDir Path dir) throws IOException {
        assertThat(Procfile.web(dir)).isEmpty();
        Files.writeString(dir.resolve("Procfile"), """
                # processes
                worker: node worker.js
                web:   uvicorn main:app --host 127.0.0.1 --port $PORT
                """);
        assertThat(Procfile.web(dir)).contains(List.of("uvicorn", "main:app", "--host", "127.0.0.1", "--port", "${PORT}"));
    }

    @Test
    void procfileWithoutWebOrWithAnEmptyWebLine(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("Procfile"), "worker: node worker.js\nwebhook: node hook.js\n");
        assertThat(Procfile.web(dir)).isEmpty();
        Files.writeString(dir.resolve("Procfile"), "web:\n");
        assertThatThrownBy(() -> Procfile.web(dir)).isInstanceOf(BuildException.class).hasMessageContaining("no command");
    }

    @Test
    void procfileReleaseLineBesideTheWebOne(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("Procfile"), "web: node server.js\nrelease: npx prisma migrate deploy --schema=db/schema.prisma\n");
        assertThat(Procfile.release(dir)).contains(List.of("npx", "prisma", "migrate", "deploy", "--schema=db/schema.prisma"));
        assertThat(Procfile.web(dir)).contains(List.of("node", "server.js"));
        Files.writeString(dir.resolve("Procfile"), "web: node server.js\nreleased: node x.js\n");
        assertThat(Procfile.release(dir)).isEmpty();
        Files.writeString(dir.resolve("Procfile"), "release:   \n");
        assertThatThrownBy(() -> Procfile.release(dir)).isInstanceOf(BuildException.class).hasMessageContaining("release: line has no command");
    }
}
