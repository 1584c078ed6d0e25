package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The daemon's status page in a real headless Chromium: Debian's {@code chromium} driven through
 * its {@code chromedriver} (both from the Debian packages {@code .ci/run} installs; nothing is
 * downloaded). Screenshots go to {@code system-tests/target/status-page/}, kept as test artifacts.
 */
final class StatusPageBrowser implements AutoCloseable {
  /** Where the screenshots are kept. */
  static final Path SCREENSHOTS = Path.of("target", "status-page");

  private static final List<String> BROWSERS =
      List.of("/usr/lib/chromium/chromium", "/usr/bin/chromium");
  private static final List<String> DRIVERS =
      List.of("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");

  private final ChromeDriver driver;

  /** Opens {@code url} in a new headless Chromium. */
  StatusPageBrowser(String url) {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(first(BROWSERS, "chromium (apt-get install -y chromium)"));
    options.addArguments(
        "--headless=new",
        "--no-sandbox", // tests run as root here
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1600");
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(
                new File(first(DRIVERS, "chromedriver (apt-get install -y chromium-driver)")))
            .usingAnyFreePort()
            .build();
    driver = new ChromeDriver(service, options);
    driver.get(url);
  }

  private static String first(List<String> paths, String what) {
    return paths.stream()
        .filter(p -> Files.isExecutable(Path.of(p)))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no " + what + " in " + paths));
  }

  /** Waits until {@code done} holds for the page, at most {@code timeout}. */
  void await(String what, Duration timeout, Predicate<StatusPageBrowser> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.test(this)) {
      assertTrue(System.nanoTime() < deadline, "the page never showed " + what + ":\n" + text());
      Thread.sleep(250);
    }
  }

  /** The text of the whole page as a reader sees it. */
  String text() {
    return fresh(() -> driver.findElement(By.tagName("body")).getText());
  }

  /** The text of the first element {@code css} selects, or empty if there is none. */
  String text(String css) {
    return fresh(
        () -> {
          List<WebElement> found = driver.findElements(By.cssSelector(css));
          return found.isEmpty() ? "" : found.get(0).getText();
        });
  }

  /** The value of {@code attribute} of the first element {@code css} selects, or empty. */
  String attribute(String css, String attribute) {
    return fresh(
        () -> {
          List<WebElement> found = driver.findElements(By.cssSelector(css));
          String v = found.isEmpty() ? null : found.get(0).getAttribute(attribute);
          return v == null ? "" : v;
        });
  }

  /**
   * Reads the page through {@code read}, again if the page redrew the element between finding it
   * and reading it (the page redraws itself every second).
   */
  private static String fresh(Supplier<String> read) {
    for (int attempt = 1; ; attempt++) {
      try {
        return read.get();
      } catch (StaleElementReferenceException redrawn) {
        if (attempt == 5) {
          throw redrawn;
        }
      }
    }
  }

  /** How many elements {@code css} selects. */
  int count(String css) {
    return driver.findElements(By.cssSelector(css)).size();
  }

  /** Saves a screenshot of the page as {@code target/status-page/NAME.png}. */
  Path screenshot(String name) throws java.io.IOException {
    Files.createDirectories(SCREENSHOTS);
    Path file = SCREENSHOTS.resolve(name + ".png");
    Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
    return file;
  }

  @Override
  public void close() {
    driver.quit();
  }
}
