package io.brook.broker.security;

import io.brook.broker.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A file of one entry per line (auth.tokens.file, auth.permissions.file); blank lines and # comments skipped. */
final class LineFile {
  /**
   * @param where the setting, file and line number, for messages: "auth.tokens.file /etc/tokens:3"
   * @param text the line without surrounding white space
   */
  record Line(String where, String text) {}

  private LineFile() {}

  /** The entries of the file the setting {@code key} names; a missing or unreadable file is a ConfigException. */
  static List<Line> read(String key, Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new ConfigException(key + ": " + file + " does not exist");
    } catch (IOException e) {
      throw new ConfigException(key + ": cannot read " + file + " (" + e.getMessage() + ")");
    }
    List<Line> entries = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (!line.isEmpty() && !line.startsWith("#")) {
        entries.add(new Line(key + " " + file + ":" + (i + 1), line));
      }
    }
    return entries;
  }
}
