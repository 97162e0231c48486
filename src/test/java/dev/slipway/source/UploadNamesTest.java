package dev.slipway.source;

import dev.slipway.projects.ProjectInput;
import dev.slipway.testing.Zips;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class UploadNamesTest {
    @TempDir
    Path dir;

    private Path zip(Map<String, String> files) throws IOException {
        return Files.write(dir.resolve("u-" + files.hashCode() + ".zip"), Zips.of(files));
    }

    @Test
    void theNameComesFromPackageJsonThenPyprojectThenTheTopFolder() throws IOException {
        assertThat(UploadNames.of(zip(Map.of("shop-main/package.json", "{\"name\": \"@acme/Web_Shop\"}",
                "shop-main/index.js", "")), null).map(ProjectInput::slug)).contains("web-shop");
        assertThat(UploadNames.of(zip(Map.of("pyproject.toml", "[project]\nname = \"billing-api\"\n", "main.py", "")), null))
                .contains("billing-api");
        assertThat(UploadNames.of(zip(Map.of("my-site/index.html", "<p>")), null)).contains("my-site");
        assertThat(UploadNames.of(zip(Map.of("index.html", "<p>")), null)).isEmpty();
        assertThat(UploadNames.of(zip(Map.of("repo/apps/web/package.json", "{\"name\": \"web\"}", "repo/package.json", "{}")),
                "apps/web")).contains("web");
    }

    @Test
    void aHostileUploadGivesNoNameRatherThanAnError() throws IOException {
        Path notAZip = Files.writeString(dir.resolve("x.zip"), "not a zip at all");
        assertThat(UploadNames.of(notAZip, null)).isEmpty();
        assertThat(UploadNames.of(zip(Map.of("package.json", "{\"name\": 42}")), null)).isEmpty();
        String huge = "{\"name\": \"" + "a".repeat(200_000) + "\"}";
        // read only so far: the truncated JSON is no name, and the slug of any name is a bounded DNS label
        assertThat(UploadNames.of(zip(Map.of("package.json", huge)), null)).isEmpty();
        assertThat(ProjectInput.slug("../../Etc/Passwd; rm -rf")).isEqualTo("etc-passwd-rm-rf");
    }
}
