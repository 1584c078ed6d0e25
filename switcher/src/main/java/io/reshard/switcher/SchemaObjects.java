package io.reshard.switcher;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.reshard.core.schema.SchemaObject;
import java.util.List;

/**
 * What a workflow's record keeps about the keyspace's objects besides tables (DESIGN 4.11): the
 * operator's trigger choice and, with {@link TriggerMode#FOLLOW_WRITES}, every moved table's
 * trigger as the source defined it at create (the switch creates them from here on the side that
 * takes writes, so a crash or a reverse never depends on reading them from a server that has just
 * dropped them); the views and routines create carried to the targets; and the warning about those
 * it did not carry, which {@code workflow status} shows. Immutable.
 *
 * @param triggers the trigger choice
 * @param triggerDefinitions the moved tables' triggers, in creation order; empty unless {@code
 *     follow-writes}
 * @param carried the views, procedures and functions created on the targets, e.g. {@code view
 *     recent}
 * @param notCarried one line per view or routine that uses a table not moved, naming the tables: it
 *     is not on the targets
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SchemaObjects(
    TriggerMode triggers,
    @JsonProperty("trigger_definitions") List<SchemaObject> triggerDefinitions,
    List<String> carried,
    @JsonProperty("not_carried") List<String> notCarried) {

  /** What a record written before this existed holds: triggers refused, nothing carried. */
  public static final SchemaObjects NONE =
      new SchemaObjects(TriggerMode.REFUSE, List.of(), List.of(), List.of());

  /** Copies the lists; nulls become the defaults. */
  public SchemaObjects {
    triggers = triggers == null ? TriggerMode.REFUSE : triggers;
    triggerDefinitions = triggerDefinitions == null ? List.of() : List.copyOf(triggerDefinitions);
    carried = carried == null ? List.of() : List.copyOf(carried);
    notCarried = notCarried == null ? List.of() : List.copyOf(notCarried);
  }

  /**
   * The warning create prints and status keeps, or null if every table, view and routine was
   * carried: a sentence, then one line per table or object.
   */
  public String warning() {
    if (notCarried.isEmpty()) {
      return null;
    }
    return "not created on the targets (a table in no vschema table is not moved, and a view or"
        + " routine that uses one is not carried; move the table by adding it to the vschema, or"
        + " create what the application needs where it needs it): "
        + String.join("; ", notCarried);
  }
}
