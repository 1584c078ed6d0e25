/**
 * {@code reshard demo}: the five-server experiment end to end on a local cluster. Entry class:
 * {@link io.reshard.demo.Demo}, which reads as its runbook; each step is its own class. The verb is
 * {@link io.reshard.demo.DemoCommand}, added to the CLI by {@link io.reshard.lab.LabCommands}.
 */
package io.reshard.demo;
