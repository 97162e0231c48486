package dev.slipway.pipeline;

import dev.slipway.accounts.Tier;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The build cache, through the API with real builds of the express fixture from git: a code-only
 * redeploy skips the install and serves the new code; a changed lockfile installs again; another project's
 * identical app (of the same account or another) never gets the first project's packages; and a build script that
 * attacks the cached packages cannot change them. Each test has accounts of its own, so their caches do not meet.
 * H2 only: it builds.
 */
@EndToEnd
class BuildCacheTest {
    private static final Duration BUILD = Duration.ofMinutes(5);
    private static final Pattern HIT = Pattern.compile("Build cache: hit for key ([0-9a-f]{12}): reused node_modules .*skipping npm ci");
    private static final Pattern MISS = Pattern.compile("Build cache: no entry for key ([0-9a-f]{12}); installing");

    @RegisterExtension
    static final GitDeploys deploys = new GitDeploys();

    /** Reports whether the express package it runs with was changed by anyone. */
    private static final String APP = """
            const express = require("express");
            const fs = require("fs");
            const path = require("path");
            const dir = path.dirname(require.resolve("express/package.json"));
            const seen = [];
            if (fs.readFileSync(path.join(dir, "index.js"), "utf8").includes("POISON")) seen.push("index.js");
            if (fs.readFileSync(path.join(dir, "lib/express.js"), "utf8").includes("POISON")) seen.push("lib/express.js");
            if (fs.existsSync(path.join(dir, "planted.js"))) seen.push("planted.js");
            const app = express();
            app.get("/", (req, res) => res.type("text/plain").send("fixture:cache VERSION " + (seen.length ? "poisoned " + seen.join(",") : "clean") + "\\n"));
            app.listen(Number(process.env.PORT || 3000), "127.0.0.1");
            """;

    /** A build script that tries every way to change the installed express in place, and two that change its own copy. */
    private static final String POISON = """
            const fs = require("fs");
            const path = require("path");
            const dir = path.dirname(require.resolve("express/package.json"));
            const index = path.join(dir, "index.js");
            function attempt(what, fn) {
              try { fn(); console.log("poison: " + what + ": done"); } catch (e) { console.log("poison: " + what + ": refused (" + e.code + ")"); }
            }
            attempt("append to index.js", () => fs.appendFileSync(index, "\\n// POISON\\n"));
            attempt("write index.js in place", () => {
              const fd = fs.openSync(index, "r+");
              try { fs.writeSync(fd, "\\n// POISON\\n", fs.fstatSync(fd).size); } finally { fs.closeSync(fd); }
            });
            attempt("chmod index.js", () => fs.chmodSync(index, 0o666));
            attempt("truncate index.js", () => fs.truncateSync(index, 0));
            attempt("replace lib/express.js", () => {
              const f = path.join(dir, "lib/express.js");
              const text = fs.readFileSync(f, "utf8");
              fs.unlinkSync(f);
              fs.writeFileSync(f, text + "\\n// POISON\\n");
            });
            attempt("plant planted.js", () => fs.writeFileSync(path.join(dir, "planted.js"), "// POISON"));
            """;

    private static String text(Map<String, byte[]> files, String name) {
        return new String(files.get(name), StandardCharsets.UTF_8);
    }

    /** The express fixture serving {@link #APP}; with a build script that runs {@link #POISON} when {@code hostile}. */
    private static Map<String, byte[]> app(String version, boolean hostile) {
        Map<String, byte[]> files = new LinkedHashMap<>(FrameworksTest.fixture("express"));
        files.put("app.js", APP.replace("VERSION", version).getBytes(StandardCharsets.UTF_8));
        if (hostile) {
            String pkg = text(files, "package.json").replace("\"start\": \"node app.js\"", "\"build\": \"node poison.js\",\n    \"start\": \"node app.js\"");
            assertThat(pkg).contains("poison.js");
            files.put("package.json", pkg.getBytes(StandardCharsets.UTF_8));
            files.put("poison.js", POISON.getBytes(StandardCharsets.UTF_8));
        }
        return files;
    }

    private record Project(Runs runs, String repo, String id, String lastRun) {}

    /** Pushes {@code files} as a new repository and migrates it for {@code runs}'s account; waits until it is live. */
    private static Project migrate(Runs runs, String repo, Map<String, byte[]> files) {
        deploys.push(repo, files);
        String migration = runs.migrate(repo);
        runs.await("migrations", migration, "complete", BUILD);
        return new Project(runs, repo, runs.projectOf(migration), runs.firstDeployment(runs.projectOf(migration)));
    }

