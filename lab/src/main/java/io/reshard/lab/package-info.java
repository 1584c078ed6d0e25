/**
 * How the lab joins the CLI. Entry class: {@link io.reshard.lab.LabCommands}, the {@link
 * io.reshard.cli.CommandPlugin} that adds {@code reshard demo} and {@code reshard bench}.
 */
package io.reshard.lab;
