package io.brook.broker.it;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Names a hostile or confused client may send where the broker expects a topic or group name:
 * path traversal, separators, control characters, and unicode that looks like a valid name.
 * Every one must be refused with INVALID_ARGUMENT before anything touches the disk (names become
 * directory names). The fuzz test draws from the same list.
 */
public final class HostileNames {
  private HostileNames() {}

  /** name → what it tries. */
  public static final Map<String, String> ALL = build();

  private static Map<String, String> build() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("", "empty");
    m.put(".", "the current directory");
    m.put("..", "the parent directory");
    m.put("../escape", "traversal out of topics/");
    m.put("../../../../tmp/escape", "deep traversal");
    m.put("a/b", "a slash: a nested directory");
    m.put("/abs", "an absolute path");
    m.put("a\\b", "a backslash (a separator on Windows)");
    m.put("..\\..\\escape", "traversal with backslashes");
    m.put("nul\u0000byte", "NUL: C strings end there");
    m.put("new\nline", "a newline (log and properties injection)");
    m.put("tab\tname", "a tab");
    m.put("with space", "a space");
    m.put("\u0074\u043e\u0070\u0069\u0063", "'topic' with a Cyrillic o (U+043E)");
    m.put("\u0430dmin", "'admin' with a Cyrillic a (U+0430)");
    m.put("\uff54\uff4f\uff50\uff49\uff43", "'topic' in fullwidth letters (U+FF54...)");
    m.put("to\u200dpic", "a zero-width joiner inside");
    m.put("to\u200bpic", "a zero-width space inside");
    m.put("\u202etxt.exe", "a right-to-left override");
    m.put("caf\u0065\u0301", "a combining accent");
    m.put("\u00e9t\u00e9", "accented letters");
    m.put("..\u2215escape", "a division slash (U+2215) that looks like '/'");
    m.put("\uff0e\uff0e", "fullwidth dots (U+FF0E)");
    m.put("\ud83d\ude00", "an emoji (a surrogate pair)");
    m.put("%2e%2e%2fescape", "URL-encoded traversal");
    m.put("x".repeat(250), "one character over the 249 limit");
    m.put("y".repeat(100_000), "a very long name");
    return m;
  }
}