    /** As {@link #migrate}, with the project's own variables. */
    private static Project migrate(Runs runs, String repo, Map<String, byte[]> files, String envVars) {
        deploys.push(repo, files);
        var r = runs.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo
                + "\",\"framework\":\"node-express\",\"env_vars\":" + envVars + "}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        String migration = r.json().at("/data/id").asText();
        runs.await("migrations", migration, "complete", BUILD);
        return new Project(runs, repo, runs.projectOf(migration), runs.firstDeployment(runs.projectOf(migration)));
    }

    /** As {@link #migrate}, with the framework detected. */
    private static Project migrateDetected(Runs runs, String repo, Map<String, byte[]> files) {
        deploys.push(repo, files);
        var r = runs.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        String migration = r.json().at("/data/id").asText();
        runs.await("migrations", migration, "complete", BUILD);
        return new Project(runs, repo, runs.projectOf(migration), runs.firstDeployment(runs.projectOf(migration)));
    }

    /** Commits {@code files} on top and deploys the project; waits until it is live. */
    private static Project redeploy(Project p, Map<String, byte[]> files) {
        deploys.git().commitBytes(p.repo(), "main", files, "change");
        String deployment = p.runs().deploy(p.id());
        p.runs().await("deployments", deployment, "live", BUILD);
        return new Project(p.runs(), p.repo(), p.id(), deployment);
    }

    private static List<String> log(Project p) {
        return p.runs().messages("deployments", p.lastRun());
    }

    private static String body(Project p) {
        String url = p.runs().http().get("/v1/projects/" + p.id()).json().at("/data/url").asText();
        return Apps.get(url + "/").body();
    }

    private static String key(List<String> log, Pattern pattern) {
        for (String line : log) {
            Matcher m = pattern.matcher(line);
            if (m.find()) return m.group(1);
        }
        throw new AssertionError("no line matches " + pattern + " in " + log);
    }

    /** The project's last log once it says its packages were saved as {@code key}. */
    private static List<String> awaitSaved(Project p, String key) {
        String saved = "Build cache: saved node_modules as key " + key;
        return Await.value(Duration.ofSeconds(30), "\"" + saved + "\" in " + p.lastRun() + "'s log", () -> {
            List<String> lines = log(p);
            return lines.stream().anyMatch(m -> m.contains(saved)) ? lines : null;
        });
    }

    private static int indexOf(List<String> log, String part) {
        for (int i = 0; i < log.size(); i++) if (log.get(i).contains(part)) return i;
        throw new AssertionError("no line has \"" + part + "\" in " + log);
    }

    private static boolean installed(List<String> log) {
        return log.stream().anyMatch(m -> m.matches("(?s)\\w+ Running (\\S*/)?npm ci .*"));
    }

    private static Runs newAccount() {
        return new Runs(deploys.server().tenant(Tier.TEAM).http());
    }

    @Test
    void aCodeOnlyRedeployReusesThePackagesAndALockfileChangeInstallsAgain() {
        Runs account = newAccount();
        Project first = migrate(account, "cache/express", app("v1", false));
        List<String> firstLog = log(first);
        String key = key(firstLog, MISS);
        assertThat(installed(firstLog)).as("the first build installs: " + firstLog).isTrue();
        // nothing of the app's runs after its install but its start: its packages are cached after it, off the deploy's path
        assertThat(firstLog).anyMatch(m -> m.contains("Build cache: the installed packages are saved as key " + key + " once the app has started"));
        List<String> whole = awaitSaved(first, key);
        assertThat(indexOf(whole, "Build cache: saved node_modules as key " + key)).as(String.join("\n", whole))
                .isGreaterThan(indexOf(whole, "Deployment is live"));
        assertThat(body(first)).isEqualTo("fixture:cache v1 clean\n");

        Project second = redeploy(first, Map.of("app.js", APP.replace("VERSION", "v2").getBytes(StandardCharsets.UTF_8)));
        List<String> secondLog = log(second);
        assertThat(key(secondLog, HIT)).isEqualTo(key);
        assertThat(installed(secondLog)).as("the install step is skipped: " + secondLog).isFalse();
        assertThat(body(second)).isEqualTo("fixture:cache v2 clean\n");

        // the same packages, but the lockfile's bytes changed: another key, a full install
        String lock = text(FrameworksTest.fixture("express"), "package-lock.json");
        Project third = redeploy(second, Map.of("package-lock.json", (lock.strip() + "\n\n").getBytes(StandardCharsets.UTF_8)));
        List<String> thirdLog = log(third);
        assertThat(key(thirdLog, MISS)).isNotEqualTo(key);
        assertThat(installed(thirdLog)).isTrue();
        assertThat(body(third)).isEqualTo("fixture:cache v2 clean\n");

        // an identical app of another account (another project) has another key, and installs everything itself
        Project other = migrate(newAccount(), "cache/express-other", app("v2", false));
        List<String> otherLog = log(other);
        assertThat(key(otherLog, MISS)).isNotEqualTo(key);
        assertThat(otherLog).noneMatch(m -> HIT.matcher(m).find());
        assertThat(installed(otherLog)).isTrue();
        assertThat(body(other)).isEqualTo("fixture:cache v2 clean\n");
    }

