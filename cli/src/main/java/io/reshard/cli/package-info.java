/**
 * The {@code reshard} operator command line (picocli). Entry class: {@link
 * io.reshard.cli.ReshardCli}; exit codes: {@link io.reshard.cli.ExitCodes}. Commands parse, call
 * the modules, and print; they hold no business logic. Verbs from other modules (the lab's {@code
 * demo} and {@code bench}) join through {@link io.reshard.cli.CommandPlugin}. Failures map to exit
 * codes in {@link io.reshard.cli.ErrorHandler} (exceptions) and {@link
 * io.reshard.cli.UsageErrorHandler} (usage errors); with {@code --output json} each is one {@link
 * io.reshard.cli.FailureDocument}.
 */
package io.reshard.cli;
