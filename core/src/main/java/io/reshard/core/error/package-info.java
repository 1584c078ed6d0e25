/**
 * What a failure means. Entry class: {@link io.reshard.core.error.ErrorClassifier} (retriable, data
 * error or fatal, with the named MySQL/MariaDB error codes); {@link
 * io.reshard.core.error.DataIntegrityException} is a value or stored state that cannot be trusted.
 * The root of every error is {@link io.reshard.router.ReshardException} (router-lib).
 */
package io.reshard.core.error;
