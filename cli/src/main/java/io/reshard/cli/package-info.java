/**
 * The {@code reshard} operator command line (picocli). Entry class: {@link
 * io.reshard.cli.ReshardCli}; exit codes: {@link io.reshard.cli.ExitCodes}. Commands parse, call
 * the modules, and print; they hold no business logic.
 */
package io.reshard.cli;
