/**
 * Source positions. Entry class: {@link io.reshard.core.position.GtidPosition} (MariaDB GTID
 * positions and MySQL GTID sets, compared by coverage); {@link
 * io.reshard.core.position.CapturePosition} is what capture stores with every Kafka transaction
 * (last complete GTID, rows already published inside the current one); {@link
 * io.reshard.core.position.ServerPositions} reads a server's current position by its flavor and
 * builds the JDBC URL of each flavor's driver.
 */
package io.reshard.core.position;
