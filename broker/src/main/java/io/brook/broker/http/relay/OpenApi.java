package io.brook.broker.http.relay;

import com.google.gson.JsonElement;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** The relay's OpenAPI 3.1 document, a resource of the jar (openapi.json beside this class), read once. */
public final class OpenApi {
  public static final String RESOURCE = "openapi.json";

  private OpenApi() {}

  /** The document; a missing or malformed resource is a build mistake (OpenApiTest catches it first). */
  public static JsonElement load() {
    try (InputStream in = OpenApi.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the jar has no " + RESOURCE + " beside " + OpenApi.class.getName());
      }
      return RelayJson.parse(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
