package io.reshard.router;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** Reads and writes the shard map document described on {@link ShardMap}. Thread-safe. */
final class ShardMapJson {

  /** The document; every field required, unknown keys ignored (forward compatibility). */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Document(
      @JsonProperty("keyspace") String keyspace,
      @JsonProperty("version") Long version,
      @JsonProperty("vschema") JsonNode vschema,
      @JsonProperty("shards") List<ShardEntry> shards) {}

  /** One shard of the document. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record ShardEntry(
      @JsonProperty("name") String name,
      @JsonProperty("endpoint") String endpoint,
      @JsonProperty("epoch") Long epoch,
      @JsonProperty("serves_reads") Boolean servesReads,
      @JsonProperty("serves_writes") Boolean servesWrites) {}

  private ShardMapJson() {}

  static String write(ShardMap map) {
    List<ShardEntry> shards =
        map.shards().stream()
            .map(
                s ->
                    new ShardEntry(
                        s.name(), s.endpoint(), s.epoch(), s.servesReads(), s.servesWrites()))
            .toList();
    Document doc = new Document(map.keyspace(), map.version(), map.vschema().toJson(), shards);
    try {
      return Json.MAPPER.writeValueAsString(doc);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + map + " as JSON", e);
    }
  }

  static ShardMap read(String json) {
    Document doc;
    try {
      doc = Json.MAPPER.readValue(json, Document.class);
    } catch (JsonProcessingException e) {
      throw new ShardMapException(
          "shard map document", List.of("not a shard map document: " + Json.describe(e)), e);
    }
    if (doc == null) {
      throw new ShardMapException("shard map document", List.of("the document is empty"), null);
    }
    String subject = "shard map " + doc.keyspace() + " v" + doc.version();
    List<String> problems = new ArrayList<>();
    require(doc.keyspace(), "keyspace", "the document", problems);
    require(doc.version(), "version", "the document", problems);
    require(doc.vschema(), "vschema", "the document", problems);
    require(doc.shards(), "shards", "the document", problems);
    List<Shard> shards = new ArrayList<>();
    for (ShardEntry e : doc.shards() == null ? List.<ShardEntry>of() : doc.shards()) {
      Shard s = shard(e, problems);
      if (s != null) {
        shards.add(s);
      }
    }
    if (!problems.isEmpty()) {
      throw new ShardMapException(subject, problems, null);
    }
    return ShardMap.of(doc.keyspace(), doc.version(), VSchema.fromJson(doc.vschema()), shards);
  }

  private static Shard shard(ShardEntry e, List<String> problems) {
    if (e == null) {
      problems.add("a shard entry is null");
      return null;
    }
    String where = "shard " + (e.name() == null ? "without a name" : e.name());
    int before = problems.size();
    require(e.name(), "name", where, problems);
    require(e.endpoint(), "endpoint", where, problems);
    require(e.epoch(), "epoch", where, problems);
    require(e.servesReads(), "serves_reads", where, problems);
    require(e.servesWrites(), "serves_writes", where, problems);
    KeyRange range = null;
    if (e.name() != null) {
      try {
        range = KeyRange.parse(e.name());
      } catch (IllegalArgumentException ex) {
        problems.add(where + ": " + ex.getMessage());
      }
    }
    if (problems.size() > before) {
      return null;
    }
    return new Shard(range, e.endpoint(), e.epoch(), e.servesReads(), e.servesWrites());
  }

  private static void require(Object value, String key, String where, List<String> problems) {
    if (value == null || (value instanceof JsonNode n && n.isNull())) {
      problems.add(where + " has no \"" + key + "\"");
    }
  }
}