    @Test
    void aNextAppGetsItsPackagesAndItsNextCacheBack() {
        Runs account = newAccount();
        Project first = migrateDetected(account, "cache/next", FrameworksTest.fixture("nextjs"));
        List<String> firstLog = log(first);
        String key = key(firstLog, MISS);
        assertThat(firstLog).anyMatch(m -> m.contains("Build cache: saved .next/cache ("))
                .noneMatch(m -> m.contains("restored .next/cache"));

        String page = text(FrameworksTest.fixture("nextjs"), "app/page.js");
        Project second = redeploy(first, Map.of("app/page.js", page.replace("fixture:nextjs", "fixture:nextjs v2").getBytes(StandardCharsets.UTF_8)));
        List<String> secondLog = log(second);
        assertThat(key(secondLog, HIT)).isEqualTo(key);
        assertThat(installed(secondLog)).as("the install step is skipped: " + secondLog).isFalse();
        assertThat(secondLog).anyMatch(m -> m.contains("Build cache: restored .next/cache from this project's last build"));
        assertThat(body(second)).contains("fixture:nextjs v2");
    }

    @Test
    void aPnpmAppsPackagesComeBackToo() {
        Project first = migrateDetected(newAccount(), "cache/pnpm", FrameworksTest.fixture("pnpm"));
        String key = key(log(first), MISS);
        String server = text(FrameworksTest.fixture("pnpm"), "server.js");
        Project second = redeploy(first, Map.of("server.js", server.replace("'fixture:pnpm'", "'fixture:pnpm v2'").getBytes(StandardCharsets.UTF_8)));
        List<String> secondLog = log(second);
        assertThat(secondLog).anyMatch(m -> m.contains("Build cache: hit for key " + key + ": reused node_modules ")
                && m.endsWith("; skipping pnpm install"));
        assertThat(secondLog).noneMatch(m -> m.matches("(?s)\\w+ Running \\S*pnpm install.*"));
        String body = body(second);
        // ms as pnpm-lock.yaml pins it, linked from the cache; the build ran with pnpm
        assertThat(body).contains("fixture:pnpm v2").contains("\"ms\":\"2.1.1\"").contains("pnpm/8.15.9");
    }

