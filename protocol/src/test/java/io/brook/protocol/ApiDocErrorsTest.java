package io.brook.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.ErrorCode;
import io.grpc.Status;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/API.md §1.4 lists the error catalog for people: its two tables (status by reason, and every
 * code with its status and retriability) must say what errors.proto's options say.
 */
class ApiDocErrorsTest {
  private static final Pattern BACKTICKED = Pattern.compile("`([A-Z][A-Z_]*)`");
  private static final String PREFIX = "ERROR_CODE_";

  @Test
  void theErrorTablesAgreeWithTheCatalog() throws Exception {
    List<String> section = section();
    List<String> problems = new ArrayList<>();

    List<String[]> byStatus = table(section, "| Status | `ErrorInfo.reason` | When |");
    assertThat(byStatus).as("rows of the status table").hasSizeGreaterThan(10);
    for (String[] row : byStatus) {
      List<String> statuses = backticked(row[1]);
      for (ErrorCode code : codes(row[2])) {
        String status = ErrorCatalog.grpcStatus(code).name();
        if (!statuses.contains(status)) {
          problems.add("status table: " + name(code) + " under " + statuses + ", the catalog says " + status);
        }
      }
    }

    List<String[]> byCode = table(section, "| Code | In answers (per batch, partition or range) | As a whole-request status | Retriable |");
    Set<ErrorCode> listed = EnumSet.noneOf(ErrorCode.class);
    for (String[] row : byCode) {
      List<String> statuses = backticked(row[3]);
      boolean retriable = row[4].strip().startsWith("yes");
      for (ErrorCode code : codes(row[1])) {
        listed.add(code);
        Status.Code status = ErrorCatalog.grpcStatus(code);
        if (statuses.isEmpty() || !statuses.get(0).equals(status.name())) {
          problems.add("code table: " + name(code) + " has status " + statuses + ", the catalog says " + status);
        }
        if (retriable != ErrorCatalog.retriable(code)) {
          problems.add("code table: " + name(code) + " retriable " + retriable + ", the catalog says "
              + ErrorCatalog.retriable(code));
        }
      }
    }
    Set<ErrorCode> all = EnumSet.allOf(ErrorCode.class);
    all.removeAll(Set.of(ErrorCode.ERROR_CODE_UNSPECIFIED, ErrorCode.UNRECOGNIZED));
    all.removeAll(listed);
    if (!all.isEmpty()) {
      problems.add("code table lacks " + all);
    }
    assertThat(problems).as("docs/API.md §1.4 against errors.proto").isEmpty();
  }

  private static List<String> section() throws Exception {
    List<String> lines = Files.readAllLines(ApiDocTest.DOC);
    int from = lines.indexOf("### 1.4 Errors");
    int to = lines.indexOf("#### Reading `ErrorInfo` outside Java");
    assertThat(from).as("§1.4 in API.md").isNotNegative().isLessThan(to);
    return lines.subList(from, to);
  }

  /** The cells of each row of the table under this header line. */
  private static List<String[]> table(List<String> lines, String header) {
    int at = lines.indexOf(header);
    assertThat(at).as("table header %s", header).isNotNegative();
    List<String[]> rows = new ArrayList<>();
    for (int i = at + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
      rows.add(lines.get(i).split("\\|"));
    }
    return rows;
  }

  private static List<String> backticked(String cell) {
    List<String> out = new ArrayList<>();
    Matcher m = BACKTICKED.matcher(cell);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static List<ErrorCode> codes(String cell) {
    List<ErrorCode> out = new ArrayList<>();
    for (String word : backticked(cell)) {
      try {
        out.add(ErrorCode.valueOf(PREFIX + word));
      } catch (IllegalArgumentException notACode) {
        // a status or another name
      }
    }
    return out;
  }

  private static String name(ErrorCode code) {
    return code.name().substring(PREFIX.length());
  }
}
