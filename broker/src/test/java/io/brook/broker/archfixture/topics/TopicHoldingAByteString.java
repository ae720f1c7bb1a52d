package io.brook.broker.archfixture.topics;

import com.google.protobuf.ByteString;

/** Breaks noProtocolTypeBelowTheAdapters: a protobuf type in the domain. */
public class TopicHoldingAByteString {
  ByteString bytes;
}
