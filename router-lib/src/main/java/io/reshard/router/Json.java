package io.reshard.router;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/** The one Jackson mapper of the model's JSON documents (vschema, shard map). */
final class Json {
  /**
   * Thread-safe once configured. Duplicate keys are refused (a second vindex of the same name would
   * otherwise silently replace the first), and so is text after the document.
   */
  static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(SerializationFeature.INDENT_OUTPUT);

  private Json() {}

  /** A parse failure as one line: Jackson's message without its source excerpt, and where. */
  static String describe(JsonProcessingException e) {
    JsonLocation at = e.getLocation();
    return e.getOriginalMessage()
        + (at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr());
  }
}
