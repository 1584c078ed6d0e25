package io.reshard.demo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The demo's report as one HTML page ({@code results/demo.html}): the checks, the figures, and two
 * charts drawn here as inline SVG (nothing from the network): insert latency over the split with
 * the copy and the switches marked, and the busiest shard's share by shard count.
 */
final class DemoHtml {
  private static final int W = 860;
  private static final int H = 260;
  private static final int LEFT = 56;
  private static final int BOTTOM = 34;
  private static final long BIN_NANOS = 250_000_000L;

  private DemoHtml() {}

  /** The page. */
  static String page(
      DemoChecks checks,
      Map<String, Object> figures,
      List<long[]> insertSamples,
      Map<String, Long> marks,
      List<Map<String, Object>> skew) {
    StringBuilder b = new StringBuilder();
    b.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<title>reshard demo</title><style>")
        .append("body{font:14px/1.45 system-ui,sans-serif;margin:1.5em 2em;color:#1d232a}")
        .append("table{border-collapse:collapse}td,th{padding:.2em .9em .2em 0;text-align:left}")
        .append(".PASS{color:#1a7f37;font-weight:600}.FAIL{color:#c62828;font-weight:600}")
        .append("svg{background:#f6f8fb;margin:.4em 0}.lesson{max-width:60em}")
        .append("</style></head><body>\n");
    b.append("<h1>reshard demo: ")
        .append(checks.passed() ? "passed" : "FAILED")
        .append("</h1>\n<h2>Checks</h2>\n<table><tr><th>check</th><th>expected</th>")
        .append("<th>measured</th><th>result</th></tr>\n");
    for (DemoChecks.Check c : checks.all()) {
      String r = c.pass() ? "PASS" : "FAIL";
      b.append("<tr><td>")
          .append(esc(c.name()))
          .append("</td><td>")
          .append(esc(c.expected()))
          .append("</td><td>")
          .append(esc(c.measured()))
          .append("</td><td class=\"")
          .append(r)
          .append("\">")
          .append(r)
          .append("</td></tr>\n");
    }
    b.append("</table>\n");
    for (DemoChecks.Check c : checks.all()) {
      if (c.lesson() != null) {
        b.append("<p class=\"lesson\">").append(esc(c.lesson())).append("</p>\n");
      }
    }
    b.append("<h2>Figures</h2>\n<table>\n");
    figures.forEach(
        (k, v) ->
            b.append("<tr><td>")
                .append(esc(k))
                .append("</td><td>")
                .append(esc(String.valueOf(v)))
                .append("</td></tr>\n"));
    b.append("</table>\n<h2>Insert latency over the split</h2>\n")
        .append(latencyChart(insertSamples, marks))
        .append("\n<h2>Busiest shard's share of messages, by shard count</h2>\n")
        .append(skewChart(skew))
        .append("\n</body></html>\n");
    return b.toString();
  }