    @Test
    void aBuildScriptCannotChangeTheCachedPackagesAndNoOtherProjectGetsThem() {
        assertThat(deploys.server().anonymous().get("/readyz").json().get("isolation").asText())
                .as("this test needs the sandbox (bubblewrap, passt, nftables, root)").isEqualTo("sandbox");
        Runs account = newAccount();
        // the attacker builds first: its install is what the account's cache keeps, and its build script then
        // attacks those very files
        Project attacker = migrate(account, "cache/attacker", app("attacker", true));
        List<String> attackLog = log(attacker);
        String key = key(attackLog, MISS);
        assertThat(attackLog).anyMatch(m -> m.contains("poison: append to index.js:"));
        // what it changed in its own copy is in its own app, which proves the attack ran
        assertThat(body(attacker)).isEqualTo("fixture:cache attacker poisoned lib/express.js,planted.js\n");
        assertThat(attackLog).anyMatch(m -> m.contains("poison: append to index.js: refused (EACCES)"))
                .anyMatch(m -> m.contains("poison: write index.js in place: refused (EACCES)"))
                .anyMatch(m -> m.contains("poison: chmod index.js: refused (EPERM)"))
                .anyMatch(m -> m.contains("poison: truncate index.js: refused (EACCES)"));

        // the attacker again, now from the cache's files: they are what its install wrote, and still refuse it
        Project again = redeploy(attacker, Map.of("app.js", APP.replace("VERSION", "attacker2").getBytes(StandardCharsets.UTF_8)));
        assertThat(key(log(again), HIT)).isEqualTo(key);
        assertThat(log(again)).anyMatch(m -> m.contains("poison: append to index.js: refused (EACCES)"));
        assertThat(body(again)).isEqualTo("fixture:cache attacker2 poisoned lib/express.js,planted.js\n");

        // a victim project of the same account, with the same packages: its own install, nothing of the attacker's
        Project victim = migrate(account, "cache/victim", app("victim", false));
        String victimKey = key(log(victim), MISS);
        assertThat(victimKey).isNotEqualTo(key);
        assertThat(installed(log(victim))).isTrue();
        assertThat(body(victim)).isEqualTo("fixture:cache victim clean\n");
        Project victimAgain = redeploy(victim, Map.of("app.js", APP.replace("VERSION", "victim2").getBytes(StandardCharsets.UTF_8)));
        assertThat(key(log(victimAgain), HIT)).isEqualTo(victimKey);
        assertThat(body(victimAgain)).isEqualTo("fixture:cache victim2 clean\n");

        // another account's identical app gets nothing of the first account's cache
        Project stranger = migrate(newAccount(), "cache/stranger", app("stranger", false));
        assertThat(key(log(stranger), MISS)).isNotEqualTo(key).isNotEqualTo(victimKey);
        assertThat(body(stranger)).isEqualTo("fixture:cache stranger clean\n");
    }

    /**
     * An app with no build script and no dev dependencies has its packages cached after it has started: by then it
     * has run, as the project's uid, and tried every way to change them in place (its start does what {@link #POISON}
     * does). Each is refused, so the next build gets what the install wrote.
     */
    @Test
    void anAppRunningBeforeItsPackagesAreCachedCannotChangeThem() {
        assertThat(deploys.server().anonymous().get("/readyz").json().get("isolation").asText())
                .as("this test needs the sandbox (bubblewrap, passt, nftables, root)").isEqualTo("sandbox");
        Map<String, byte[]> files = app("starter", false);
        files.put("app.js", ("{\n" + POISON + "}\n" + APP.replace("VERSION", "starter")).getBytes(StandardCharsets.UTF_8));
        Project starter = migrate(newAccount(), "cache/starter", files);
        String key = key(log(starter), MISS);
        List<String> whole = awaitSaved(starter, key);
        List<String> attempts = whole.stream().filter(m -> m.contains("poison: ")).toList();
        assertThat(attempts).as(String.join("\n", whole)).hasSize(6).allMatch(m -> m.contains(": refused ("));
        assertThat(indexOf(whole, "poison: plant planted.js")).isLessThan(indexOf(whole, "Build cache: saved node_modules as key " + key));
        assertThat(body(starter)).isEqualTo("fixture:cache starter clean\n");

        Project next = redeploy(starter, Map.of("app.js", APP.replace("VERSION", "next").getBytes(StandardCharsets.UTF_8)));
        assertThat(key(log(next), HIT)).isEqualTo(key);
        assertThat(body(next)).isEqualTo("fixture:cache next clean\n");
    }

    /**
     * Two projects of one account with the same lockfile, one of them with a mirror variable that the install
     * scripts of packages read (Electron's, Puppeteer's, Prisma's, Sass's…): they share no entry, so what one
     * project's install fetched never lands in the other's build.
     */
    @Test
    void twoProjectsOfAnAccountWithTheSameLockfileAndDifferentMirrorsShareNoEntry() {
        Runs account = newAccount();
        Project mirrored = migrate(account, "cache/mirrored", app("mirrored", false),
                "{\"ELECTRON_MIRROR\":\"http://127.0.0.1:9/mirror/\",\"SASS_BINARY_SITE\":\"http://127.0.0.1:9/sass\"}");
        String key = key(log(mirrored), MISS);
        Project plain = migrate(account, "cache/plain", app("plain", false));
        List<String> plainLog = log(plain);
        assertThat(plainLog).noneMatch(m -> HIT.matcher(m).find());
        assertThat(key(plainLog, MISS)).isNotEqualTo(key);
        assertThat(installed(plainLog)).as("the other project installs itself: " + plainLog).isTrue();
        assertThat(body(plain)).isEqualTo("fixture:cache plain clean\n");
    }
}
