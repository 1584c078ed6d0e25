package io.reshard.system;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module graph of DESIGN 2, checked on the compiled main classes of every module: router-lib
 * &lt;- core &lt;- {cdc, copier, differ} &lt;- switcher &lt;- daemon &lt;- cli, the demo and the
 * benchmarks on top. Each rule names the packages a module must not use; a class that breaks one is
 * listed with the dependency that breaks it.
 */
class ModuleGraphTest {
  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.reshard");
  }

  private static void check(String module, String... forbidden) {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage("io.reshard." + module + "..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(prefixed(forbidden))
            .because("DESIGN 2: dependencies point one way")
            .allowEmptyShould(false);
    rule.check(main);
  }

  private static String[] prefixed(String... modules) {
    String[] out = new String[modules.length];
    for (int i = 0; i < modules.length; i++) {
      out[i] = "io.reshard." + modules[i] + "..";
    }
    return out;
  }

  private static final String[] ABOVE_PIPELINE = {"switcher", "daemon", "cli", "demo", "bench"};

  @Test
  void routerLibUsesNoOtherModule() {
    check(
        "router", "core", "cdc", "copier", "differ", "switcher", "daemon", "cli", "demo", "bench");
  }

  @Test
  void coreUsesOnlyRouterLib() {
    check("core", "cdc", "copier", "differ", "switcher", "daemon", "cli", "demo", "bench");
  }

  @Test
  void cdcCopierAndDifferShareCoreAndNothingElseOfEachOther() {
    check("cdc", concat(ABOVE_PIPELINE, "copier", "differ"));
    check("copier", concat(ABOVE_PIPELINE, "cdc", "differ"));
    check("differ", concat(ABOVE_PIPELINE, "cdc", "copier"));
  }

  @Test
  void theSwitcherUsesNothingAboveIt() {
    check("switcher", "daemon", "cli", "demo", "bench");
  }

  @Test
  void theDaemonUsesNeitherTheCliNorTheLab() {
    check("daemon", "cli", "demo", "bench");
  }

  @Test
  void theCliUsesNeitherTheDemoNorTheBenchmarks() {
    check("cli", "demo", "bench");
  }

  /** The rules are not vacuous: the whole-system tests use core, and a rule forbidding it fails. */
  @Test
  void aRuleCatchesAForbiddenDependency() {
    JavaClasses tests = new ClassFileImporter().importPackages("io.reshard.system");
    ArchRule forbidden =
        noClasses()
            .that()
            .resideInAPackage("io.reshard.system..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.reshard.core..");
    org.junit.jupiter.api.Assertions.assertThrows(
        AssertionError.class, () -> forbidden.check(tests));
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