  /**
   * The median and the slowest insert of every 250 ms, over the run, with a vertical line at every
   * mark. The scale tops at the 99th percentile of the bins' slowest, so one stall does not flatten
   * the rest; bins above it are drawn at the top and say their value.
   */
  static String latencyChart(List<long[]> samples, Map<String, Long> marks) {
    List<long[]> all;
    synchronized (samples) {
      all = new ArrayList<>(samples);
    }
    StringBuilder s = svgStart("insert latency, ms, by second of the run");
    if (all.isEmpty()) {
      return s.append(text(W / 2, H / 2, "no inserts", "middle")).append("</svg>").toString();
    }
    long end = all.stream().mapToLong(x -> x[0]).max().orElse(1);
    for (long m : marks.values()) {
      end = Math.max(end, m);
    }
    int bins = (int) (end / BIN_NANOS) + 1;
    List<List<Long>> byBin = new ArrayList<>();
    for (int i = 0; i < bins; i++) {
      byBin.add(new ArrayList<>());
    }
    for (long[] x : all) {
      byBin.get((int) (x[0] / BIN_NANOS)).add(x[1]);
    }
    double[] p50 = new double[bins];
    double[] max = new double[bins];
    List<Double> maxes = new ArrayList<>();
    for (int i = 0; i < bins; i++) {
      List<Long> l = byBin.get(i);
      if (l.isEmpty()) {
        p50[i] = max[i] = Double.NaN;
        continue;
      }
      Collections.sort(l);
      p50[i] = l.get(l.size() / 2) / 1e6;
      max[i] = l.get(l.size() - 1) / 1e6;
      maxes.add(max[i]);
    }
    Collections.sort(maxes);
    double top = Math.max(1, maxes.get((int) Math.floor(0.99 * (maxes.size() - 1))) * 1.1);
    double seconds = end / 1e9;
    axes(s, seconds, top);
    for (Map.Entry<String, Long> m : marks.entrySet()) {
      double x = x(m.getValue() / 1e9, seconds);
      s.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c62828\""
                  + " stroke-dasharray=\"4 3\"/>",
              x,
              x,
              H - BOTTOM));
      s.append(text(x + 3, 20 + 12 * (indexOf(marks, m.getKey()) % 4), m.getKey(), "start"));
    }
    s.append(polyline(max, seconds, top, "#f0a868"));
    s.append(polyline(p50, seconds, top, "#2c5e9e"));
    for (int i = 0; i < bins; i++) {
      if (max[i] > top) {
        double x = x((i + 0.5) * BIN_NANOS / 1e9, seconds);
        s.append(text(x, 12, String.format(Locale.ROOT, "%.0f ms", max[i]), "middle"));
      }
    }
    s.append(text(W - 10, H - 4, "blue: median of each 250 ms; orange: slowest", "end"));
    return s.append("</svg>").toString();
  }

  /** Bars: the busiest shard's share at 2..128 shards, the even share as a tick on each. */
  static String skewChart(List<Map<String, Object>> skew) {
    StringBuilder s = svgStart("busiest shard's share by shard count");
    int n = skew.size();
    double slot = (W - LEFT - 10) / (double) n;
    double top =
        skew.stream()
                .mapToDouble(r -> ((Number) r.get("busiest_share")).doubleValue())
                .max()
                .orElse(1)
            * 1.15;
    s.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#889\"/>",
            LEFT,
            H - BOTTOM,
            W - 10,
            H - BOTTOM));
    for (int i = 0; i < n; i++) {
      Map<String, Object> row = skew.get(i);
      int shards = ((Number) row.get("shards")).intValue();
      double share = ((Number) row.get("busiest_share")).doubleValue();
      boolean bucketed = row.containsKey("busiest_channel_buckets");
      double x = LEFT + i * slot + slot * 0.2;
      double h = share / top * (H - BOTTOM - 24);
      double y = H - BOTTOM - h;
      s.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>",
              x,
              y,
              slot * 0.6,
              h,
              bucketed ? "#6aa56a" : "#3b7dd8"));
      double even = H - BOTTOM - (1.0 / shards) / top * (H - BOTTOM - 24);
      s.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1d232a\""
                  + " stroke-width=\"2\"/>",
              x - 3,
              even,
              x + slot * 0.6 + 3,
              even));
      s.append(
          text(x + slot * 0.3, y - 4, String.format(Locale.ROOT, "%.1f%%", share * 100), "middle"));
      s.append(
          text(
              x + slot * 0.3,
              H - BOTTOM + 14,
              shards + (bucketed ? " (16 buckets)" : ""),
              "middle"));
    }
    s.append(
        text(
            W - 10,
            H - 4,
            "shards; black tick: an even share (1/n); green: the busiest channel spread over 16"
                + " sub-keys",
            "end"));
    return s.append("</svg>").toString();
  }

  private static StringBuilder svgStart(String label) {
    return new StringBuilder(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0"
                + " %d %d\" role=\"img\" aria-label=\"%s\" font-size=\"11\""
                + " font-family=\"sans-serif\">",
            W,
            H,
            W,
            H,
            esc(label)));
  }

  private static void axes(StringBuilder s, double seconds, double top) {
    s.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#889\"/>"
                + "<line x1=\"%d\" y1=\"10\" x2=\"%d\" y2=\"%d\" stroke=\"#889\"/>",
            LEFT,
            H - BOTTOM,
            W - 10,
            H - BOTTOM,
            LEFT,
            LEFT,
            H - BOTTOM));
    for (int i = 0; i <= 4; i++) {
      double v = top * i / 4;
      double y = y(v, top);
      s.append(text(LEFT - 4, y + 4, String.format(Locale.ROOT, "%.1f", v), "end"));
    }
    int step = Math.max(1, (int) Math.ceil(seconds / 10));
    for (int t = 0; t <= seconds; t += step) {
      s.append(text(x(t, seconds), H - BOTTOM + 14, t + " s", "middle"));
    }
  }

  private static String polyline(double[] values, double seconds, double top, String colour) {
    StringBuilder p = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      if (!Double.isNaN(values[i])) {
        p.append(
            String.format(
                Locale.ROOT,
                "%.1f,%.1f ",
                x((i + 0.5) * BIN_NANOS / 1e9, seconds),
                y(Math.min(values[i], top), top)));
      }
    }
    return "<polyline fill=\"none\" stroke=\""
        + colour
        + "\" stroke-width=\"1.5\" points=\""
        + p.toString().strip()
        + "\"/>";
  }

  private static double x(double second, double seconds) {
    return LEFT + (second / Math.max(seconds, 1e-9)) * (W - LEFT - 10);
  }

  private static double y(double value, double top) {
    return (H - BOTTOM) - (value / top) * (H - BOTTOM - 24);
  }

  private static int indexOf(Map<String, Long> marks, String key) {
    return new ArrayList<>(marks.keySet()).indexOf(key);
  }

  private static String text(double x, double y, String t, String anchor) {
    return String.format(
        Locale.ROOT,
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>",
        x,
        y,
        anchor,
        esc(t));
  }

  static String esc(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
