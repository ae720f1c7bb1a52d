package io.brook.broker.cli;

import io.brook.broker.storage.dump.DumpListener;
import io.brook.broker.storage.dump.DumpSummary;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Prints what {@code brook dump} finds, as text or as JSON lines. */
interface DumpPrinter extends DumpListener {
  void partition(Path dir);

  void summary(DumpSummary summary);

  /** The key as text when it is UTF-8 without control characters, else null (print it in hex). */
  static String printable(byte[] key) {
    try {
      String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(key)).toString();
      return s.chars().anyMatch(Character::isISOControl) ? null : s;
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder(b.length * 2);
    for (byte x : b) {
      sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
    }
    return sb.toString();
  }
}
