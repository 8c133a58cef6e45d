package dev.rlx.bench;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.rlx.cpu.blas.OpenBlas;
import dev.rlx.hw.HwSnapshot;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;
import org.openjdk.jmh.results.RunResult;

/**
 * The CPU suite's report: one row per case and thread count with RLX's and the peer's rate (GFLOP/s, or GB/s
 * of memory read and written) and the ratio RLX / peer (above 1: RLX is faster), printed as a table and
 * written as JSON and a bar chart of the ratios ({@code target/cpu-suite.json}, {@code .png}).
 */
final class CpuSuiteReport {
    private CpuSuiteReport() {}

    /** One measured row. Times are JMH's average milliseconds per call. */
    record Row(String id, int threads, CpuSuiteCase.Info info, double rlxMs, double peerMs) {
        double rlxRate() {
            return info.work() / (rlxMs / 1e3);
        }

        double peerRate() {
            return info.work() / (peerMs / 1e3);
        }

        double ratio() {
            return peerMs / rlxMs;
        }
    }

    /** The suite's rows among {@code results}, in run order; empty when the suite did not run. */
    static List<Row> rows(Collection<RunResult> results) {
        Map<String, Map<String, Double>> byCase = new LinkedHashMap<>(); // "id|threads" -> side -> ms
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            if (!name.contains(CpuSuiteBenchmark.class.getSimpleName())) {
                continue;
            }
            String key = r.getParams().getParam("op") + "|" + r.getParams().getParam("threads");
            byCase.computeIfAbsent(key, k -> new LinkedHashMap<>()).put(BenchMain.side(r), r.getPrimaryResult().getScore());
        }
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, Map<String, Double>> e : byCase.entrySet()) {
            Double rlx = e.getValue().get(BenchMain.RLX);
            Double peer = e.getValue().get("peer");
            if (rlx == null || peer == null) {
                continue;
            }
            String[] key = e.getKey().split("\\|");
            rows.add(new Row(key[0], Integer.parseInt(key[1]), CpuSuiteCases.info(key[0]), rlx, peer));
        }
        return rows;
    }

    /** What the rates were measured on: CPU, JVM, OpenBLAS's core choice and the variables that steer it. */
    static String environment() {
        HwSnapshot hw = HwSnapshot.capture();
        String core = OpenBlas.load().map(OpenBlas::coreName).orElse("not found");
        return String.format(Locale.ROOT, "%s, %d cores / %d CPUs; Java %s; OpenBLAS core %s (OPENBLAS_CORETYPE=%s, "
                        + "OPENBLAS_L2_SIZE=%s)", hw.cpuModel(), hw.physicalCores(), hw.logicalCpus(),
                Runtime.version(), core, System.getenv("OPENBLAS_CORETYPE"), System.getenv("OPENBLAS_L2_SIZE"));
    }

    static String table(List<Row> rows) {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%n%-22s %-20s %7s %12s %12s  %-16s %7s%n",
                "operation", "shape", "threads", "RLX", "peer", "peer is", "RLX/peer"));
        for (Row r : rows) {
            String unit = r.info().unit() == CpuSuiteCase.Unit.GFLOP ? "GFLOP/s" : "GB/s";
            out.append(String.format(Locale.ROOT, "%-22s %-20s %7d %12s %12s  %-16s %7.2f%n", r.info().op(),
                    r.info().shape(), r.threads(), rate(r.rlxRate(), unit), rate(r.peerRate(), unit), r.info().peer(),
                    r.ratio()));
        }
        return out.toString();
    }

    private static String rate(double v, String unit) {
        return String.format(Locale.ROOT, "%.1f %s", v, unit.equals("GB/s") ? "GB/s" : "GF/s");
    }

    static void writeJson(List<Row> rows, String environment, Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (JsonGenerator g = new JsonFactory().createGenerator(file.toFile(), JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("environment", environment);
            g.writeArrayFieldStart("rows");
            for (Row r : rows) {
                g.writeStartObject();
                g.writeStringField("case", r.id());
                g.writeStringField("operation", r.info().op());
                g.writeStringField("shape", r.info().shape());
                g.writeNumberField("threads", r.threads());
                g.writeStringField("unit", r.info().unit() == CpuSuiteCase.Unit.GFLOP ? "GFLOP/s" : "GB/s");
                g.writeNumberField("rlx_ms", r.rlxMs());
                g.writeNumberField("peer_ms", r.peerMs());
                g.writeNumberField("rlx_rate", r.rlxRate());
                g.writeNumberField("peer_rate", r.peerRate());
                g.writeStringField("peer", r.info().peer());
                g.writeNumberField("ratio", r.ratio());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    /** A horizontal bar per row: RLX / peer, on a log scale around 1 (the peer). */
    static void writeChart(List<Row> rows, String environment, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        int left = 330;
        int barH = 18;
        int top = 50;
        int width = 1000;
        int height = top + rows.size() * (barH + 6) + 50;
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString("RLX CPU backend / peer (same run; above 1: RLX faster)", 10, 20);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        g.drawString(environment, 10, 36);
        // log2 scale from 1/8 to 8
        int plotW = width - left - 60;
        double min = -3;
        double max = 3;
        java.util.function.DoubleToIntFunction x = v -> left + (int) Math.round(
                (Math.max(min, Math.min(max, Math.log(v) / Math.log(2))) - min) / (max - min) * plotW);
        g.setFont(new Font(Font.MONOSPACED, Font.PLAIN, 11));
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            int y = top + i * (barH + 6);
            g.setColor(Color.BLACK);
            g.drawString(String.format(Locale.ROOT, "%-20s %-19s t%d", r.info().op(), r.info().shape(), r.threads()),
                    10, y + barH - 5);
            int x0 = x.applyAsInt(1);
            int x1 = x.applyAsInt(r.ratio());
            g.setColor(r.ratio() >= 1 ? new Color(0x2E7D32) : r.ratio() >= 0.8 ? new Color(0xF9A825) : new Color(0xC62828));
            g.fillRect(Math.min(x0, x1), y, Math.max(1, Math.abs(x1 - x0)), barH);
            g.setColor(Color.BLACK);
            g.drawString(String.format(Locale.ROOT, "%.2f", r.ratio()), Math.max(x0, x1) + 4, y + barH - 5);
        }
        g.setColor(Color.DARK_GRAY);
        g.setStroke(new BasicStroke(1f));
        int axisY = top + rows.size() * (barH + 6) + 5;
        for (double t : new double[] {0.125, 0.25, 0.5, 1, 2, 4, 8}) {
            int xt = x.applyAsInt(t);
            g.drawLine(xt, top - 5, xt, axisY);
            g.drawString(t < 1 ? "1/" + (int) Math.round(1 / t) : String.valueOf((int) t), xt - 8, axisY + 15);
        }
        g.dispose();
        Files.createDirectories(file.toAbsolutePath().getParent());
        ImageIO.write(img, "png", file.toFile());
    }

    /** Prints and writes the report when {@code results} hold the suite; returns whether they did. */
    static boolean report(Collection<RunResult> results) throws IOException {
        List<Row> rows = rows(results);
        if (rows.isEmpty()) {
            return false;
        }
        String env = environment();
        System.out.println();
        System.out.println("CPU suite on " + env);
        System.out.print(table(rows));
        Path json = Path.of("target", "cpu-suite.json");
        Path png = Path.of("target", "cpu-suite.png");
        writeJson(rows, env, json);
        writeChart(rows, env, png);
        System.out.println("wrote " + json.toAbsolutePath() + " and " + png.toAbsolutePath());
        return true;
    }
}
