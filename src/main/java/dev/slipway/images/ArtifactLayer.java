package dev.slipway.images;

import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The artifact as one image layer under {@link #APP}. The artifact is a tenant's build output (DESIGN §6): a
 * symbolic link is never followed out of it. A link whose target is inside the artifact is stored as a copy of
 * the target (an image layer built by Jib holds no links; node_modules/.bin and pnpm's tree need them); a link
 * that leads outside, dangles, or loops is left out, and counted.
 */
final class ArtifactLayer {
    static final AbsoluteUnixPath APP = AbsoluteUnixPath.get("/app");

    record Result(FileEntriesLayer layer, int files, List<String> skippedLinks) {}

    private final Path root;
    private final FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName("artifact");
    private final List<String> skipped = new ArrayList<>();
    private int files;

    private ArtifactLayer(Path root) {
        this.root = root;
    }

    static Result of(Path artifactRoot) throws IOException {
        Path real = artifactRoot.toRealPath();
        ArtifactLayer l = new ArtifactLayer(real);
        l.directory(real, APP, new HashSet<>(Set.of(real)));
        return new Result(l.layer.build(), l.files, List.copyOf(l.skipped));
    }

    /** @param open the real paths of the directories being walked: a link back to one of them is a loop */
    private void directory(Path dir, AbsoluteUnixPath at, Set<Path> open) throws IOException {
        layer.addEntry(dir, at, permissions(dir));
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            s.forEach(children::add);
        }
        children.sort(null);
        for (Path child : children) {
            AbsoluteUnixPath to = at.resolve(child.getFileName().toString());
            BasicFileAttributes a = Files.readAttributes(child, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (a.isSymbolicLink()) link(child, to, open);
            else if (a.isDirectory()) enter(child, to, open);
            else if (a.isRegularFile()) file(child, to);
            // sockets, fifos, devices: nothing an app's image needs
        }
    }

    private void link(Path link, AbsoluteUnixPath to, Set<Path> open) throws IOException {
        Path target;
        try {
            target = link.toRealPath();
        } catch (IOException dangling) {
            skipped.add(root.relativize(link).toString());
            return;
        }
        if (!target.startsWith(root)) {
            skipped.add(root.relativize(link).toString());
            return;
        }
        // toRealPath resolved every link: target is a directory or a file that no link leads out of
        if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) enter(target, to, open);
        else if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) file(target, to);
    }

    private void enter(Path dir, AbsoluteUnixPath to, Set<Path> open) throws IOException {
        Path real = dir.toRealPath();
        if (!real.startsWith(root) || !open.add(real)) {
            skipped.add(root.relativize(dir.toAbsolutePath()).toString());
            return;
        }
        try {
            directory(real, to, open);
        } finally {
            open.remove(real);
        }
    }

    private void file(Path file, AbsoluteUnixPath to) throws IOException {
        layer.addEntry(file, to, permissions(file));
        files++;
    }

    private static FilePermissions permissions(Path p) throws IOException {
        var perms = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS).permissions();
        // readable by the image's non-root user whoever owned the file here; no set-id bits, no world write
        var set = new HashSet<>(perms);
        set.add(PosixFilePermission.OWNER_READ);
        set.add(PosixFilePermission.GROUP_READ);
        set.add(PosixFilePermission.OTHERS_READ);
        set.remove(PosixFilePermission.OTHERS_WRITE);
        set.remove(PosixFilePermission.GROUP_WRITE);
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            set.add(PosixFilePermission.OWNER_EXECUTE);
            set.add(PosixFilePermission.GROUP_EXECUTE);
            set.add(PosixFilePermission.OTHERS_EXECUTE);
        }
        return FilePermissions.fromPosixFilePermissions(set);
    }
}
