package io.brook.broker.it.fuzz;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import java.util.Random;

/**
 * Random messages of any protobuf type, built from its descriptor alone: every field set or not,
 * repeated and map fields with 0 to a few dozen entries, oneofs with one member or none, enums with
 * known and unknown numbers, nested messages to a bounded depth. Bounded in elements and bytes, so
 * a message stays well under a few MB.
 */
final class MessageGenerator {
  private static final int MAX_DEPTH = 5;
  private static final int MAX_ELEMENTS = 400;
  private static final int MAX_BYTES = 1_500_000;

  private final Random random;
  private final FuzzValues values;
  private int elementsLeft;
  private int bytesLeft;

  MessageGenerator(Random random) {
    this.random = random;
    this.values = new FuzzValues(random);
  }

  DynamicMessage message(Descriptor type) {
    elementsLeft = MAX_ELEMENTS;
    bytesLeft = MAX_BYTES;
    return build(type, 0);
  }

  private DynamicMessage build(Descriptor type, int depth) {
    DynamicMessage.Builder b = DynamicMessage.newBuilder(type);
    for (FieldDescriptor f : type.getFields()) {
      if (random.nextInt(10) < 3) {
        continue; // left unset: the proto3 default, or absent for optional fields
      }
      if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && depth >= MAX_DEPTH) {
        continue;
      }
      if (f.isRepeated()) {
        int n = repeatCount();
        for (int i = 0; i < n && elementsLeft > 0; i++) {
          elementsLeft--;
          b.addRepeatedField(f, value(f, depth));
        }
      } else {
        b.setField(f, value(f, depth)); // in a oneof, a later member replaces an earlier one
      }
    }
    return b.build();
  }

  private int repeatCount() {
    return switch (random.nextInt(10)) {
      case 0, 1, 2, 3 -> 0;
      case 4, 5, 6 -> 1;
      case 7, 8 -> 2 + random.nextInt(4);
      default -> random.nextInt(60);
    };
  }

  private Object value(FieldDescriptor f, int depth) {
    return switch (f.getJavaType()) {
      case INT -> values.anyInt();
      case LONG -> values.anyLong();
      case BOOLEAN -> random.nextBoolean();
      case FLOAT -> (float) random.nextGaussian();
      case DOUBLE -> random.nextInt(10) == 0 ? Double.NaN : random.nextGaussian() * 1e6;
      case STRING -> values.anyString();
      case BYTE_STRING -> bytes();
      case ENUM -> enumValue(f.getEnumType());
      case MESSAGE -> build(f.getMessageType(), depth + 1);
    };
  }

  private Object bytes() {
    com.google.protobuf.ByteString b = values.anyBytes();
    if (b.size() > bytesLeft) {
      return com.google.protobuf.ByteString.EMPTY;
    }
    bytesLeft -= b.size();
    return b;
  }

  /** Known values mostly; an unknown number sometimes (proto3 enums are open). */
  private Object enumValue(EnumDescriptor e) {
    if (random.nextInt(5) == 0) {
      return e.findValueByNumberCreatingIfUnknown(values.anyInt());
    }
    return e.getValues().get(random.nextInt(e.getValues().size()));
  }
}
