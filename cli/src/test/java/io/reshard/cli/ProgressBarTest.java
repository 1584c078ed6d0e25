package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressBarTest {

  @Test
  void offATerminalTheFirstAndTheLastFiguresArePrintedAndLinesBetweenAreSpacedOut() {
    StringWriter text = new StringWriter();
    ProgressBar bar = new ProgressBar(new PrintWriter(text), false);
    bar.show("copy w", 10, 100, "rows");
    bar.show("copy w", 20, 100, "rows"); // within the few seconds: not printed
    bar.show(true, "copy w", 100, 100, "rows, done");
    bar.show(true, "copy w", 100, 100, "rows, done"); // the last figures once
    bar.finish();
    assertEquals(
        List.of("copy w: 10/100 rows", "copy w: 100/100 rows, done"),
        text.toString().lines().toList());
    assertFalse(text.toString().contains("\u001b"), "no escapes off a terminal");
  }

  @Test
  void aStepOfUnknownSizeIsShownInWordsWithoutACountBeforeIt() {
    StringWriter text = new StringWriter();
    ProgressBar bar = new ProgressBar(new PrintWriter(text), false);
    bar.show("diff w", "table messages (1 chunk compared)");
    bar.finish();
    assertEquals(
        List.of("diff w: table messages (1 chunk compared)"), text.toString().lines().toList());
  }

  @Test
  void onATerminalTheWordsAreRedrawnInPlace() {
    StringWriter text = new StringWriter();
    ProgressBar bar = new ProgressBar(new PrintWriter(text), true);
    bar.show("diff w", "table messages (2 chunks compared)");
    bar.finish();
    assertEquals(
        "\rdiff w table messages (2 chunks compared)\u001b[K" + System.lineSeparator(),
        text.toString());
  }
}
