package io.brook.broker.archfixture.topics;

import net.openhft.chronicle.queue.ChronicleQueue;

/** Breaks chronicleOnlyInStorage: Chronicle outside the storage engine. */
public class TopicOnChronicle {
  ChronicleQueue queue;
}
