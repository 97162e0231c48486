package dev.slipway.build;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** The fixture apps under src/test/resources/fixtures, copied to a fresh directory for each use. */
final class Fixtures {
    private Fixtures() {}

    static Path copy(String name, Path into) throws IOException {
        Path from;
        try {
            var url = Fixtures.class.getResource("/fixtures/" + name);
            if (url == null) throw new IllegalArgumentException("no fixture " + name);
            from = Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        Path to = into.resolve(name);
        try (var walk = Files.walk(from)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return to;
    }
}
