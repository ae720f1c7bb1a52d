package io.brook.broker.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Columns padded to their widest cell, two spaces apart; a cell of null prints as "-". */
final class Table {
  private final List<String[]> rows = new ArrayList<>();
  private final int columns;

  Table(String... header) {
    columns = header.length;
    rows.add(header);
  }

  Table row(Object... cells) {
    if (cells.length != columns) {
      throw new IllegalArgumentException("expected " + columns + " cells, got " + cells.length);
    }
    String[] r = new String[columns];
    for (int i = 0; i < columns; i++) {
      r[i] = cells[i] == null || cells[i].toString().isEmpty() ? "-" : cells[i].toString();
    }
    rows.add(r);
    return this;
  }

  void print(PrintStream out) {
    int[] width = new int[columns];
    for (String[] r : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    StringBuilder line = new StringBuilder();
    for (String[] r : rows) {
      line.setLength(0);
      for (int i = 0; i < columns; i++) {
        line.append(r[i]);
        if (i < columns - 1) {
          line.append(" ".repeat(width[i] - r[i].length() + 2));
        }
      }
      out.println(line);
    }
  }
}
