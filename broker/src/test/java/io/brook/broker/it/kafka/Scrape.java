package io.brook.broker.it.kafka;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Reads labelled metrics and /stats of a plaintext, unauthenticated broker. */
final class Scrape {
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private Scrape() {}

  static String get(int httpPort, String path) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  /** The value of the series {@code series} (name and labels exactly as exposed), or 0 when absent. */
  static double metric(int httpPort, String series) throws IOException, InterruptedException {
    return get(httpPort, "/metrics").lines().filter(l -> l.startsWith(series + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1).trim())).findFirst().orElse(0);
  }
}
