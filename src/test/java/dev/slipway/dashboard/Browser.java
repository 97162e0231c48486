package dev.slipway.dashboard;

import dev.slipway.testing.TestStore;
import org.openqa.selenium.By;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * Debian's headless Chromium driven through Debian's chromedriver (nothing is downloaded), with a fresh
 * profile per browser. {@link #shot} saves a screenshot under {@code target/screenshots/}.
 */
final class Browser implements AutoCloseable {
    static final Path SCREENSHOTS = Path.of("target", "screenshots");
    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String DRIVER = "/usr/bin/chromedriver";

    private final ChromeDriver driver;
    private final Path profile;
    private String prefix;
    private int shots;

    private Browser(ChromeDriver driver, Path profile, String prefix) {
        this.driver = driver;
        this.profile = profile;
        this.prefix = prefix;
    }

    /** A browser of {@code width}×{@code height} CSS pixels whose screenshots are named {@code prefix-NN-…}. */
    static Browser open(String prefix, int width, int height) {
        if (!Files.isExecutable(Path.of(CHROMIUM)) || !Files.isExecutable(Path.of(DRIVER))) {
            throw new IllegalStateException("the browser tests need Debian's chromium and chromium-driver: "
                    + "apt-get install chromium chromium-driver (.ci/run installs them)");
        }
        try {
            Path profile = Files.createTempDirectory("slipway-chromium-");
            ChromeOptions options = new ChromeOptions();
            options.setBinary(CHROMIUM);
            options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--no-first-run", "--disable-extensions", "--user-data-dir=" + profile,
                    "--window-size=" + width + "," + height);
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(new File(DRIVER)).usingAnyFreePort().build();
            ChromeDriver driver = new ChromeDriver(service, options);
            driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
            return new Browser(driver, profile, prefix);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    WebDriver driver() { return driver; }

    /** Names the screenshots that follow {@code <prefix>-01-…}, {@code <prefix>-02-…}. */
    void prefix(String prefix) {
        this.prefix = prefix;
        this.shots = 0;
    }

    Object js(String script, Object... args) {
        return driver.executeScript(script, args);
    }

    Browser go(String url) {
        driver.get(url);
        return this;
    }

    WebElement find(String css) {
        return driver.findElement(By.cssSelector(css));
    }

    List<WebElement> all(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    String text(String css) {
        return find(css).getText();
    }

    void type(String css, String text) {
        WebElement e = find(css);
        e.clear();
        e.sendKeys(text);
    }

    /** Clicks and waits for the next page to load (the old page's body goes stale). */
    void clickAndWait(String css) {
        WebElement body = find("body");
        find(css).click();
        waitUntil(Duration.ofSeconds(20), d -> isStale(body));
    }

    /** Types keys (e.g. Enter) into a field and waits for the next page to load. */
    void pressAndWait(String css, CharSequence... keys) {
        WebElement body = find("body");
        find(css).sendKeys(keys);
        waitUntil(Duration.ofSeconds(20), d -> isStale(body));
    }

    <T> T waitUntil(Duration timeout, Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, timeout, Duration.ofMillis(50)).until(condition::apply);
    }

    /** The text of the element, or null while the page that holds it is being replaced. */
    String textWhileReloading(String css) {
        try {
            return find(css).getText();
        } catch (NoSuchElementException | StaleElementReferenceException reloading) {
            return null;
        } catch (WebDriverException e) {
            if (replaced(e)) return null;
            throw e;
        }
    }

    private static boolean isStale(WebElement e) {
        try {
            e.isEnabled();
            return false;
        } catch (StaleElementReferenceException gone) {
            return true;
        } catch (WebDriverException e2) {
            if (replaced(e2)) return true;
            throw e2;
        }
    }

    // Chromium may report a node of a page being replaced as "not in the document" instead of stale
    private static boolean replaced(WebDriverException e) {
        return e.getMessage() != null && e.getMessage().contains("does not belong to the document");
    }

    /** Saves a screenshot of what the browser shows now as {@code <prefix>-NN-<name>.png}. */
    Path shot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            File png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
            Path to = SCREENSHOTS.resolve(String.format("%s-%02d-%s.png", prefix, ++shots, name));
            Files.copy(png.toPath(), to, StandardCopyOption.REPLACE_EXISTING);
            return to;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    String url() { return driver.getCurrentUrl(); }

    String source() { return driver.getPageSource(); }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            TestStore.deleteTree(profile);
        }
    }
}
