package io.reshard.cdc.capture;

/**
 * Where a change came from, for the envelope's {@code source} block.
 *
 * @param serverId the server id in the event header (the originating server)
 * @param gtid the source transaction's GTID, or null
 * @param file the binlog file
 * @param pos the event's start position in the file
 * @param row the row's index within its rows event
 * @param db the database, or null
 * @param table the table, or null
 * @param tsMillis the event's timestamp (the source commit time, second precision), epoch ms
 */
record SourceInfo(
    long serverId,
    String gtid,
    String file,
    long pos,
    int row,
    String db,
    String table,
    long tsMillis) {}
