package io.reshard.switcher;

import io.reshard.core.schema.SchemaObject;
import io.reshard.core.schema.SchemaObjectReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What {@link CreatePhase} does with the keyspace's objects besides tables (DESIGN 4.11): reads the
 * source's views, procedures and functions, carries to the targets those that use only moved tables
 * (or views carried themselves), with their definer and SQL security as the source has them, and
 * lists the others in a warning; with {@code --triggers=follow-writes} it reads every moved table's
 * triggers, which the record keeps for the switch ({@link TriggerPlacement}).
 *
 * <p>Which tables a definition uses is read from its identifiers ({@link
 * SchemaObjectReader#tablesUsed}); a word that names a table counts even where it names a column,
 * so an object may be left out (and listed) that would have worked, never the other way. Refused
 * (added to the create's reasons, nothing written): a carried object or trigger whose definer is no
 * user of a target (it would fail there when used), and a trigger that uses a table not moved (on
 * the targets that table is not there). Not thread-safe: one create's.
 */
final class CarriedObjects {
  private final WorkflowSpec spec;
  private final List<SchemaObject> triggers = new ArrayList<>();
  private final List<SchemaObject> carried = new ArrayList<>();
  private final List<String> notCarried = new ArrayList<>();
  private final Set<String> listedViews = new TreeSet<>();

  CarriedObjects(WorkflowSpec spec) {
    this.spec = spec;
  }

  /**
   * Reads the source's objects and decides what is carried; adds every reason to refuse to {@code
   * reasons}. {@code source} is a connection to the (one) source's server.
   */
  void check(Connection source, String where, RefusalReasons reasons) throws SQLException {
    String ks = spec.keyspace();
    Map<String, String> tables = SchemaObjectReader.tables(source, ks);
    Set<String> others = SchemaObjectReader.otherDatabases(source, ks);
    Set<String> moved = new TreeSet<>();
    spec.tables().forEach(t -> moved.add(t.toLowerCase(Locale.ROOT)));
    // a table the vschema does not name is neither copied nor streamed: after complete it is on
    // the retired sources only, which the operator must know before anything is moved
    tables.forEach(
        (table, type) -> {
          if (type.equals("BASE TABLE") && !moved.contains(table)) {
            notCarried.add(
                "table " + table + " is in no vschema table: it stays on the sources only");
          }
        });
    Set<String> carriedViews = new TreeSet<>();
    decide(SchemaObjectReader.views(source, ks), tables, moved, others, carriedViews);
    decide(SchemaObjectReader.routines(source, ks), tables, moved, others, carriedViews);
    if (spec.triggers() == TriggerMode.FOLLOW_WRITES) {
      for (String table : spec.tables()) {
        for (SchemaObject t : SchemaObjectReader.triggers(source, ks, table)) {
          List<String> missing = missing(t, tables, moved, others, carriedViews);
          if (!missing.isEmpty()) {
            reasons.add(
                t.describe()
                    + " uses "
                    + String.join(", ", missing)
                    + ", which the workflow does not move: on the targets it would fail, the"
                    + " table not being there; move those tables too (add them to the vschema), or"
                    + " drop the trigger for the time of the workflow",
                where);
          }
          triggers.add(t);
        }
      }
    }
  }

  /**
   * Adds a reason for every carried object and trigger whose definer is no user of the target
   * {@code c} reaches.
   */
  void checkDefiners(Connection c, String where, RefusalReasons reasons) throws SQLException {
    List<SchemaObject> all = new ArrayList<>(carried);
    all.addAll(triggers);
    for (SchemaObject o : all) {
      if (!SchemaObjectReader.definerExists(c, o)) {
        reasons.add(
            o.describe()
                + " has definer "
                + o.definer()
                + ", a user that does not exist on the target (the "
                + o.kind().word()
                + " would fail there when used): create that user on the targets with the grants"
                + " it has on the source, or give the "
                + o.kind().word()
                + " a definer that exists there",
            where);
      }
    }
  }

  /**
   * Creates every carried object on the target {@code c} reaches (those there already are kept), a
   * view only once the views it uses are there.
   */
  void createOn(Connection c) throws SQLException {
    for (SchemaObject o : carried) {
      SchemaObjectDdl.create(c, spec.keyspace(), o);
    }
  }

  /** What the record keeps: the trigger choice, the triggers, what was carried and what not. */
  SchemaObjects record() {
    return new SchemaObjects(
        spec.triggers(),
        triggers.stream().map(CarriedObjects::stored).toList(),
        carried.stream().map(SchemaObject::describe).toList(),
        notCarried);
  }

  /**
   * Decides each of {@code objects}: carried if all it uses is moved or a carried view, else
   * listed. An object that uses views is decided after them (a few passes; views that use each
   * other are listed), so {@link #carried} is in an order the targets can create.
   */
  private void decide(
      List<SchemaObject> objects,
      Map<String, String> tables,
      Set<String> moved,
      Set<String> others,
      Set<String> carriedViews) {
    List<SchemaObject> open = new ArrayList<>(objects);
    boolean progress = true;
    while (!open.isEmpty() && progress) {
      progress = false;
      for (var it = open.iterator(); it.hasNext(); ) {
        SchemaObject o = it.next();
        List<String> missing = missing(o, tables, moved, others, carriedViews);
        if (missing.isEmpty() && waitsForView(o, tables, open)) {
          continue;
        }
        if (missing.isEmpty()) {
          carried.add(o);
          if (o.kind() == SchemaObject.Kind.VIEW) {
            carriedViews.add(o.name().toLowerCase(Locale.ROOT));
          }
        } else {
          list(o, String.join(", ", missing));
        }
        it.remove();
        progress = true;
      }
    }
    open.forEach(o -> list(o, "views that use each other"));
  }

  private void list(SchemaObject o, String uses) {
    notCarried.add(o.describe() + " uses " + uses);
    if (o.kind() == SchemaObject.Kind.VIEW) {
      listedViews.add(o.name().toLowerCase(Locale.ROOT));
    }
  }

  /**
   * What {@code o} uses that will not be on the targets: tables not moved, tables of other
   * databases, and views decided not to be carried. A view not decided yet is not missing ({@link
   * #waitsForView}).
   */
  private List<String> missing(
      SchemaObject o,
      Map<String, String> tables,
      Set<String> moved,
      Set<String> others,
      Set<String> carriedViews) {
    Set<String> missing = new LinkedHashSet<>();
    for (String t : SchemaObjectReader.tablesUsed(o.body(), tables.keySet())) {
      boolean view = "VIEW".equals(tables.get(t));
      if (view && t.equalsIgnoreCase(o.name())) {
        continue; // a view's own name
      }
      if (!view && !moved.contains(t)) {
        missing.add("table " + t);
      } else if (view && !carriedViews.contains(t) && listedViews.contains(t)) {
        missing.add("view " + t + " (not carried)");
      }
    }
    for (String t : SchemaObjectReader.otherDatabaseTablesUsed(o.body(), others)) {
      missing.add("table " + t + " of another database");
    }
    return new ArrayList<>(missing);
  }

  /** True if {@code o} uses a view among {@code open}, not decided yet. */
  private static boolean waitsForView(
      SchemaObject o, Map<String, String> tables, List<SchemaObject> open) {
    Set<String> undecided = new TreeSet<>();
    open.stream()
        .filter(x -> x.kind() == SchemaObject.Kind.VIEW && x != o)
        .forEach(x -> undecided.add(x.name().toLowerCase(Locale.ROOT)));
    for (String t : SchemaObjectReader.tablesUsed(o.body(), tables.keySet())) {
      if (undecided.contains(t)) {
        return true;
      }
    }
    return false;
  }

  private static SchemaObject stored(SchemaObject t) {
    return new SchemaObject(
        t.kind(),
        t.name(),
        t.table(),
        t.definer(),
        t.sqlMode(),
        t.characterSetClient(),
        t.collationConnection(),
        t.statement(),
        null);
  }
}
