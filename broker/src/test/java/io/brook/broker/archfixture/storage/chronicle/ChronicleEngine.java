package io.brook.broker.archfixture.storage.chronicle;

import net.openhft.chronicle.queue.ChronicleQueue;

/** The storage engine on Chronicle: keeps the rules. */
public class ChronicleEngine {
  ChronicleQueue queue;
}
