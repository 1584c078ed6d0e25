/**
 * The one way configuration is declared: a module's {@link io.reshard.core.config.ConfigDef} lists
 * its {@link io.reshard.core.config.ConfigKey}s (name, type, default, validator, doc) checked with
 * {@link io.reshard.core.config.Validators}; parsing reports every problem at once and gives frozen
 * {@link io.reshard.core.config.ConfigValues}; the reference tables in {@code docs/} are rendered
 * from the same declarations.
 */
package io.reshard.core.config;
