package dev.rlx.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table: columns padded to their widest cell, two spaces apart, no trailing blanks. */
final class TextTable {
    private final List<List<String>> rows = new ArrayList<>();

    TextTable(String... header) {
        rows.add(List.of(header));
    }

    TextTable row(String... cells) {
        if (cells.length != rows.get(0).size()) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, header " + rows.get(0).size());
        }
        rows.add(List.of(cells));
        return this;
    }

    void print(PrintWriter out) {
        int[] width = new int[rows.get(0).size()];
        for (List<String> r : rows) {
            for (int c = 0; c < width.length; c++) {
                width[c] = Math.max(width[c], r.get(c).length());
            }
        }
        for (List<String> r : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < width.length; c++) {
                line.append(r.get(c)).append(" ".repeat(c + 1 < width.length ? width[c] - r.get(c).length() + 2 : 0));
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
